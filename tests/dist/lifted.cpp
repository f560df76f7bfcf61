// Tests of the distributed nested array on the core types: conversion to and
// from vseg::nested without copying, sharding specs and reshard, lifted
// operations (map, zip_with, fold_s/sum_s bit for bit the single-node fold,
// index_l of a replicated array, pack), and the MPI traffic of each, counted
// through the PMPI layer (pmpi_count.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <span>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "helpers.hpp"
#include "pmpi_count.hpp"
#include "vseg/dist/lifted.hpp"

using namespace vseg::dist;
using namespace vseg::dist::testing;

namespace {

// The global array every rank can rebuild: small segments, a few of a few
// thousand elements and one giant one that spans several fold blocks.
global_array make_global() {
  std::mt19937_64 rng(42);
  std::vector<std::int64_t> lengths;
  for (int s = 0; s < 300; ++s) {
    std::int64_t len = static_cast<std::int64_t>(rng() % 40);
    if (s % 97 == 5) len = 5000 + static_cast<std::int64_t>(rng() % 3000);
    if (s == 150) len = 3 * vseg::tuning::segmented_block + 1234;
    lengths.push_back(len);
  }
  // Empty segments at the end start at N: every spec must still place them.
  for (int s = 0; s < 3; ++s) lengths.push_back(0);
  return random_global_array(std::move(lengths), rng);
}

// Every rank's (segment id, result) pairs, in rank order.
std::vector<std::pair<std::int64_t, double>> gather_results(const vseg::array<std::int64_t>& ids,
                                                            const vseg::array<double>& values) {
  std::vector<std::int64_t> id_list(ids.begin(), ids.begin() + values.size());
  std::vector<double> value_list(values.begin(), values.end());
  auto all_ids = allgather(id_list);
  auto all_values = allgather(value_list);
  std::vector<std::pair<std::int64_t, double>> result;
  for (int r = 0; r < nranks(); ++r)
    for (std::size_t k = 0; k < all_ids[r].size(); ++k) result.emplace_back(all_ids[r][k], all_values[r][k]);
  return result;
}

// Every piece of ys holds the global elements of g it claims; O(elements).
void check_pieces(const nested<double>& ys, const global_array& g) {
  const auto& starts = g.starts;
  const auto& p = ys.pieces();
  for (std::int64_t k = 0; k < p.size(); ++k) {
    const std::int64_t id = ys.piece_ids()[k];
    const auto piece = p[k];
    const std::int64_t first = ys.piece_starts()[k];
    CHECK(first >= starts[id]);
    if (!ys.spec().splits_segments()) CHECK(first == starts[id]);
    REQUIRE(first + static_cast<std::int64_t>(piece.size()) <= starts[id + 1]);
    CHECK(std::equal(piece.begin(), piece.end(), g.data.begin() + first));
  }
}

std::vector<sharding> all_specs(std::int64_t m) {
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(nranks()) + 1, m);
  offsets[0] = 0;
  for (int r = 1; r < nranks(); ++r) offsets[r] = std::min<std::int64_t>(m, 7 * r * r);
  return {sharding::block(), sharding::balanced(), sharding::cyclic(), sharding::offsets(offsets), sharding::split(),
          sharding::replicated()};
}

}  // namespace

TEST_CASE("specs are printable and comparable values") {
  CHECK(sharding::block().to_string() == "block");
  CHECK(sharding::offsets({0, 3, 7}).to_string() == "offsets{0,3,7}");
  std::ostringstream out;
  out << sharding::split() << ' ' << sharding::replicated() << ' ' << sharding::cyclic() << ' ' << sharding::balanced();
  CHECK(out.str() == "split replicated cyclic balanced");
  CHECK(sharding::offsets({0, 3}) == sharding::offsets({0, 3}));
  CHECK_FALSE(sharding::offsets({0, 3}) == sharding::offsets({0, 4}));
  CHECK_FALSE(sharding::block() == sharding::balanced());
}

TEST_CASE("from_local and local convert without copying; replicate and expand send nothing") {
  const auto core = vseg::nested<double>::from({{1.0, 2.0}, {}, {3.0 + rank()}});
  const auto xs = nested<double>::from_local(core, MPI_COMM_WORLD);
  CHECK(xs.pieces().blocks()[0].data() == core.blocks()[0].data());
  CHECK(xs.local().blocks()[0].data() == core.blocks()[0].data());
  CHECK(xs.global_segments() == 3 * nranks());
  CHECK(xs.vsegids()[0] == 3 * rank());
  // A core array with replicated virtual segments keeps them.
  const auto twice = vseg::replicate(2, vseg::array<double>{5.0, 6.0});
  const auto ys = nested<double>::from_local(twice, MPI_COMM_WORLD);
  CHECK(ys.local().size() == 2);
  CHECK(ys.local().blocks()[0].data() == twice.blocks()[0].data());
  CHECK(ys.vsegids()[1] == rank());

  reset_traffic();
  const auto more = xs.replicate(3);
  const auto some = xs.expand(std::vector<std::int64_t>{0, 2, 1});
  CHECK(counted_traffic().calls == 0);
  CHECK(more.pieces().blocks()[0].data() == core.blocks()[0].data());
  CHECK(some.local().size() == 3);
  CHECK(some.local()[0].data() == core[1].data());
  if (nranks() > 1) {
    const auto far = nested<double>(variable<double>{{1}, {1.0}}, {(rank() + 1) % nranks()}, MPI_COMM_WORLD);
    CHECK_THROWS_AS((void)far.local(), std::out_of_range);
  }
}

TEST_CASE("reshard to every spec keeps the elements; plans are cached; equal specs send nothing") {
  const auto g = make_global();
  const auto xs = distribute(g);
  const auto m = static_cast<std::int64_t>(g.lengths.size());
  const auto& starts = g.starts;
  for (const auto& spec : all_specs(m)) {
    CAPTURE(spec);
    const auto ys = xs.reshard(spec);
    CHECK(ys.spec() == spec);
    // Every piece holds the global elements it claims.
    const auto& p = ys.pieces();
    for (std::int64_t k = 0; k < p.size(); ++k) {
      const std::int64_t id = ys.piece_ids()[k];
      const auto piece = p[k];
      const std::int64_t first = spec.splits_segments() ? std::max(starts[id], ys.placement().first_element[rank()])
                                                        : starts[id];
      REQUIRE(first + static_cast<std::int64_t>(piece.size()) <= starts[id + 1]);
      CHECK(std::equal(piece.begin(), piece.end(), g.data.begin() + first));
    }
    // Every segment once (every rank for replicated), and back to block.
    std::int64_t held = p.size(), total = 0;
    MPI_Allreduce(&held, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (spec == sharding::replicated()) CHECK(total == m * nranks());
    else if (!spec.splits_segments()) CHECK(total == m);
    const auto back = ys.reshard(sharding::block());
    const auto again = xs.reshard(sharding::block());
    CHECK(vseg::to_vectors(back.pieces()) == vseg::to_vectors(again.pieces()));
  }

  // Equal specs: the array itself, no message.
  reset_traffic();
  const auto same = xs.reshard(xs.spec());
  CHECK(counted_traffic().calls == 0);
  CHECK(same.pieces().blocks()[0].data() == xs.pieces().blocks()[0].data());

  // A planned reshard: one agreement on the spec, then the take (its check and
  // one Alltoallv carrying exactly the elements that change rank).
  (void)xs.reshard(sharding::split());
  reset_traffic();
  const auto ys = xs.reshard(sharding::split());
  auto t = counted_traffic();
  CHECK(t.calls == 3);
  CHECK(t.by_function["MPI_Allreduce"].first == 2);
  CHECK(t.by_function["MPI_Alltoallv"].first == 1);
  const auto& from = xs.placement().first_element;
  const auto& to = ys.placement().first_element;
  std::int64_t leaving = 0;
  for (int r = 0; r < nranks(); ++r)
    if (r != rank())
      leaving += std::max<std::int64_t>(0, std::min(from[rank() + 1], to[r + 1]) - std::max(from[rank()], to[r]));
  CHECK(t.by_function["MPI_Alltoallv"].second == leaving * static_cast<std::int64_t>(sizeof(double)));
}

TEST_CASE("reshard from every spec to every spec, cyclic sources included; planned once, then one take") {
  const auto g = make_global();
  const auto xs = distribute(g);
  const auto m = static_cast<std::int64_t>(g.lengths.size());
  for (const auto& from : all_specs(m)) {
    const auto source = xs.reshard(from);
    for (const auto& to : all_specs(m)) {
      CAPTURE(from);
      CAPTURE(to);
      const auto ys = source.reshard(to);
      CHECK(ys.spec() == to);
      check_pieces(ys, g);
      // Every segment held (every rank for replicated); with split, every element once.
      std::int64_t held[2] = {ys.pieces().size(), 0};
      for (std::int64_t k = 0; k < ys.pieces().size(); ++k) held[1] += static_cast<std::int64_t>(ys.pieces()[k].size());
      std::int64_t total[2] = {0, 0};
      MPI_Allreduce(held, total, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      const std::int64_t copies = to == sharding::replicated() ? nranks() : 1;
      if (!to.splits_segments()) CHECK(total[0] == m * copies);
      CHECK(total[1] == static_cast<std::int64_t>(g.data.size()) * copies);
    }
  }

  // From cyclic, planned: the spec's agreement, then the take (its check and
  // one Alltoallv of exactly the elements that change rank).
  const auto cyclic = xs.reshard(sharding::cyclic());
  for (const auto& to : {sharding::balanced(), sharding::split()}) {
    CAPTURE(to);
    (void)cyclic.reshard(to);
    reset_traffic();
    const auto ys = cyclic.reshard(to);
    auto t = counted_traffic();
    CHECK(t.calls == 3);
    CHECK(t.by_function["MPI_Allreduce"].first == 2);
    CHECK(t.by_function["MPI_Alltoallv"].first == 1);
    const auto& lo = ys.placement().first_element;
    std::int64_t leaving = 0;
    for (std::int64_t k = 0; k < cyclic.pieces().size(); ++k) {
      const std::int64_t start = cyclic.piece_starts()[k];
      const std::int64_t end = start + static_cast<std::int64_t>(cyclic.pieces()[k].size());
      leaving += end - start - std::max<std::int64_t>(0, std::min(end, lo[rank() + 1]) - std::max(start, lo[rank()]));
    }
    CHECK(t.by_function["MPI_Alltoallv"].second == leaving * static_cast<std::int64_t>(sizeof(double)));
  }
  // Cyclic to cyclic: the array itself, no message.
  reset_traffic();
  const auto same = cyclic.reshard(sharding::cyclic());
  CHECK(counted_traffic().calls == 0);
  if (cyclic.pieces().size() > 0) CHECK(same.pieces()[0].data() == cyclic.pieces()[0].data());
  // Bad offsets from a cyclic source: the same exception on every rank.
  CHECK_THROWS_AS((void)cyclic.reshard(sharding::offsets({0, m + 1})), std::invalid_argument);
}

// The arrays a reshard returns are streamed by every later product (SpMV's
// values): they live in the library's buffer pool like every primitive's
// output, not in an adopted std::vector (notes/distributed.md, "The values' memory").
TEST_CASE("a planned reshard's elements are in the library's buffer pool") {
  // 10 segments of 2000-3500 doubles per rank: well above the pool's 64 KiB threshold on every rank.
  const std::vector<std::int64_t> lengths(10, 2000 + 500 * (rank() % 4));
  std::int64_t n = 0;
  for (auto len : lengths) n += len;
  std::vector<double> data(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) data[static_cast<std::size_t>(k)] = static_cast<double>(rank() * 100000 + k);
  const auto xs = nested<double>::from_local(
      vseg::nested<double>::from_lengths(vseg::array<std::int64_t>(lengths), vseg::array<double>(std::move(data))),
      MPI_COMM_WORLD);
  (void)xs.reshard(sharding::balanced());  // builds and caches the plan; its result is freed
  const std::int64_t before = vseg::allocator_stats().in_use_bytes;
  const auto ys = xs.reshard(sharding::balanced());
  const std::int64_t after = vseg::allocator_stats().in_use_bytes;
  std::int64_t held = 0;
  for (std::int64_t k = 0; k < ys.pieces().size(); ++k) held += static_cast<std::int64_t>(ys.pieces()[k].size());
  REQUIRE(held * static_cast<std::int64_t>(sizeof(double)) >= 64 * 1024);
  CHECK(after - before >= held * static_cast<std::int64_t>(sizeof(double)));
}

TEST_CASE("sum_s, fold_s and scan_s: the bits of the single-node fold on every spec and rank count") {
  const auto g = make_global();
  const auto whole = vseg::nested<double>::from_lengths(vseg::array<std::int64_t>(g.lengths), vseg::array<double>(g.data));
  const auto serial = vseg::sum_s(whole);
  const auto serial_max = vseg::fold_s(whole, vseg::maximum<double>{});
  const auto serial_scan = vseg::scan_s(whole);
  const auto xs = distribute(g);
  const auto m = static_cast<std::int64_t>(g.lengths.size());
  for (const auto& spec : all_specs(m)) {
    if (spec == sharding::replicated()) continue;
    CAPTURE(spec);
    const auto ys = xs.reshard(spec);
    const auto sums = gather_results(ys.piece_ids(), sum_s(ys));
    REQUIRE(static_cast<std::int64_t>(sums.size()) == m);
    std::int64_t differ = 0;
    for (const auto& [id, value] : sums) differ += bits(value) != bits(serial[id]);
    CHECK(differ == 0);
    const auto maxima = gather_results(ys.piece_ids(), fold_s(ys, vseg::maximum<double>{}));
    for (const auto& [id, value] : maxima) CHECK(bits(value) == bits(serial_max[id]));
    // scan_s: every element of every piece at its global position.
    const auto scanned = scan_s(ys, vseg::plus<double>{});
    CHECK(scanned.spec() == spec);
    std::int64_t scan_differ = 0;
    for (std::int64_t k = 0; k < scanned.pieces().size(); ++k) {
      const auto piece = scanned.pieces()[k];
      for (std::size_t e = 0; e < piece.size(); ++e)
        scan_differ += bits(piece[e]) != bits(serial_scan.blocks()[0][ys.piece_starts()[k] + static_cast<std::int64_t>(e)]);
    }
    CHECK(scan_differ == 0);
  }
}

TEST_CASE("sum_s and fold_s of replicated or expanded vsegids: one value per virtual segment, single-node bits") {
  const auto g = make_global();
  const auto whole = vseg::nested<double>::from_lengths(vseg::array<std::int64_t>(g.lengths), vseg::array<double>(g.data));
  const auto serial = vseg::sum_s(whole);
  const auto serial_max = vseg::fold_s(whole, vseg::maximum<double>{});
  const auto xs = distribute(g);
  const auto m = static_cast<std::int64_t>(g.lengths.size());
  const auto check = [&](const nested<double>& vs) {
    REQUIRE_FALSE(vs.identity_virtual());
    const auto sums = sum_s(vs);
    const auto maxima = fold_s(vs, vseg::maximum<double>{});
    REQUIRE(sums.size() == vs.local_virtual_size());
    std::int64_t differ = 0;
    for (std::int64_t k = 0; k < sums.size(); ++k) {
      const auto j = vs.vsegids()[static_cast<std::size_t>(k)];
      differ += bits(sums[k]) != bits(serial[j]) || bits(maxima[k]) != bits(serial_max[j]);
    }
    CHECK(differ == 0);
  };
  for (const auto& spec : all_specs(m)) {
    CAPTURE(spec);
    const auto ys = xs.reshard(spec);
    check(ys.replicate(2));
    std::vector<std::int64_t> counts;
    for (std::int64_t k = 0; k < ys.local_virtual_size(); ++k) counts.push_back(k % 3);
    const auto expanded = ys.expand(counts);
    check(expanded);
    // The plan is cached: the second fold is one take (2 calls), none when replicated.
    (void)sum_s(expanded);
    reset_traffic();
    (void)sum_s(expanded);
    const auto t = counted_traffic();
    const std::int64_t fold_calls = spec.splits_segments() ? 2 : 0;  // the split fold's allgather(v)
    CHECK(t.calls == fold_calls + (spec == sharding::replicated() ? 0 : 2));
  }
  // Virtual segments naming segments held by other ranks (offsets layout):
  // segment (7 r + 11) mod M, for every rank r, on every rank.
  std::vector<std::int64_t> far;
  for (int r = 0; r < nranks(); ++r) far.push_back((7 * r + 11 * (rank() + 1)) % m);
  const auto named = nested<double>(xs.local_segments(), far, MPI_COMM_WORLD);
  check(named);
  // A mesh block with replicated vsegids: the same exception on every rank.
  auto mesh = std::make_shared<const process_mesh>(sharding::mesh(), MPI_COMM_WORLD);
  const auto block = mesh_block(vseg::nested<double>::from({{1.0, 2.0}, {3.0}}), mesh);
  CHECK_THROWS_WITH_AS((void)sum_s(block.replicate(2)), doctest::Contains("take_v its segments first"),
                       std::invalid_argument);
}

TEST_CASE("map and zip_with are local; different placements fail on every rank alike") {
  const auto g = make_global();
  const auto xs = distribute(g).reshard(sharding::balanced());
  const auto ones = map([](double) { return 1.0; }, xs);
  reset_traffic();
  const auto doubled = map([](double x) { return 2 * x; }, xs);
  const auto sums = sum_s(zip_with(std::plus<>{}, doubled, xs));
  const auto counts = sum_s(ones);
  auto t = counted_traffic();
  CHECK(t.calls == 0);
  CHECK(t.bytes == 0);
  for (std::int64_t k = 0; k < xs.pieces().size(); ++k)
    CHECK(counts[k] == static_cast<double>(xs.pieces().length(k)));
  CHECK(sums.size() == xs.pieces().size());

  const auto other = distribute(g).reshard(sharding::cyclic());
  std::string message;
  try {
    (void)zip_with(std::plus<>{}, other, xs);
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  CHECK(message.find("placed differently") != std::string::npos);
  const auto messages = allgather(std::vector<char>(message.begin(), message.end()));
  for (const auto& m : messages) CHECK(std::string(m.begin(), m.end()) == message);
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("index_l(replicate(n, x), is): x replicated sends nothing; x sharded uses a cached gather plan") {
  const std::int64_t n = 1000;
  // x as one segment of n elements on rank 0, then sharded by elements.
  const auto [values, x_split, x_everywhere] = spread(n, 0.5, -7.0);
  // Indices: 20 segments per rank of 0..9 indices each.
  auto rng = rng_for(7, rank());
  const variable<std::int64_t> idx = random_index_segments(rng, 20, 10, n);
  const auto is = nested<std::int64_t>::from_segments(idx, MPI_COMM_WORLD);
  const auto vals = map([](std::int64_t i) { return 1.0 + static_cast<double>(i % 3); }, is);
  std::vector<double> expected;
  std::int64_t at = 0;
  for (auto len : idx.counts) {
    double sum = 0;
    for (std::int64_t k = at; k < at + len; ++k) sum += (1.0 + static_cast<double>(idx.data[k] % 3)) * values[idx.data[k]];
    expected.push_back(sum);
    at += len;
  }
  for (const auto* x : {&x_split, &x_everywhere}) {
    CAPTURE(x->spec());
    const auto spmv = [&] {
      return sum_s(zip_with(std::multiplies<>{}, vals, index_l(replicate(is.global_segments(), *x), is)));
    };
    const auto first = spmv();
    reset_traffic();
    const auto second = spmv();
    auto t = counted_traffic();
    CHECK(std::vector<double>(second.begin(), second.end()) == expected);
    CHECK(std::vector<double>(first.begin(), first.end()) == expected);
    if (x->spec() == sharding::replicated()) CHECK(t.calls == 0);
    else  // the plan's exchange, no agreement; posted nonblocking (the own x copied meanwhile)
      CHECK((t.calls == 1 && t.by_function["MPI_Ialltoallv"].first == 1));
  }
  // An index outside x, past its end or negative: the same out_of_range on
  // every rank, from the plan (the products then read its slots unchecked).
  for (const std::int64_t outside : {n, std::int64_t{-1}}) {
    variable<std::int64_t> bad{{1}, {rank() == nranks() - 1 ? outside : 0}};
    const auto bad_is = nested<std::int64_t>::from_segments(bad, MPI_COMM_WORLD);
    for (const auto* x : {&x_split, &x_everywhere}) {
      CAPTURE(outside);
      CHECK_THROWS_AS((void)index_l(replicate(bad_is.global_segments(), *x), bad_is), std::out_of_range);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("pack keeps the flagged segments, rebalanced on request") {
  const auto g = make_global();
  const auto xs = distribute(g);
  std::vector<bool> keep;
  for (std::int64_t k = 0; k < xs.pieces().size(); ++k) keep.push_back(xs.piece_ids()[k] % 3 == 0);
  const auto flags = vseg::array<bool>(keep);
  const auto kept = pack(xs, flags);
  const auto balanced = pack(xs, flags, rebalance::yes);
  CHECK(balanced.spec() == sharding::balanced());
  std::int64_t expected = 0, got = 0, local = balanced.pieces().size();
  for (std::size_t s = 0; s < g.lengths.size(); s += 3) ++expected;
  MPI_Allreduce(&local, &got, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(got == expected);
  CHECK(kept.pieces().size() == static_cast<std::int64_t>(std::count(keep.begin(), keep.end(), true)));
  // No element copied: the first kept segment is the original's storage.
  const auto first_kept = std::find(keep.begin(), keep.end(), true) - keep.begin();
  if (kept.pieces().size() > 0) CHECK(kept.pieces()[0].data() == xs.pieces()[first_kept].data());
  CHECK_THROWS_AS((void)pack(xs, vseg::array<bool>(std::vector<bool>(rank() == 0 ? 1 : keep.size(), true))),
                  std::invalid_argument);
}

TEST_CASE("pack under split: a giant segment split across ranks kept or dropped; folds keep the single-node bits") {
  const auto g = make_global();
  const auto xs = distribute(g).reshard(sharding::split());
  for (const std::int64_t every : {3, 7}) {  // segment 150 (split on 2+ ranks) kept, then dropped
    CAPTURE(every);
    std::vector<bool> keep;
    for (std::int64_t k = 0; k < xs.pieces().size(); ++k) keep.push_back(xs.piece_ids()[k] % every == 0);
    std::vector<std::int64_t> kept_lengths;
    std::vector<double> kept_data;
    for (std::size_t s = 0; s < g.lengths.size(); s += static_cast<std::size_t>(every)) {
      kept_lengths.push_back(g.lengths[s]);
      kept_data.insert(kept_data.end(), g.data.begin() + g.starts[s], g.data.begin() + g.starts[s + 1]);
    }
    // The reference: the kept segments of g, in order.
    const auto kept_g = global_array_of(std::move(kept_lengths), std::move(kept_data));
    const auto flags = vseg::array<bool>(keep);
    const auto kept = pack(xs, flags);
    CHECK(kept.spec() == sharding::split());
    CHECK(kept.global_segments() == static_cast<std::int64_t>(kept_g.lengths.size()));
    CHECK(kept.global_elements() == static_cast<std::int64_t>(kept_g.data.size()));
    check_pieces(kept, kept_g);
    // Split's cuts of the packed shape: sum_s has the single-node bits.
    const auto whole = vseg::nested<double>::from_lengths(vseg::array<std::int64_t>(kept_g.lengths),
                                                          vseg::array<double>(kept_g.data));
    const auto serial = vseg::sum_s(whole);
    const auto sums = gather_results(kept.piece_ids(), sum_s(kept));
    CHECK(sums.size() == kept_g.lengths.size());
    for (const auto& [id, value] : sums) CHECK(bits(value) == bits(serial[id]));
    const auto balanced = pack(xs, flags, rebalance::yes);
    CHECK(balanced.spec() == sharding::balanced());
    check_pieces(balanced, kept_g);
  }
  // One rank flags its continued piece of a split segment differently: the
  // same exception on every rank.
  std::vector<bool> keep(static_cast<std::size_t>(xs.pieces().size()), true);
  const auto& starts = g.starts;
  const bool continued = !keep.empty() && xs.piece_starts()[0] > starts[xs.piece_ids()[0]];
  if (continued) keep[0] = false;
  std::int64_t flipped = continued, any = 0;
  MPI_Allreduce(&flipped, &any, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (nranks() > 1) CHECK(any > 0);
  if (any > 0) CHECK_THROWS_WITH_AS((void)pack(xs, vseg::array<bool>(keep)), doctest::Contains("whose flags for it differ"),
                                    std::invalid_argument);
}

TEST_CASE("take_agreed: the checked take once per item size, then no agreement message; same items as take") {
  const auto d = distribution::uniform(40, MPI_COMM_WORLD);
  std::vector<std::int64_t> indices;  // every rank asks for items of every rank, in reverse
  for (std::int64_t i = 39; i >= 0; i -= 3) indices.push_back((i + 7 * rank()) % 40);
  const global_indexer plan(d, indices, MPI_COMM_WORLD);
  std::vector<double> data;
  for (std::int64_t i = d.local_begin(); i < d.local_end(); ++i) data.push_back(0.5 * static_cast<double>(i));
  const std::vector<double> expected = plan.take(data);
  std::vector<double> out(indices.size(), -1.0);
  const global_indexer fresh(d, indices, MPI_COMM_WORLD);
  reset_traffic();
  fresh.take_agreed(std::span<const double>(data), std::span<double>(out));  // first: checked
  CHECK(counted_traffic().by_function["MPI_Allreduce"].first == 1);
  CHECK(out == expected);
  std::fill(out.begin(), out.end(), -1.0);
  reset_traffic();
  fresh.take_agreed(std::span<const double>(data), std::span<double>(out));
  auto t = counted_traffic();
  CHECK(t.by_function["MPI_Allreduce"].first == 0);
  CHECK(t.calls == 1);  // the exchange alone
  CHECK(t.by_function["MPI_Alltoallv"].first == 1);  // blocking: no work to overlap
  CHECK(out == expected);
  // With work to overlap: posted nonblocking, the work runs exactly once and
  // may write memory the exchange does not touch; the same items arrive.
  for (const std::int64_t limit : {std::int64_t{0}, std::int64_t{2}}) {  // 2: the point-to-point path
    INFO("message limit " << limit);
    vseg::dist::detail::set_message_limit_for_testing(limit);
    std::fill(out.begin(), out.end(), -1.0);
    std::vector<double> copied(data.size(), -1.0);
    int runs = 0;
    const auto copy = [&] {
      ++runs;
      std::copy(data.begin(), data.end(), copied.begin());
    };
    reset_traffic();
    fresh.take_agreed(std::span<const double>(data), std::span<double>(out), copy);
    t = counted_traffic();
    vseg::dist::detail::set_message_limit_for_testing(0);
    CHECK(runs == 1);
    CHECK(copied == data);
    CHECK(out == expected);
    CHECK(t.by_function["MPI_Allreduce"].first == 0);
    CHECK(t.by_function["MPI_Alltoallv"].first == 0);
    if (limit == 0) CHECK(t.by_function["MPI_Ialltoallv"].first == 1);
  }
  // Work that throws: the exchange still completes on every rank before the
  // exception leaves (no rank left waiting, the buffers stay valid).
  const auto fail = [] { throw std::runtime_error("work failed"); };
  CHECK_THROWS_AS(fresh.take_agreed(std::span<const double>(data), std::span<double>(out), fail), std::runtime_error);
  fresh.take_agreed(std::span<const double>(data), std::span<double>(out));  // the plan still works
  CHECK(out == expected);
  // A size the caller should have checked: a local logic_error, no message.
  std::vector<double> short_out(out.size() + 1);
  reset_traffic();
  CHECK_THROWS_AS(fresh.take_agreed(std::span<const double>(data), std::span<double>(short_out)), std::logic_error);
  CHECK(counted_traffic().calls == 0);
}
