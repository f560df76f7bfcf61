// Tests of the lifted operations on distributed arrays whose vsegids were
// replicated or expanded (virtual segments naming physical segments, maybe
// on other ranks): map, zip_with, scan_s and index_l work on the physical
// segments and keep the vsegids, with the bits of the single-node
// vseg::nested computation seen through the same vsegids; what must send
// nothing is counted through the PMPI layer (pmpi_count.cpp); mismatched
// vsegids and bad input fail the same way on every rank.
#include <doctest/doctest.h>

#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "pmpi_count.hpp"
#include "vseg/dist/lifted.hpp"

using namespace vseg::dist;
using namespace vseg::dist::testing;

namespace {

// 200 segments of 0..30 elements, one of a few fold blocks (split across
// ranks under `split`), and empty ones at the end.
global_array make_global() {
  std::mt19937_64 rng(11);
  std::vector<std::int64_t> lengths;
  for (int s = 0; s < 200; ++s) lengths.push_back(s == 90 ? 2 * vseg::tuning::segmented_block + 77 : static_cast<std::int64_t>(rng() % 31));
  for (int s = 0; s < 2; ++s) lengths.push_back(0);
  return random_global_array(std::move(lengths), rng);
}

// Every global element of a distributed array of g's shape, on every rank
// (pieces placed at their global starts). O(global elements).
std::vector<double> everything(const nested<double>& ys, std::int64_t elements) {
  std::vector<std::int64_t> starts;
  std::vector<double> data;
  for (std::int64_t k = 0; k < ys.pieces().size(); ++k)
    for (std::size_t e = 0; e < ys.pieces()[k].size(); ++e) {
      starts.push_back(ys.piece_starts()[k] + static_cast<std::int64_t>(e));
      data.push_back(ys.pieces()[k][e]);
    }
  const auto all_starts = allgather(starts);
  const auto all_data = allgather(data);
  std::vector<double> out(static_cast<std::size_t>(elements));
  for (int r = 0; r < nranks(); ++r)
    for (std::size_t k = 0; k < all_starts[r].size(); ++k) out[all_starts[r][k]] = all_data[r][k];
  return out;
}

// The single-node array seen through every rank's vsegids (rank order), and
// the global virtual index of this rank's first virtual segment.
std::pair<vseg::nested<double>, std::int64_t> serial_view(const vseg::nested<double>& whole, const nested<double>& vs) {
  const auto all = allgather(std::vector<std::int64_t>(vs.vsegids().begin(), vs.vsegids().end()));
  std::vector<std::int64_t> ids;
  std::int64_t first = 0;
  for (int r = 0; r < nranks(); ++r) {
    if (r == rank()) first = static_cast<std::int64_t>(ids.size());
    ids.insert(ids.end(), all[r].begin(), all[r].end());
  }
  return {whole.with_vsegids(vseg::array<std::int64_t>(ids)), first};
}

// Counts the elements of ys's virtual segments whose bits differ from the
// serial array's virtual segments first, first + 1, ... (first < 0: from
// the serial array's physical segment each vsegid names).
std::int64_t differences(const nested<double>& ys, const global_array& g, const vseg::nested<double>& serial,
                         std::int64_t first) {
  const auto all = everything(ys, g.starts.back());
  std::int64_t differ = 0;
  for (std::int64_t k = 0; k < ys.local_virtual_size(); ++k) {
    const std::int64_t j = ys.vsegids()[static_cast<std::size_t>(k)];
    const auto expected = serial[first < 0 ? j : first + k];
    differ += static_cast<std::int64_t>(expected.size()) != g.lengths[j];
    for (std::int64_t e = 0; e < g.lengths[j] && e < static_cast<std::int64_t>(expected.size()); ++e)
      differ += bits(all[g.starts[j] + e]) != bits(expected[e]);
  }
  return differ;
}

std::vector<sharding> all_specs() {
  return {sharding::block(), sharding::balanced(), sharding::cyclic(), sharding::split(), sharding::replicated()};
}

// The same message on every rank.
void check_same_everywhere(const std::string& message) {
  const auto messages = allgather(std::vector<char>(message.begin(), message.end()));
  for (const auto& m : messages) CHECK(std::string(m.begin(), m.end()) == message);
}

// The global array of make_global, its single-node form and segment sums,
// and the array distributed (equal segment counts).
struct reference {
  global_array g = make_global();
  vseg::nested<double> whole =
      vseg::nested<double>::from_lengths(vseg::array<std::int64_t>(g.lengths), vseg::array<double>(g.data));
  vseg::array<double> serial_sums = vseg::sum_s(whole);
  nested<double> xs = distribute(g);
};

// Counts the sums whose bits differ from the serial sum of the physical
// segment each vsegid names (and a count mismatch).
std::int64_t sum_differences(const vseg::array<double>& sums, const nested<double>& vs,
                             const vseg::array<double>& serial_sums) {
  std::int64_t differ = sums.size() != vs.local_virtual_size();
  for (std::int64_t k = 0; k < sums.size() && k < vs.local_virtual_size(); ++k)
    differ += bits(sums[k]) != bits(serial_sums[vs.vsegids()[static_cast<std::size_t>(k)]]);
  return differ;
}

// This rank's replicated and expanded views of ys (counts (k + rank) mod 3).
std::vector<nested<double>> virtual_views(const nested<double>& ys) {
  std::vector<std::int64_t> counts;
  for (std::int64_t k = 0; k < ys.local_virtual_size(); ++k) counts.push_back((k + rank()) % 3);
  return {ys.replicate(2), ys.expand(counts)};
}

}  // namespace

TEST_CASE("map, zip_with and scan_s of replicated or expanded vsegids: the pieces once, the vsegids kept") {
  const auto g = make_global();
  const auto whole = vseg::nested<double>::from_lengths(vseg::array<std::int64_t>(g.lengths), vseg::array<double>(g.data));
  const auto xs = distribute(g);
  const auto twice = [](double x) { return 2.0 * x + 1.0; };
  for (const auto& spec : all_specs()) {
    CAPTURE(spec);
    for (const auto& vs : virtual_views(xs.reshard(spec))) {
      const auto [serial, first] = serial_view(whole, vs);
      reset_traffic();
      const auto mapped = map(twice, vs);
      const auto zipped = materialize(zip_with(std::plus<>{}, mapped, vs), mapped);
      const auto scanned = scan_s(vs, vseg::plus<double>{});
      const auto t = counted_traffic();
      // map and zip_with send nothing; scan_s only for a split segment (its allgather(v)).
      CHECK(t.calls == (spec.splits_segments() ? 2 : 0));
      for (const auto* r : {&mapped, &zipped, &scanned}) {
        CHECK_FALSE(r->identity_virtual());
        CHECK(std::vector<std::int64_t>(r->vsegids().begin(), r->vsegids().end()) ==
              std::vector<std::int64_t>(vs.vsegids().begin(), vs.vsegids().end()));
        CHECK(r->pieces().size() == vs.pieces().size());
      }
      const vseg::nested<double> serial_mapped = vseg::map(twice, serial);
      CHECK(differences(mapped, g, serial_mapped, first) == 0);
      CHECK(differences(zipped, g, vseg::nested<double>(vseg::zip_with(std::plus<>{}, serial_mapped, serial)), first) == 0);
      // scan_s and sum_s: the bits of the single-node scan and fold of the
      // physical segment each vsegid names (as fold_s of vsegids; the core's
      // scan and fold of a virtual array cut a segment longer than a block
      // elsewhere, so their last bits may differ: see notes/distributed.md).
      CHECK(differences(scanned, g, vseg::scan_s(whole, vseg::plus<double>{}), -1) == 0);
      const auto sums = sum_s(zip_with(std::plus<>{}, mapped, vs));
      const auto serial_sums = vseg::sum_s(vseg::zip_with(std::plus<>{}, vseg::map(twice, whole), whole));
      REQUIRE(sums.size() == vs.local_virtual_size());
      std::int64_t differ = 0;
      for (std::int64_t k = 0; k < sums.size(); ++k)
        differ += bits(sums[k]) != bits(serial_sums[vs.vsegids()[static_cast<std::size_t>(k)]]);
      CHECK(differ == 0);
    }
  }
}

TEST_CASE("zip_with of vsegids: equal lists compared with one message, different ones fail on every rank") {
  const auto g = make_global();
  const auto ys = distribute(g).reshard(sharding::balanced());
  // Two replicates made apart: equal lists, not known to be shared.
  const auto a = ys.replicate(2), b = ys.replicate(2);
  reset_traffic();
  (void)zip_with(std::plus<>{}, a, b);
  auto t = counted_traffic();
  CHECK(t.calls == 1);
  CHECK(t.by_function["MPI_Allreduce"].first == 1);
  // A copy shares the list: no message.
  const auto a_copy = a;
  reset_traffic();
  (void)zip_with(std::plus<>{}, a_copy, map([](double x) { return -x; }, a));
  CHECK(counted_traffic().calls == 0);

  // Different vsegids on one rank only (the last): the same exception everywhere.
  std::vector<std::int64_t> counts(static_cast<std::size_t>(ys.local_virtual_size()), 2);
  if (rank() == nranks() - 1 && !counts.empty()) counts.back() = 3;
  const auto c = ys.expand(counts);
  std::string message;
  try {
    (void)zip_with(std::plus<>{}, a, c);
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  CHECK(message.find("take_v") != std::string::npos);
  check_same_everywhere(message);
  // Replicated vsegids against pieces: known on every rank without a message.
  CHECK_THROWS_WITH_AS((void)zip_with(std::plus<>{}, a, ys), doctest::Contains("take_v its segments first"),
                       std::invalid_argument);
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("index_l(replicate(n, x), is) with is's vsegids replicated or expanded: the pieces indexed once") {
  const std::int64_t n = 700;
  const auto [values, x_split, x_everywhere] = spread(n, 0.25, -9.0);
  auto rng = rng_for(5, rank());
  const variable<std::int64_t> idx = random_index_segments(rng, 15, 12, n);
  const auto is0 = nested<std::int64_t>::from_segments(idx, MPI_COMM_WORLD);
  // Every rank's index segments, and the serial products' sums per physical segment.
  const auto all_counts = allgather(idx.counts);
  const auto all_idx = allgather(idx.data);
  std::vector<std::int64_t> lengths;
  std::vector<double> products;
  for (int r = 0; r < nranks(); ++r) {
    lengths.insert(lengths.end(), all_counts[r].begin(), all_counts[r].end());
    for (auto i : all_idx[r]) products.push_back((1.0 + static_cast<double>(i % 3)) * values[static_cast<std::size_t>(i)]);
  }
  const auto serial = vseg::sum_s(vseg::nested<double>::from_lengths(vseg::array<std::int64_t>(lengths),
                                                                       vseg::array<double>(products)));
  std::vector<std::int64_t> counts;
  for (std::int64_t k = 0; k < is0.local_virtual_size(); ++k) counts.push_back(k % 4);
  for (const auto& is : {is0.replicate(3), is0.expand(counts)}) {
    const auto vals = map([](std::int64_t i) { return 1.0 + static_cast<double>(i % 3); }, is);
    std::int64_t virtual_total = is.local_virtual_size();
    MPI_Allreduce(MPI_IN_PLACE, &virtual_total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    for (const auto* x : {&x_split, &x_everywhere}) {
      CAPTURE(x->spec());
      const auto spmv = [&] {
        return sum_s(zip_with(std::multiplies<>{}, vals, index_l(replicate(virtual_total, *x), is)));
      };
      const auto first = spmv();
      REQUIRE(first.size() == is.local_virtual_size());
      std::int64_t differ = 0;
      for (std::int64_t k = 0; k < first.size(); ++k)
        differ += bits(first[k]) != bits(serial[is.vsegids()[static_cast<std::size_t>(k)]]);
      CHECK(differ == 0);
      // Planned: the gather's exchange (none for x replicated) and the fold's take of one value per vsegid.
      reset_traffic();
      const auto lifted = index_l(replicate(virtual_total, *x), is);
      auto t = counted_traffic();
      CHECK(t.calls == (x->spec() == sharding::replicated() ? 0 : 1));
      CHECK(lifted.virt != nullptr);
    }
    // n against the virtual segments (counted once), and x seen through vsegids: the same error everywhere.
    CHECK_THROWS_WITH_AS((void)index_l(replicate(is0.global_segments() + virtual_total, x_split), is),
                         doctest::Contains("virtual segments of indices"), std::invalid_argument);
    CHECK_THROWS_WITH_AS((void)index_l(replicate(virtual_total, x_everywhere.replicate(1)), is),
                         doctest::Contains("take_v"), std::invalid_argument);
  }
  // An index outside x, on the last rank only, under replicated vsegids: the same out_of_range everywhere.
  variable<std::int64_t> bad{{1}, {rank() == nranks() - 1 ? n : 0}};
  const auto bad_is = nested<std::int64_t>::from_segments(bad, MPI_COMM_WORLD).replicate(2);
  for (const auto* x : {&x_split, &x_everywhere}) {
    std::string message;
    try {
      (void)index_l(replicate(2 * nranks(), *x), bad_is);
    } catch (const std::out_of_range& e) {
      message = e.what();
    }
    CHECK_FALSE(message.empty());
    check_same_everywhere(message);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// pack of vsegids: one flag per virtual segment (the core vseg::pack's and
// DPH's meaning), the pieces shared and the flagged vsegids kept, nothing
// sent but the flag counts' agreement; rebalance::yes takes the kept
// virtual segments as segments of their own, balanced.
TEST_CASE("pack of replicated or expanded vsegids: the flagged vsegids over the same pieces") {
  const reference ref;
  const auto& [g, whole, serial_sums, xs] = ref;
  auto rng = rng_for(17, rank());
  for (const auto& spec : all_specs()) {
    CAPTURE(spec);
    for (const auto& vs : virtual_views(xs.reshard(spec))) {
      std::vector<bool> keep;
      std::vector<std::int64_t> kept;
      for (std::int64_t k = 0; k < vs.local_virtual_size(); ++k) {
        keep.push_back(rng() % 3 != 0);
        if (keep.back()) kept.push_back(vs.vsegids()[static_cast<std::size_t>(k)]);
      }
      const vseg::array<bool> flags(keep);
      reset_traffic();
      const auto packed = pack(vs, flags);
      auto t = counted_traffic();
      CHECK(t.calls == 1);  // the agreement on the flag counts
      CHECK(t.by_function["MPI_Allreduce"].first == 1);
      CHECK_FALSE(packed.identity_virtual());
      CHECK(std::vector<std::int64_t>(packed.vsegids().begin(), packed.vsegids().end()) == kept);
      // The pieces are vs's own: no element copied.
      CHECK(packed.pieces().size() == vs.pieces().size());
      CHECK(packed.pieces().blocks().size() == vs.pieces().blocks().size());
      for (std::size_t b = 0; b < packed.pieces().blocks().size(); ++b)
        CHECK(packed.pieces().blocks()[b].data() == vs.pieces().blocks()[b].data());
      CHECK(sum_differences(sum_s(packed), packed, serial_sums) == 0);

      // rebalance::yes: every rank's kept virtual segments, in rank order, as balanced segments.
      const auto balanced = pack(vs, flags, rebalance::yes);
      CHECK(balanced.identity_virtual());
      CHECK(balanced.spec() == sharding::balanced());
      std::vector<std::int64_t> names;
      for (const auto& ids : allgather(kept)) names.insert(names.end(), ids.begin(), ids.end());
      CHECK(balanced.global_segments() == static_cast<std::int64_t>(names.size()));
      std::int64_t differ = 0;
      for (std::int64_t k = 0; k < balanced.pieces().size(); ++k) {
        const auto got = balanced.pieces()[k];
        const auto expected = whole[names[static_cast<std::size_t>(balanced.piece_ids()[k])]];
        differ += got.size() != expected.size();
        for (std::size_t e = 0; e < got.size() && e < expected.size(); ++e) differ += bits(got[e]) != bits(expected[e]);
      }
      CHECK(differ == 0);
    }
  }
}

TEST_CASE("pack of vsegids: a wrong flag count on one rank fails the same way on every rank") {
  const auto vs = distribute(make_global()).reshard(sharding::split()).replicate(2);
  // One flag per piece (not per virtual segment) on the last rank only.
  const std::int64_t n = rank() == nranks() - 1 ? vs.pieces().size() : vs.local_virtual_size();
  std::string message;
  try {
    (void)pack(vs, vseg::array<bool>(std::vector<bool>(static_cast<std::size_t>(n), true)));
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  CHECK(message.find("dist::pack") != std::string::npos);
  CHECK(message.find("flags has size") != std::string::npos);
  CHECK(message.find("virtual segments") != std::string::npos);
  check_same_everywhere(message);
  MPI_Barrier(MPI_COMM_WORLD);
}

// reshard of vsegids: the vsegids (global segment ids under every spec)
// carry over, so the virtual segments are the same segments after it; the
// planned reshard sends what it sends without vsegids.
TEST_CASE("reshard of replicated or expanded vsegids: the same virtual segments under every spec") {
  const reference ref;
  const auto& [g, whole, serial_sums, xs] = ref;
  for (const auto& from : all_specs())
    for (const auto& vs : virtual_views(xs.reshard(from)))
      for (const auto& to : all_specs()) {
        CAPTURE(from);
        CAPTURE(to);
        const auto moved = vs.reshard(to);
        CHECK(moved.spec() == to);
        CHECK_FALSE(moved.identity_virtual());
        CHECK(std::vector<std::int64_t>(moved.vsegids().begin(), moved.vsegids().end()) ==
              std::vector<std::int64_t>(vs.vsegids().begin(), vs.vsegids().end()));
        CHECK(sum_differences(sum_s(moved), moved, serial_sums) == 0);
        if (to.contiguous() && !to.splits_segments()) {  // take_v reads these: the segments themselves
          const auto mine = moved.take_physical(moved.vsegids());
          std::vector<double> expected;
          for (const std::int64_t j : moved.vsegids()) expected.insert(expected.end(), whole[j].begin(), whole[j].end());
          CHECK(mine.data.size() == expected.size());
          std::int64_t differ = 0;
          for (std::size_t e = 0; e < mine.data.size() && e < expected.size(); ++e) differ += bits(mine.data[e]) != bits(expected[e]);
          CHECK(differ == 0);
        }
      }
  // Planned, the vsegids cost nothing: the spec's agreement and one take (3 calls).
  const auto vs = xs.reshard(sharding::balanced()).replicate(2);
  (void)vs.reshard(sharding::split());
  reset_traffic();
  (void)vs.reshard(sharding::split());
  CHECK(counted_traffic().calls == 3);
}
