// Tests of vseg/algorithm/sort.hpp: sort, sort_by_key and sort_s against
// std::stable_sort, on both paths (radix and merge), several thread counts.
#include <doctest/doctest.h>

#include <algorithm>
#include <compare>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support.hpp"
#include "vseg/algorithm/sort.hpp"

namespace {

using vseg::array;

// The sizes: empty, tiny, around the comparison-sort and serial cutoffs, a
// few merge rounds.
std::vector<std::int64_t> sort_sizes() {
  const std::int64_t c = vseg::tuning::serial_cutoff;
  return {0, 1, 2, 31, vseg::tuning::radix_small + 1, c - 1, c + 1, 3 * vseg::tuning::merge_run + 5, 150'001};
}

// IEEE 754 totalOrder, the order the radix path promises for doubles.
bool total_less(double a, double b) { return std::strong_order(a, b) < 0; }

// Doubles with many ties, negatives, signed zeros and infinities.
std::vector<double> tied_doubles(std::mt19937_64& rng, std::int64_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  const double inf = std::numeric_limits<double>::infinity();
  for (auto& x : v) {
    const auto r = static_cast<int>(rng() % 1000);
    x = r == 0 ? -0.0 : r == 1 ? 0.0 : r == 2 ? inf : r == 3 ? -inf : static_cast<double>(r % 300 - 150) / 4.0;
  }
  return v;
}

template <class T, class Less>
std::vector<T> model_sort(std::vector<T> v, Less less) {
  std::stable_sort(v.begin(), v.end(), less);
  return v;
}

}  // namespace

TEST_CASE("sort is std::stable_sort: ints, doubles, both directions, custom orders") {
  for (std::uint64_t seed : {1u, 2u}) {
    INFO("seed " << seed);
    auto rng = vseg::test::seeded(seed);
    for (std::int64_t n : sort_sizes()) {
      INFO("n = " << n);
      const auto ints = vseg::test::random_ints(rng, n, -1000, 1000);
      const auto doubles = tied_doubles(rng, n);
      std::vector<std::uint32_t> words(static_cast<std::size_t>(n));
      for (auto& w : words) w = static_cast<std::uint32_t>(rng());
      std::vector<float> floats(doubles.begin(), doubles.end());
      const array<std::int64_t> xi(ints);
      const array<double> xd(doubles);
      const auto by_mod = [](std::int64_t a, std::int64_t b) { return a % 7 < b % 7; };  // merge path, many ties
      const auto want_i = model_sort(ints, std::less<>{});
      const auto want_i_down = model_sort(ints, std::greater<>{});
      const auto want_mod = model_sort(ints, by_mod);
      const auto want_d = model_sort(doubles, total_less);
      const auto want_d_down = model_sort(doubles, [](double a, double b) { return total_less(b, a); });
      const auto want_w = model_sort(words, std::less<>{});
      auto want_f = model_sort(floats, [](float a, float b) { return std::strong_order(a, b) < 0; });
      vseg::test::for_each_thread_count([&](int) {
        CHECK(vseg::to_vector(vseg::sort(xi)) == want_i);
        CHECK(vseg::to_vector(vseg::sort(xi, std::greater<>{})) == want_i_down);
        CHECK(vseg::to_vector(vseg::sort(xi, by_mod)) == want_mod);
        CHECK(vseg::test::same_bits(vseg::to_vector(vseg::sort(xd)), want_d));
        CHECK(vseg::test::same_bits(vseg::to_vector(vseg::sort(xd, std::greater<double>{})), want_d_down));
        CHECK(vseg::to_vector(vseg::sort(words)) == want_w);
        const auto got_f = vseg::to_vector(vseg::sort(floats));
        CHECK(std::equal(got_f.begin(), got_f.end(), want_f.begin(), want_f.end(),
                         [](float a, float b) { return std::strong_order(a, b) == 0; }));
      });
    }
  }
}

TEST_CASE("sort orders NaNs and signed zeros totally, and sorts strings by merge") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const auto got = vseg::to_vector(vseg::sort(array<double>{nan, 1.0, -nan, 0.0, -0.0, -inf, inf}));
  REQUIRE(got.size() == 7);
  CHECK((std::isnan(got[0]) && std::signbit(got[0])));
  CHECK(vseg::test::same_bits({got[1], got[2], got[3], got[4], got[5]}, {-inf, -0.0, 0.0, 1.0, inf}));
  CHECK((std::isnan(got[6]) && !std::signbit(got[6])));
  const array<std::string> words{"pear", "fig", "apple", "fig", "kiwi"};
  CHECK(vseg::to_vector(vseg::sort(words)) == std::vector<std::string>{"apple", "fig", "fig", "kiwi", "pear"});
  // Stable: equal lengths keep their order.
  const auto by_length = [](const std::string& a, const std::string& b) { return a.size() < b.size(); };
  CHECK(vseg::to_vector(vseg::sort(words, by_length)) ==
        std::vector<std::string>{"fig", "fig", "pear", "kiwi", "apple"});
}

TEST_CASE("sort_by_key carries values stably, on both paths") {
  auto rng = vseg::test::seeded(3);
  for (std::int64_t n : sort_sizes()) {
    INFO("n = " << n);
    const auto keys = vseg::test::random_ints(rng, n, -50, 50);  // many ties
    std::vector<std::int32_t> ikeys(keys.begin(), keys.end());
    std::vector<std::pair<std::int64_t, std::int64_t>> model(static_cast<std::size_t>(n));
    std::vector<std::string> names(static_cast<std::size_t>(n));
    std::vector<std::int64_t> values(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      values[static_cast<std::size_t>(i)] = i;
      names[static_cast<std::size_t>(i)] = std::to_string(i);
      model[static_cast<std::size_t>(i)] = {keys[static_cast<std::size_t>(i)], i};
    }
    auto up = model;
    std::stable_sort(up.begin(), up.end(), [](auto& a, auto& b) { return a.first < b.first; });
    auto down = model;
    std::stable_sort(down.begin(), down.end(), [](auto& a, auto& b) { return a.first > b.first; });
    auto unzip = [](const auto& pairs) {
      std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> r;
      for (auto& [k, v] : pairs) {
        r.first.push_back(k);
        r.second.push_back(v);
      }
      return r;
    };
    const auto want_up = unzip(up);
    const auto want_down = unzip(down);
    vseg::test::for_each_thread_count([&](int) {
      auto [k1, v1] = vseg::sort_by_key(array<std::int64_t>(keys), array<std::int64_t>(values));
      CHECK(vseg::to_vector(k1) == want_up.first);
      CHECK(vseg::to_vector(v1) == want_up.second);
      auto [k2, v2] = vseg::sort_by_key(keys, values, std::greater<>{});
      CHECK(vseg::to_vector(v2) == want_down.second);
      // A value type that is not plain data rides as a position.
      auto [k3, v3] = vseg::sort_by_key(ikeys, names);
      CHECK(vseg::to_vector(v3).size() == static_cast<std::size_t>(n));
      bool same = true;
      for (std::int64_t i = 0; i < n; ++i)
        same = same && v3[i] == std::to_string(want_up.second[static_cast<std::size_t>(i)]);
      CHECK(same);
      // The merge path, keys compared by a lambda.
      auto [k4, v4] = vseg::sort_by_key(keys, values, [](std::int64_t a, std::int64_t b) { return a > b; });
      CHECK(vseg::to_vector(k4) == want_down.first);
      CHECK(vseg::to_vector(v4) == want_down.second);
    });
  }
  CHECK_THROWS_WITH_AS(vseg::sort_by_key(array<int>{1, 2}, array<int>{1}),
                       "vseg::sort_by_key: keys has size 2 but values has size 1", std::invalid_argument);
}

TEST_CASE("sort_s sorts every segment in place, on the standard mixes") {
  for (const auto& mix : vseg::test::standard_mixes(4)) {
    INFO("mix " << mix.name);
    auto rng = vseg::test::seeded(5);
    std::int64_t n = 0;
    for (auto l : mix.lengths) n += l;
    const auto xs = vseg::test::random_ints(rng, n, -30, 30);
    const auto s = vseg::segd::from_lengths(array<std::int64_t>(mix.lengths));
    std::vector<std::int64_t> want = xs, want_down = xs, want_mod = xs;
    const auto by_mod = [](std::int64_t a, std::int64_t b) { return (a + 100) % 5 < (b + 100) % 5; };
    std::int64_t at = 0;
    for (auto l : mix.lengths) {
      std::stable_sort(want.begin() + at, want.begin() + at + l);
      std::stable_sort(want_down.begin() + at, want_down.begin() + at + l, std::greater<>{});
      std::stable_sort(want_mod.begin() + at, want_mod.begin() + at + l, by_mod);
      at += l;
    }
    vseg::test::for_each_thread_count([&](int) {
      CHECK(vseg::to_vector(vseg::sort_s(s, xs)) == want);
      CHECK(vseg::to_vector(vseg::sort_s(s, xs, std::greater<>{})) == want_down);
      CHECK(vseg::to_vector(vseg::sort_s(s, xs, by_mod)) == want_mod);
    });
  }
  CHECK_THROWS_AS(vseg::sort_s(vseg::segd::single(3), array<int>{1, 2}), std::invalid_argument);
}

TEST_CASE("sort_s around the insertion-sort cutoff: every short length, ties kept in order") {
  // Segments of every length up to past detail::insertion_cutoff (sorted by
  // insertion) and a few longer (std::stable_sort), keys with many ties and
  // their input positions carried, so stability is checked.
  std::vector<std::int64_t> lengths;
  for (std::int64_t l = 0; l <= vseg::detail::insertion_cutoff + 3; ++l) lengths.push_back(l);
  lengths.push_back(100);
  lengths.push_back(1);
  auto rng = vseg::test::seeded(17);
  std::int64_t n = 0;
  for (auto l : lengths) n += l;
  const auto keys = vseg::test::random_ints(rng, n, -4, 4);
  std::vector<std::pair<std::int64_t, std::int64_t>> items;
  for (std::int64_t i = 0; i < n; ++i) items.emplace_back(keys[static_cast<std::size_t>(i)], i);
  const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  auto want = items;
  std::int64_t at = 0;
  for (auto l : lengths) {
    std::stable_sort(want.begin() + at, want.begin() + at + l, by_key);
    at += l;
  }
  const auto s = vseg::segd::from_lengths(array<std::int64_t>(lengths));
  const array<std::pair<std::int64_t, std::int64_t>> xs(items);
  vseg::test::for_each_thread_count([&](int) { CHECK(vseg::to_vector(vseg::sort_s(s, xs, by_key)) == want); });
}

TEST_CASE("sort_s on a nested array sorts every virtual segment, replicated ones too") {
  const auto xss = vseg::nested<int>::from({{3, 1, 2}, {}, {5, -1}});
  const auto rep = xss.with_vsegids(array<std::int64_t>{2, 0, 2, 1});
  const auto got = vseg::sort_s(rep);
  CHECK(vseg::to_vectors(got) == std::vector<std::vector<int>>{{-1, 5}, {1, 2, 3}, {-1, 5}, {}});
  CHECK(got.flat());
  CHECK(vseg::to_vectors(vseg::sort_s(xss, std::greater<>{})) == std::vector<std::vector<int>>{{3, 2, 1}, {}, {5, -1}});
}
