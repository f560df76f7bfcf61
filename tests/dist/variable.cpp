// Tests of take_v and put_v: variable-length items (including empty ones),
// replace and extend, with and without initial content, against a serial
// reference computed on every rank from the gathered requests.
#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace vseg::dist;
using namespace vseg::dist::testing;

namespace {

// Owned item i of the initial array: length i % 4, values 100*i + j.
std::vector<int> initial_item(std::int64_t i) {
  std::vector<int> v(static_cast<std::size_t>(i % 4));
  for (std::size_t j = 0; j < v.size(); ++j) v[j] = static_cast<int>(100 * i) + static_cast<int>(j);
  return v;
}

// Rank r's k-th write: length (r + k) % 3, values -(1000*r + 10*k + j).
std::vector<int> written_item(int r, std::size_t k) {
  std::vector<int> v(static_cast<std::size_t>((r + static_cast<int>(k)) % 3));
  for (std::size_t j = 0; j < v.size(); ++j) v[j] = -(1000 * r + 10 * static_cast<int>(k) + static_cast<int>(j));
  return v;
}

variable<int> to_variable(const std::vector<std::vector<int>>& items) {
  variable<int> result;
  for (const auto& item : items) {
    result.counts.push_back(static_cast<std::int64_t>(item.size()));
    result.data.insert(result.data.end(), item.begin(), item.end());
  }
  return result;
}

variable<int> local_initial(const distribution& d) {
  std::vector<std::vector<int>> items;
  for (std::int64_t i = d.local_begin(); i < d.local_end(); ++i) items.push_back(initial_item(i));
  return to_variable(items);
}

}  // namespace

TEST_CASE("take_v brings variable-length items, empty ones included") {
  for (std::int64_t n : {0, 1, 10, 57}) {
    for (const auto& d : test_distributions(n)) {
      auto rng = rng_for(static_cast<std::uint64_t>(n) + 100, rank());
      auto indices = random_indices(rng, rank() == nranks() - 1 ? 0 : 3 * n / 2 + 2, n);
      global_indexer gi(d, indices, MPI_COMM_WORLD);
      auto initial = local_initial(d);
      std::vector<std::vector<int>> expected;
      for (auto i : indices) expected.push_back(initial_item(i));
      CHECK(gi.take_v(initial.counts, initial.data) == to_variable(expected));
    }
  }
}

TEST_CASE("take_v into a reused variable replaces its content, whatever it held") {
  const std::int64_t n = 45;
  for (const auto& d : test_distributions(n)) {
    auto rng = rng_for(300, rank());
    auto indices = random_indices(rng, rank() == 0 ? 0 : 30, n);
    global_indexer gi(d, indices, MPI_COMM_WORLD);
    auto initial = local_initial(d);
    std::vector<std::vector<int>> expected;
    for (auto i : indices) expected.push_back(initial_item(i));
    // Stale content larger than the result, then the result again (same
    // sizes), then items that are all one element longer.
    variable<int> out{{7, 7, 7}, std::vector<int>(500, -1)};
    gi.take_v(initial.counts, initial.data, out);
    CHECK(out == to_variable(expected));
    gi.take_v(initial.counts, initial.data, out);
    CHECK(out == to_variable(expected));
    variable<int> longer;
    std::vector<std::vector<int>> longer_expected;
    for (std::int64_t i = d.local_begin(); i < d.local_end(); ++i) {
      auto item = initial_item(i);
      item.push_back(-static_cast<int>(i));
      longer.counts.push_back(static_cast<std::int64_t>(item.size()));
      longer.data.insert(longer.data.end(), item.begin(), item.end());
    }
    for (auto i : indices) {
      auto item = initial_item(i);
      item.push_back(-static_cast<int>(i));
      longer_expected.push_back(item);
    }
    gi.take_v(longer.counts, longer.data, out);
    CHECK(out == to_variable(longer_expected));
    CHECK(gi.take_v(longer.counts, longer.data) == out);
  }
}

TEST_CASE("put_v replace and extend, with and without initial content") {
  for (std::int64_t n : {0, 1, 8, 40}) {
    for (const auto& d : test_distributions(n)) {
      auto rng = rng_for(static_cast<std::uint64_t>(n) + 200, rank());
      // Few targets: duplicates within and across ranks; rank 0 writes nothing.
      auto indices = random_indices(rng, rank() == 0 ? 0 : 12, std::min<std::int64_t>(n, 6));
      global_indexer gi(d, indices, MPI_COMM_WORLD);
      std::vector<std::vector<int>> writes;
      for (std::size_t k = 0; k < indices.size(); ++k) writes.push_back(written_item(rank(), k));
      auto part = to_variable(writes);
      auto all_indices = allgather(indices);

      // Reference: for each owned item, the writes in rank order, position order.
      std::vector<std::vector<int>> replace_empty, replace_initial, extend_empty, extend_initial;
      for (std::int64_t i = d.local_begin(); i < d.local_end(); ++i) {
        std::vector<int> last_write, appended;
        bool written = false;
        for (int r = 0; r < nranks(); ++r)
          for (std::size_t k = 0; k < all_indices[r].size(); ++k)
            if (all_indices[r][k] == i) {
              written = true;
              last_write = written_item(r, k);
              appended.insert(appended.end(), last_write.begin(), last_write.end());
            }
        replace_empty.push_back(written ? last_write : std::vector<int>{});
        replace_initial.push_back(written ? last_write : initial_item(i));
        extend_empty.push_back(appended);
        auto with = initial_item(i);
        with.insert(with.end(), appended.begin(), appended.end());
        extend_initial.push_back(with);
      }
      INFO("n = " << n << ", offsets[1] = " << d.offsets()[1]);
      auto initial = local_initial(d);
      CHECK(gi.put_v(part.counts, part.data) == to_variable(replace_empty));
      CHECK(gi.put_v(part.counts, part.data, put_mode::extend) == to_variable(extend_empty));
      CHECK(gi.put_v(part.counts, part.data, initial, put_mode::replace) == to_variable(replace_initial));
      CHECK(gi.put_v(part.counts, part.data, initial, put_mode::extend) == to_variable(extend_initial));
    }
  }
}
