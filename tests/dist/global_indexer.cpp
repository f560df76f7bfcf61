// Tests of vseg/dist/global_indexer.hpp: take and put (every reduce_op,
// count > 1, preallocated and allocating outputs, generic items, structs)
// against a serial reference computed on every rank from gathered requests.
#include "vseg/dist/global_indexer.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "helpers.hpp"

using namespace vseg::dist;
using namespace vseg::dist::testing;

namespace {

// The value initially held at global item i, component c.
std::int64_t initial_value(std::int64_t i, int c) { return 1000 * i + c; }

// The value rank r writes at its k-th request, component c; 1 or 2 for
// products, so that no product of many writes overflows.
std::int64_t written_value(reduce_op op, int r, std::int64_t k, int c) {
  std::int64_t v = 1 + ((r * 7919 + k * 104729 + c * 13) % 97);
  return op == reduce_op::prod ? 1 + v % 2 : v;
}

// Local part of the initial array.
std::vector<std::int64_t> local_initial(const distribution& d, int count) {
  std::vector<std::int64_t> data;
  for (std::int64_t i = d.local_begin(); i < d.local_end(); ++i)
    for (int c = 0; c < count; ++c) data.push_back(initial_value(i, c));
  return data;
}

// How many indices each rank requests: rank 1 requests nothing.
std::int64_t request_count(int r, std::int64_t n_global) { return r == 1 ? 0 : (r + 1) * 5 + n_global / 3; }

const std::vector<reduce_op> all_ops = {reduce_op::none, reduce_op::sum,  reduce_op::prod,
                                        reduce_op::min,  reduce_op::max,  reduce_op::land,
                                        reduce_op::lor,  reduce_op::band, reduce_op::bor};

struct point {
  double x;
  int tag;
  char label[3];
  friend bool operator==(const point& a, const point& b) {
    return a.x == b.x && a.tag == b.tag && std::equal(a.label, a.label + 3, b.label);
  }
};

}  // namespace

TEST_CASE("take returns the items at the indices, for every distribution and count") {
  for (std::int64_t n : {0, 1, 7, 100}) {
    for (const auto& d : test_distributions(n)) {
      auto rng = rng_for(static_cast<std::uint64_t>(n), rank());
      auto indices = random_indices(rng, request_count(rank(), n), n);
      global_indexer gi(d, indices, MPI_COMM_WORLD);
      CHECK(gi.size() == static_cast<std::int64_t>(indices.size()));
      for (int count : {1, 3}) {
        INFO("n = " << n << ", count = " << count << ", offsets[1] = " << d.offsets()[1]);
        auto data = local_initial(d, count);
        std::vector<std::int64_t> expected;
        for (auto i : indices)
          for (int c = 0; c < count; ++c) expected.push_back(initial_value(i, c));
        CHECK(gi.take(data, count) == expected);
        std::vector<std::int64_t> preallocated(expected.size(), -1);
        gi.take(data, preallocated, count);
        CHECK(preallocated == expected);
      }
    }
  }
}

TEST_CASE("access_counts counts the requests for every owned item") {
  const std::int64_t n = 50;
  for (const auto& d : test_distributions(n)) {
    auto rng = rng_for(7, rank());
    auto indices = random_indices(rng, request_count(rank(), n), n);
    global_indexer gi(d, indices, MPI_COMM_WORLD);
    std::vector<std::int64_t> expected(static_cast<std::size_t>(d.local_size()), 0);
    for (const auto& list : allgather(indices))
      for (auto i : list)
        if (i >= d.local_begin() && i < d.local_end()) ++expected[i - d.local_begin()];
    CHECK(gi.access_counts() == expected);
  }
}

TEST_CASE("put resolves conflicts by rank, then position, and combines with every reduce_op") {
  for (std::int64_t n : {0, 1, 9, 60}) {
    for (const auto& d : test_distributions(n)) {
      auto rng = rng_for(static_cast<std::uint64_t>(n) + 11, rank());
      // Few distinct targets, so there are duplicates within and across ranks.
      auto indices = random_indices(rng, request_count(rank(), n), std::min<std::int64_t>(n, 5));
      global_indexer gi(d, indices, MPI_COMM_WORLD);
      auto all_indices = allgather(indices);
      for (int count : {1, 2}) {
        for (reduce_op op : all_ops) {
          INFO("n = " << n << ", count = " << count << ", op = " << name(op));
          std::vector<std::int64_t> part;
          for (std::size_t k = 0; k < indices.size(); ++k)
            for (int c = 0; c < count; ++c) part.push_back(written_value(op, rank(), static_cast<std::int64_t>(k), c));
          // Reference: the initial array, then every write in rank order, position order.
          std::vector<std::int64_t> with_initial, allocating;
          for (std::int64_t i = d.local_begin(); i < d.local_end(); ++i)
            for (int c = 0; c < count; ++c) {
              std::int64_t a = initial_value(i, c), b = identity<std::int64_t>(op);
              for (int r = 0; r < nranks(); ++r)
                for (std::size_t k = 0; k < all_indices[r].size(); ++k)
                  if (all_indices[r][k] == i) {
                    combine(op, a, written_value(op, r, static_cast<std::int64_t>(k), c));
                    combine(op, b, written_value(op, r, static_cast<std::int64_t>(k), c));
                  }
              with_initial.push_back(a);
              allocating.push_back(b);
            }
          auto data = local_initial(d, count);
          gi.put(part, data, count, op);
          CHECK(data == with_initial);
          CHECK(gi.put(part, count, op) == allocating);
        }
      }
    }
  }
}

TEST_CASE("put and take of doubles: min, max and sum in a fixed order") {
  const std::int64_t n = 13;
  auto d = distribution::uniform(n, MPI_COMM_WORLD);
  auto rng = rng_for(5, rank());
  auto indices = random_indices(rng, 40, n);
  global_indexer gi(d, indices, MPI_COMM_WORLD);
  auto all_indices = allgather(indices);
  std::vector<double> part;
  for (std::size_t k = 0; k < indices.size(); ++k) part.push_back(0.1 * static_cast<double>(k) - rank());
  auto all_parts = allgather(part);
  for (reduce_op op : {reduce_op::none, reduce_op::sum, reduce_op::min, reduce_op::max}) {
    std::vector<double> expected;
    for (std::int64_t i = d.local_begin(); i < d.local_end(); ++i) {
      double a = identity<double>(op);
      for (int r = 0; r < nranks(); ++r)
        for (std::size_t k = 0; k < all_indices[r].size(); ++k)
          if (all_indices[r][k] == i) combine(op, a, all_parts[r][k]);
      expected.push_back(a);
    }
    CHECK(gi.put(part, 1, op) == expected);  // bitwise: the order of combination is fixed
  }
}

TEST_CASE("generic items: strings and vectors travel by serialisation") {
  const std::int64_t n = 11;
  auto d = distribution::uniform(n, MPI_COMM_WORLD);
  auto rng = rng_for(3, rank());
  auto indices = random_indices(rng, rank() == 0 ? 0 : 17, n);
  global_indexer gi(d, indices, MPI_COMM_WORLD);

  auto text = [](std::int64_t i) { return std::string(static_cast<std::size_t>(i % 4), char('a' + i % 26)); };
  auto numbers = [](std::int64_t i) {
    std::vector<int> v(static_cast<std::size_t>(i % 3));
    for (std::size_t j = 0; j < v.size(); ++j) v[j] = static_cast<int>(i * 10 + j);
    return v;
  };
  std::vector<std::string> strings;
  std::vector<std::vector<int>> vectors;
  for (std::int64_t i = d.local_begin(); i < d.local_end(); ++i) {
    strings.push_back(text(i));
    vectors.push_back(numbers(i));
  }
  std::vector<std::string> expected_strings;
  std::vector<std::vector<int>> expected_vectors;
  for (auto i : indices) {
    expected_strings.push_back(text(i));
    expected_vectors.push_back(numbers(i));
  }
  CHECK(gi.take(strings) == expected_strings);
  CHECK(gi.take(vectors) == expected_vectors);

  // put: the last writer (highest rank, then later position) wins; sum concatenates strings.
  std::vector<std::string> part;
  for (std::size_t k = 0; k < indices.size(); ++k) part.push_back(std::to_string(rank()) + ":" + std::to_string(k));
  auto all_indices = allgather(indices);
  std::vector<std::string> expected_last, expected_concat;
  for (std::int64_t i = d.local_begin(); i < d.local_end(); ++i) {
    std::string last = text(i), concat = text(i);
    for (int r = 0; r < nranks(); ++r)
      for (std::size_t k = 0; k < all_indices[r].size(); ++k)
        if (all_indices[r][k] == i) {
          last = std::to_string(r) + ":" + std::to_string(k);
          concat += last;
        }
    expected_last.push_back(last);
    expected_concat.push_back(concat);
  }
  auto replaced = strings;
  gi.put(part, replaced);
  CHECK(replaced == expected_last);
  auto summed = strings;
  gi.put(part, summed, 1, reduce_op::sum);
  CHECK(summed == expected_concat);
}

TEST_CASE("structs travel with a committed derived datatype") {
  const std::int64_t n = 10;
  auto d = distribution::uniform(n, MPI_COMM_WORLD);
  auto make = [](std::int64_t i) { return point{0.5 * static_cast<double>(i), static_cast<int>(-i), {'p', char('0' + i % 10), 0}}; };
  std::vector<point> local;
  for (std::int64_t i = d.local_begin(); i < d.local_end(); ++i) local.push_back(make(i));
  std::vector<std::int64_t> indices = {n - 1, 0, n / 2, n - 1};
  global_indexer gi(d, indices, MPI_COMM_WORLD);
  std::vector<point> expected;
  for (auto i : indices) expected.push_back(make(i));
  CHECK(gi.take(local) == expected);
  CHECK(datatype<point>() != MPI_BYTE);
  CHECK(datatype<point>() == datatype<point>());
}

TEST_CASE("the large-count path (point-to-point, chunked) gives the same results") {
  const std::int64_t n = 40;
  for (std::int64_t limit : {1, 3, 64}) {
    INFO("message limit " << limit);
    vseg::dist::detail::set_message_limit_for_testing(limit);
    auto d = distribution::uniform(n, MPI_COMM_WORLD);
    auto rng = rng_for(9, rank());
    auto indices = random_indices(rng, 30, n);
    global_indexer gi(d, indices, MPI_COMM_WORLD);
    auto data = local_initial(d, 2);
    std::vector<std::int64_t> expected;
    for (auto i : indices)
      for (int c = 0; c < 2; ++c) expected.push_back(initial_value(i, c));
    CHECK(gi.take(data, 2) == expected);
    std::vector<std::int64_t> counts(static_cast<std::size_t>(d.local_size()), 2);
    auto v = gi.take_v(counts, data);
    CHECK(v.data == expected);
    auto extended = gi.put_v(v.counts, v.data, vseg::dist::put_mode::extend);
    vseg::dist::detail::set_message_limit_for_testing(0);
    CHECK(extended == gi.put_v(v.counts, v.data, vseg::dist::put_mode::extend));
  }
}
