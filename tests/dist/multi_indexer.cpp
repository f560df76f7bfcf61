// Tests of vseg/dist/multi_indexer.hpp: several lists per rank, zero lists on
// some ranks, empty lists, results split back per list.
#include "vseg/dist/multi_indexer.hpp"

#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace vseg::dist;
using namespace vseg::dist::testing;

namespace {

// Rank r has r % 3 lists (so rank 0 and rank 3 have none); list l has l*4 + r indices.
std::vector<std::vector<std::int64_t>> lists_for(int r, std::int64_t n) {
  auto rng = rng_for(17, r);
  std::vector<std::vector<std::int64_t>> lists;
  for (int l = 0; l < r % 3; ++l) lists.push_back(random_indices(rng, l * 4 + r, n));
  return lists;
}

}  // namespace

TEST_CASE("multi_indexer take and put split and join the lists") {
  for (std::int64_t n : {0, 6, 31}) {
    for (const auto& d : test_distributions(n)) {
      auto lists = lists_for(rank(), n);
      if (n == 0)
        for (auto& list : lists) list.clear();
      multi_indexer mi(d, lists, MPI_COMM_WORLD);
      REQUIRE(mi.lists() == lists.size());

      std::vector<double> local;
      for (std::int64_t i = d.local_begin(); i < d.local_end(); ++i) local.push_back(0.25 * static_cast<double>(i));
      auto taken = mi.take(local);
      REQUIRE(taken.size() == lists.size());
      for (std::size_t l = 0; l < lists.size(); ++l) {
        std::vector<double> expected;
        for (auto i : lists[l]) expected.push_back(0.25 * static_cast<double>(i));
        CHECK(taken[l] == expected);
      }

      // put with sum: every list's writes land; reference from all ranks' lists.
      std::vector<std::vector<std::int64_t>> parts;
      for (std::size_t l = 0; l < lists.size(); ++l) parts.emplace_back(lists[l].size(), static_cast<std::int64_t>(l + 1));
      std::vector<std::int64_t> expected_sum(static_cast<std::size_t>(d.local_size()), 0);
      for (int r = 0; r < nranks(); ++r) {
        auto other = lists_for(r, n);
        if (n == 0) continue;
        for (std::size_t l = 0; l < other.size(); ++l)
          for (auto i : other[l])
            if (i >= d.local_begin() && i < d.local_end()) expected_sum[i - d.local_begin()] += static_cast<std::int64_t>(l + 1);
      }
      CHECK(mi.put(parts, 1, reduce_op::sum) == expected_sum);
      std::vector<std::int64_t> into(static_cast<std::size_t>(d.local_size()), 0);
      mi.put(parts, into, 1, reduce_op::sum);
      CHECK(into == expected_sum);
    }
  }
}

TEST_CASE("multi_indexer take_v and put_v") {
  const std::int64_t n = 12;
  auto d = distribution::uniform(n, MPI_COMM_WORLD);
  auto lists = lists_for(rank(), n);
  multi_indexer mi(d, lists, MPI_COMM_WORLD);
  // Item i has length i % 3 with values i.
  variable<std::int64_t> local;
  for (std::int64_t i = d.local_begin(); i < d.local_end(); ++i) {
    local.counts.push_back(i % 3);
    local.data.insert(local.data.end(), static_cast<std::size_t>(i % 3), i);
  }
  auto taken = mi.take_v(std::span<const std::int64_t>(local.counts), std::span<const std::int64_t>(local.data));
  REQUIRE(taken.size() == lists.size());
  for (std::size_t l = 0; l < lists.size(); ++l) {
    variable<std::int64_t> expected;
    for (auto i : lists[l]) {
      expected.counts.push_back(i % 3);
      expected.data.insert(expected.data.end(), static_cast<std::size_t>(i % 3), i);
    }
    CHECK(taken[l] == expected);
  }
  // put_v extend of the taken items back onto an empty array: each item gets
  // its own content once per request, in rank order, list order, position order.
  auto back = mi.put_v(taken, put_mode::extend);
  auto counts = mi.indexer().access_counts();
  REQUIRE(back.size() == d.local_size());
  for (std::int64_t i = 0; i < d.local_size(); ++i) CHECK(back.counts[i] == counts[i] * ((d.local_begin() + i) % 3));
  auto kept = mi.put_v(taken, local, put_mode::replace);
  CHECK(kept == local);
}
