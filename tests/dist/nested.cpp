// Tests of vseg/dist/nested.hpp: physical segments block-distributed,
// replicate and expand as local descriptor work, take_v of virtual segments,
// segmented sums with and without communication.
#include "vseg/dist/nested.hpp"

#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace vseg::dist;
using namespace vseg::dist::testing;

namespace {

// Rank r holds r + 1 physical segments, except rank 1, which holds none;
// segment s of rank r has length (r + s) % 4 and values 10*global_id + j.
std::int64_t segments_on(int r) { return r == 1 ? 0 : r + 1; }

std::int64_t first_segment_of(int r) {
  std::int64_t first = 0;
  for (int q = 0; q < r; ++q) first += segments_on(q);
  return first;
}

std::vector<long> segment_data(std::int64_t global_id, int r, std::int64_t s) {
  std::vector<long> v(static_cast<std::size_t>((r + s) % 4));
  for (std::size_t j = 0; j < v.size(); ++j) v[j] = 10 * global_id + static_cast<long>(j);
  return v;
}

// All physical segments, by global id (the serial reference).
std::vector<std::vector<long>> all_segments() {
  std::vector<std::vector<long>> all;
  for (int r = 0; r < nranks(); ++r)
    for (std::int64_t s = 0; s < segments_on(r); ++s) all.push_back(segment_data(first_segment_of(r) + s, r, s));
  return all;
}

variable<long> local_segments() {
  variable<long> result;
  for (std::int64_t s = 0; s < segments_on(rank()); ++s) {
    auto v = segment_data(first_segment_of(rank()) + s, rank(), s);
    result.counts.push_back(static_cast<std::int64_t>(v.size()));
    result.data.insert(result.data.end(), v.begin(), v.end());
  }
  return result;
}

long sum(const std::vector<long>& v) {
  long total = 0;
  for (long x : v) total += x;
  return total;
}

}  // namespace

TEST_CASE("from_segments: one virtual segment per physical one, block-distributed") {
  auto xs = nested<long>::from_segments(local_segments(), MPI_COMM_WORLD);
  CHECK(xs.physical().local_size() == segments_on(rank()));
  CHECK(xs.physical().local_begin() == first_segment_of(rank()));
  std::vector<std::int64_t> expected(static_cast<std::size_t>(segments_on(rank())));
  std::iota(expected.begin(), expected.end(), first_segment_of(rank()));
  CHECK(std::vector<std::int64_t>(xs.vsegids().begin(), xs.vsegids().end()) == expected);

  // Segmented sum of owned segments: local work only.
  std::vector<long> sums;
  for (std::int64_t s = 0; s < segments_on(rank()); ++s) sums.push_back(sum(segment_data(first_segment_of(rank()) + s, rank(), s)));
  CHECK(xs.sum_local_segments() == sums);
  CHECK(xs.sum_virtual() == sums);
}

TEST_CASE("replicate and expand rewrite vsegids only; take_v and sums follow them") {
  const auto all = all_segments();
  const auto n_physical = static_cast<std::int64_t>(all.size());
  // Each rank's virtual segments name segments held anywhere, with repeats.
  std::vector<std::int64_t> vsegids;
  for (std::int64_t k = 0; k < 5 && n_physical > 0; ++k) vsegids.push_back((rank() * 3 + k * 2) % n_physical);
  nested<long> xs(local_segments(), vsegids, MPI_COMM_WORLD);

  auto twice = xs.replicate(2);
  REQUIRE(twice.local_virtual_size() == 2 * xs.local_virtual_size());
  for (std::size_t k = 0; k < vsegids.size(); ++k) {
    CHECK(twice.vsegids()[2 * k] == vsegids[k]);
    CHECK(twice.vsegids()[2 * k + 1] == vsegids[k]);
  }
  // No element moved: both views share the same physical storage.
  CHECK(twice.pieces().blocks()[0].data() == xs.pieces().blocks()[0].data());

  std::vector<std::int64_t> counts;
  for (std::size_t k = 0; k < vsegids.size(); ++k) counts.push_back(static_cast<std::int64_t>(k % 3));
  auto expanded = xs.expand(counts);
  std::vector<std::int64_t> expected_ids;
  for (std::size_t k = 0; k < vsegids.size(); ++k) expected_ids.insert(expected_ids.end(), k % 3, vsegids[k]);
  CHECK(std::vector<std::int64_t>(expanded.vsegids().begin(), expanded.vsegids().end()) == expected_ids);
  CHECK(expanded.pieces().blocks()[0].data() == xs.pieces().blocks()[0].data());
  CHECK_THROWS_AS(xs.expand(std::vector<std::int64_t>(vsegids.size() + 1, 1)), std::invalid_argument);
  CHECK_THROWS_AS(xs.replicate(-1), std::invalid_argument);

  // Virtual sums: each physical segment summed once, then gathered by vsegids.
  std::vector<long> expected_sums;
  for (auto id : expected_ids) expected_sums.push_back(sum(all[id]));
  CHECK(expanded.sum_virtual() == expected_sums);
  CHECK(expanded.sum_virtual() == expected_sums);  // the cached plan gives the same

  // take_v of global virtual ids over the expanded array: the segments named,
  // in the order asked, from whichever rank holds them.
  auto all_virtual = allgather(expected_ids);
  std::vector<std::int64_t> flat_virtual;
  for (const auto& ids : all_virtual) flat_virtual.insert(flat_virtual.end(), ids.begin(), ids.end());
  std::vector<std::int64_t> wanted;
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(flat_virtual.size()); k += 1 + rank())
    wanted.push_back(static_cast<std::int64_t>(flat_virtual.size()) - 1 - k);
  variable<long> expected;
  for (auto v : wanted) {
    const auto& seg = all[flat_virtual[v]];
    expected.counts.push_back(static_cast<std::int64_t>(seg.size()));
    expected.data.insert(expected.data.end(), seg.begin(), seg.end());
  }
  CHECK(expanded.take_v(wanted) == expected);
  CHECK(expanded.virtual_distribution().global_size() == static_cast<std::int64_t>(flat_virtual.size()));

  // take_physical: straight by physical ids.
  std::vector<std::int64_t> physical_ids;
  for (std::int64_t id = n_physical - 1; id >= 0; id -= 2) physical_ids.push_back(id);
  variable<long> expected_physical;
  for (auto id : physical_ids) {
    expected_physical.counts.push_back(static_cast<std::int64_t>(all[id].size()));
    expected_physical.data.insert(expected_physical.data.end(), all[id].begin(), all[id].end());
  }
  CHECK(xs.take_physical(physical_ids) == expected_physical);
}
