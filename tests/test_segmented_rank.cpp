// Tests of vseg/segmented/rank.hpp: stable ranks per segment, up and down.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "support.hpp"
#include "vseg/segmented/rank.hpp"

namespace {

// The model: stable_sort of positions per segment.
template <class T>
std::vector<std::int64_t> model(const std::vector<std::int64_t>& lengths, const std::vector<T>& keys, bool down) {
  std::vector<std::int64_t> rank(keys.size());
  std::size_t start = 0;
  for (std::int64_t len : lengths) {
    std::vector<std::size_t> pos(static_cast<std::size_t>(len));
    std::iota(pos.begin(), pos.end(), start);
    std::stable_sort(pos.begin(), pos.end(), [&](std::size_t a, std::size_t b) {
      return down ? keys[a] > keys[b] : keys[a] < keys[b];
    });
    for (std::size_t r = 0; r < pos.size(); ++r) rank[pos[r]] = static_cast<std::int64_t>(r);
    start += static_cast<std::size_t>(len);
  }
  return rank;
}

}  // namespace

TEST_CASE("rank_s is the stable rank, on ints and doubles, up and down") {
  for (std::uint64_t seed : {11u, 12u}) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (std::int64_t max_len : {0, 1, 40, 30000}) {
      std::vector<std::int64_t> lengths;
      std::vector<int> ints;
      std::vector<double> doubles;
      for (int j = 0; j < 9; ++j) {
        const std::int64_t len = max_len == 0 ? 0 : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(max_len + 1));
        lengths.push_back(len);
        for (std::int64_t i = 0; i < len; ++i) {
          ints.push_back(static_cast<int>(rng() % 21) - 10);  // many ties
          doubles.push_back(static_cast<double>(static_cast<int>(rng() % 2001) - 1000) / 8.0);
        }
      }
      const auto s = vseg::segd::from_lengths(vseg::array<std::int64_t>(lengths));
      vseg::test::for_each_thread_count([&](int) {
        CHECK(vseg::to_vector(vseg::rank_s(s, vseg::array<int>(ints), vseg::rank_order::up)) == model(lengths, ints, false));
        CHECK(vseg::to_vector(vseg::rank_s(s, vseg::array<int>(ints), vseg::rank_order::down)) == model(lengths, ints, true));
        CHECK(vseg::to_vector(vseg::rank_s(s, vseg::array<double>(doubles), vseg::rank_order::up)) == model(lengths, doubles, false));
        CHECK(vseg::to_vector(vseg::rank_s(s, vseg::array<double>(doubles), vseg::rank_order::down)) == model(lengths, doubles, true));
      });
    }
  }
}

TEST_CASE("rank_s orders negative zero, infinities, and checks sizes") {
  const auto s = vseg::segd::from_lengths(vseg::array<std::int64_t>{4});
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(vseg::to_vector(vseg::rank_s(s, vseg::array<double>{inf, 0.0, -0.0, -inf}, vseg::rank_order::up)) ==
        std::vector<std::int64_t>{3, 2, 1, 0});
  CHECK_THROWS_AS(vseg::rank_s(s, vseg::array<int>{1, 2}, vseg::rank_order::up), std::invalid_argument);
}

TEST_CASE("rank_s over one long segment (the radix path) is the stable rank") {
  std::mt19937_64 rng(13);
  for (std::int64_t len : {257, 5000, 140000}) {
    INFO("length " << len);
    std::vector<int> ints;
    std::vector<double> doubles;
    for (std::int64_t i = 0; i < len; ++i) {
      ints.push_back(static_cast<int>(rng() % 41) - 20 + (i % 97 == 0 ? 2000000000 : 0));  // ties, and big keys
      const double d = static_cast<double>(static_cast<int>(rng() % 2001) - 1000) / 8.0;
      doubles.push_back(i % 50 == 0 ? -0.0 : (d == 0.0 ? 0.125 : d));  // no +0.0: the model ties it with -0.0
    }
    const std::vector<std::int64_t> lengths{len};
    const auto s = vseg::segd::from_lengths(vseg::array<std::int64_t>(lengths));
    // 140,000 keys span three of the radix sort's blocks (tuning::radix_block).
    const auto ints_up = model(lengths, ints, false), ints_down = model(lengths, ints, true);
    const auto doubles_up = model(lengths, doubles, false), doubles_down = model(lengths, doubles, true);
    vseg::test::for_each_thread_count([&](int) {
      CHECK(vseg::to_vector(vseg::rank_s(s, vseg::array<int>(ints), vseg::rank_order::up)) == ints_up);
      CHECK(vseg::to_vector(vseg::rank_s(s, vseg::array<int>(ints), vseg::rank_order::down)) == ints_down);
      CHECK(vseg::to_vector(vseg::rank_s(s, vseg::array<double>(doubles), vseg::rank_order::up)) == doubles_up);
      CHECK(vseg::to_vector(vseg::rank_s(s, vseg::array<double>(doubles), vseg::rank_order::down)) == doubles_down);
    });
  }
}

TEST_CASE("rank_s over one long segment already in order ranks by position") {
  // Ascending keys with ties (up: the positions) and descending ones (down:
  // the positions); the other direction of each is a real sort.
  std::vector<int> ascending;
  for (int i = 0; i < 70000; ++i) ascending.push_back(i / 3 - 1000);
  const std::vector<int> descending(ascending.rbegin(), ascending.rend());
  const std::vector<std::int64_t> lengths{static_cast<std::int64_t>(ascending.size())};
  const auto s = vseg::segd::from_lengths(vseg::array<std::int64_t>(lengths));
  std::vector<std::int64_t> positions(ascending.size());
  std::iota(positions.begin(), positions.end(), std::int64_t{0});
  vseg::test::for_each_thread_count([&](int) {
    CHECK(vseg::to_vector(vseg::rank_s(s, vseg::array<int>(ascending), vseg::rank_order::up)) == positions);
    CHECK(vseg::to_vector(vseg::rank_s(s, vseg::array<int>(descending), vseg::rank_order::down)) == positions);
    CHECK(vseg::to_vector(vseg::rank_s(s, vseg::array<int>(ascending), vseg::rank_order::down)) == model(lengths, ascending, true));
    CHECK(vseg::to_vector(vseg::rank_s(s, vseg::array<int>(descending), vseg::rank_order::up)) == model(lengths, descending, false));
  });
}
