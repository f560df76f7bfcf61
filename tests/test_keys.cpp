// Tests of vseg/algorithm/keys.hpp and duplicates.hpp: reduce_by_key,
// group_by_key, histogram_by_key, histogram, remove_duplicates, unique and
// unique_s against sequential models (std::map, std::unique), several
// thread counts.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "support.hpp"
#include "vseg/algorithm/duplicates.hpp"
#include "vseg/algorithm/keys.hpp"

namespace {

using vseg::array;
using ints = std::vector<std::int64_t>;

std::vector<std::int64_t> key_sizes() {
  const std::int64_t c = vseg::tuning::serial_cutoff;
  return {0, 1, 2, 300, c - 1, c + 1, 120'001};
}

}  // namespace

TEST_CASE("reduce_by_key, group_by_key, histogram_by_key match a std::map model") {
  for (std::uint64_t seed : {7u, 8u}) {
    INFO("seed " << seed);
    auto rng = vseg::test::seeded(seed);
    for (std::int64_t n : key_sizes()) {
      for (std::int64_t range : {std::int64_t{5}, n + 1}) {  // heavy and light duplication
        INFO("n = " << n << ", keys in [-" << range << ", " << range << "]");
        const auto keys = vseg::test::random_ints(rng, n, -range, range);
        const auto values = vseg::test::random_ints(rng, n, -1000, 1000);
        const auto dvalues = vseg::test::random_doubles(rng, n);
        std::map<std::int64_t, std::vector<std::int64_t>> groups;
        std::map<std::int64_t, double> dsums;
        for (std::size_t i = 0; i < keys.size(); ++i) {
          groups[keys[i]].push_back(values[i]);
          dsums[keys[i]] += dvalues[i];
        }
        ints want_keys, want_sums, want_max, want_counts;
        std::vector<ints> want_groups;
        for (auto& [k, vs] : groups) {
          want_keys.push_back(k);
          std::int64_t sum = 0, mx = std::numeric_limits<std::int64_t>::lowest();
          for (auto v : vs) sum += v, mx = std::max(mx, v);
          want_sums.push_back(sum);
          want_max.push_back(mx);
          want_counts.push_back(static_cast<std::int64_t>(vs.size()));
          want_groups.push_back(vs);
        }
        std::vector<double> first_bits;
        vseg::test::for_each_thread_count([&](int) {
          auto [k1, s1] = vseg::reduce_by_key(keys, values, vseg::plus<std::int64_t>{});
          CHECK(vseg::to_vector(k1) == want_keys);
          CHECK(vseg::to_vector(s1) == want_sums);
          auto [k2, m2] = vseg::reduce_by_key(keys, values, vseg::maximum<std::int64_t>{});
          CHECK(vseg::to_vector(m2) == want_max);
          auto [k3, g3] = vseg::group_by_key(keys, values);
          CHECK(vseg::to_vector(k3) == want_keys);
          CHECK(vseg::to_vectors(g3) == want_groups);
          auto [k4, c4] = vseg::histogram_by_key(keys);
          CHECK(vseg::to_vector(k4) == want_keys);
          CHECK(vseg::to_vector(c4) == want_counts);
          // Doubles, arithmetic keys (hashed): each key folded left to right
          // in input order, exactly the model's bits.
          auto [k5, d5] = vseg::reduce_by_key(keys, dvalues, vseg::plus<double>{});
          std::vector<double> want_d;
          for (auto& [k, sum] : dsums) want_d.push_back(sum);
          CHECK(vseg::test::same_bits(vseg::to_vector(d5), want_d));
          // Keys under a lambda (sorted, folded by fold_s): close to the
          // model, and the same bits on every thread count.
          auto [k6, d6] = vseg::reduce_by_key(keys, dvalues, vseg::plus<double>{},
                                              [](std::int64_t a, std::int64_t b) { return a < b; });
          CHECK(vseg::to_vector(k6) == want_keys);
          const auto got = vseg::to_vector(d6);
          REQUIRE(got.size() == want_d.size());
          bool close = true;
          for (std::size_t j = 0; j < got.size(); ++j) close = close && got[j] == doctest::Approx(want_d[j]).epsilon(1e-9);
          CHECK(close);
          if (first_bits.empty()) first_bits = got;
          CHECK(vseg::test::same_bits(got, first_bits));
        });
      }
    }
  }
}

TEST_CASE("the *_by_key operations: descending keys, custom orders, bad sizes") {
  const array<int> keys{3, 1, 3, 2, 1};
  const array<int> values{10, 20, 30, 40, 50};
  auto [k, s] = vseg::reduce_by_key(keys, values, vseg::plus<int>{}, std::greater<>{});
  CHECK(vseg::to_vector(k) == std::vector<int>{3, 2, 1});
  CHECK(vseg::to_vector(s) == std::vector<int>{40, 40, 70});
  const array<std::string> words{"b", "a", "b", "c"};
  auto [wk, wc] = vseg::histogram_by_key(words);
  CHECK(vseg::to_vector(wk) == std::vector<std::string>{"a", "b", "c"});
  CHECK(vseg::to_vector(wc) == ints{1, 2, 1});
  auto [gk, gv] = vseg::group_by_key(words, values.slice(0, 4));
  CHECK(vseg::to_vectors(gv) == std::vector<std::vector<int>>{{20}, {10, 30}, {40}});
  // -0.0 and +0.0 are two keys (the sort's total order).
  auto [zk, zc] = vseg::histogram_by_key(array<double>{0.0, -0.0, 0.0});
  CHECK(zk.size() == 2);
  CHECK(vseg::to_vector(zc) == ints{1, 2});
  CHECK_THROWS_WITH_AS(vseg::reduce_by_key(keys, values.slice(0, 3), vseg::plus<int>{}),
                       "vseg::reduce_by_key: keys has size 5 but values has size 3", std::invalid_argument);
  CHECK_THROWS_AS(vseg::group_by_key(keys, values.slice(0, 1)), std::invalid_argument);
}

TEST_CASE("reduce_by_key_s matches a std::map model per segment") {
  // The standard mixes (long segments take the parallel sort), and every
  // length around the insertion-sort cutoff.
  auto mixes = vseg::test::standard_mixes(11);
  ints short_lengths;
  for (std::int64_t l = 0; l <= vseg::detail::insertion_cutoff + 3; ++l) short_lengths.push_back(l);
  short_lengths.push_back(200);
  mixes.push_back({"short", short_lengths});
  for (const auto& mix : mixes) {
    INFO("mix " << mix.name);
    auto rng = vseg::test::seeded(12);
    std::int64_t n = 0;
    for (auto l : mix.lengths) n += l;
    const auto keys = vseg::test::random_ints(rng, n, -6, 6);
    const auto values = vseg::test::random_doubles(rng, n);
    // Model: per segment, a std::map from key to the left-to-right sum.
    ints want_lengths, want_keys, want_down_keys;
    std::vector<double> want_sums, want_down_sums;
    std::int64_t at = 0;
    for (auto l : mix.lengths) {
      std::map<std::int64_t, double> sums;
      for (std::int64_t i = at; i < at + l; ++i) sums[keys[static_cast<std::size_t>(i)]] += values[static_cast<std::size_t>(i)];
      want_lengths.push_back(static_cast<std::int64_t>(sums.size()));
      for (auto& [k, v] : sums) want_keys.push_back(k), want_sums.push_back(v);
      for (auto it = sums.rbegin(); it != sums.rend(); ++it) want_down_keys.push_back(it->first), want_down_sums.push_back(it->second);
      at += l;
    }
    const auto s = vseg::segd::from_lengths(array<std::int64_t>(mix.lengths));
    vseg::test::for_each_thread_count([&](int) {
      auto [shape, ks, vs] = vseg::reduce_by_key_s(s, keys, values, vseg::plus<double>{});
      CHECK(vseg::to_vector(shape.lengths()) == want_lengths);
      CHECK(vseg::to_vector(ks) == want_keys);
      CHECK(vseg::test::same_bits(vseg::to_vector(vs), want_sums));
      auto [down, dk, dv] = vseg::reduce_by_key_s(s, keys, values, vseg::plus<double>{}, std::greater<>{});
      CHECK(vseg::to_vector(dk) == want_down_keys);
      CHECK(vseg::test::same_bits(vseg::to_vector(dv), want_down_sums));
      auto [custom, ck, cv] = vseg::reduce_by_key_s(s, keys, values, vseg::plus<double>{},
                                                    [](std::int64_t a, std::int64_t b) { return a < b; });
      CHECK(vseg::to_vector(ck) == want_keys);
      CHECK(vseg::test::same_bits(vseg::to_vector(cv), want_sums));
    });
  }
  const array<std::string> words{"b", "a", "b", "c", "a"};
  auto [wshape, wk, wc] = vseg::reduce_by_key_s(vseg::segd::from_lengths(array<std::int64_t>{3, 0, 2}), words,
                                                array<int>{1, 2, 4, 8, 16});
  CHECK(vseg::to_vector(wshape.lengths()) == ints{2, 0, 2});
  CHECK(vseg::to_vector(wk) == std::vector<std::string>{"a", "b", "a", "c"});
  CHECK(vseg::to_vector(wc) == std::vector<int>{2, 5, 16, 8});
  CHECK_THROWS_WITH_AS(vseg::reduce_by_key_s(vseg::segd::single(2), array<int>{1, 2}, array<int>{1}),
                       "vseg::reduce_by_key_s: keys has size 2 but values has size 1", std::invalid_argument);
  CHECK_THROWS_AS(vseg::reduce_by_key_s(vseg::segd::single(3), array<int>{1, 2}, array<int>{1, 2}),
                  std::invalid_argument);
}

TEST_CASE("histogram counts ids and names the first bad one") {
  auto rng = vseg::test::seeded(9);
  for (std::int64_t n : key_sizes()) {
    for (std::int64_t buckets : {std::int64_t{1}, std::int64_t{7}, 3 * n + 5}) {
      INFO("n = " << n << ", buckets = " << buckets);
      const auto ids = vseg::test::random_ints(rng, n, 0, buckets - 1);
      std::vector<std::int32_t> narrow(ids.begin(), ids.end());
      ints want(static_cast<std::size_t>(buckets), 0);
      for (auto id : ids) ++want[static_cast<std::size_t>(id)];
      vseg::test::for_each_thread_count([&](int) {
        CHECK(vseg::to_vector(vseg::histogram(ids, buckets)) == want);
        CHECK(vseg::to_vector(vseg::histogram(narrow, buckets)) == want);
      });
      if (n > 2) {
        auto bad = ids;
        bad[static_cast<std::size_t>(n - 2)] = buckets;
        bad[static_cast<std::size_t>(n - 1)] = -1;
        const std::string msg = "vseg::histogram: id " + std::to_string(buckets) + " at position " +
                                std::to_string(n - 2) + " outside [0, " + std::to_string(buckets) + ")";
        CHECK_THROWS_WITH_AS(vseg::histogram(bad, buckets), msg.c_str(), std::out_of_range);
      }
    }
  }
  CHECK(vseg::histogram(array<int>{}, 0).size() == 0);
  CHECK_THROWS_WITH_AS(vseg::histogram(array<int>{}, -1), "vseg::histogram: buckets is -1, must be at least 0",
                       std::invalid_argument);
}

TEST_CASE("remove_duplicates keeps first occurrences in input order") {
  auto rng = vseg::test::seeded(10);
  for (std::int64_t n : key_sizes()) {
    for (std::int64_t range : {std::int64_t{3}, n / 10 + 1, 4 * n + 1}) {
      INFO("n = " << n << ", range " << range);
      const auto xs = vseg::test::random_ints(rng, n, -range, range);
      std::vector<double> ds(xs.size());
      for (std::size_t i = 0; i < xs.size(); ++i) ds[i] = static_cast<double>(xs[i]) / 3.0;
      ints want;
      std::set<std::int64_t> seen;
      for (auto x : xs)
        if (seen.insert(x).second) want.push_back(x);
      std::vector<double> want_d;
      for (auto x : want) want_d.push_back(static_cast<double>(x) / 3.0);
      vseg::test::for_each_thread_count([&](int) {
        CHECK(vseg::to_vector(vseg::remove_duplicates(xs)) == want);
        CHECK(vseg::test::same_bits(vseg::to_vector(vseg::remove_duplicates(ds)), want_d));
      });
    }
  }
  // The keys whose sort word is 0 (the empty slot of the word set): the
  // lowest int64 and, for doubles, the negative NaN with every bit set.
  const std::int64_t low = std::numeric_limits<std::int64_t>::min();
  CHECK(vseg::to_vector(vseg::remove_duplicates(std::vector<std::int64_t>{7, low, 0, low, 7, 0, low})) ==
        ints{7, low, 0});
  double nan_ones;
  const std::uint64_t ones = ~std::uint64_t{0};
  std::memcpy(&nan_ones, &ones, sizeof nan_ones);
  CHECK(vseg::test::same_bits(vseg::to_vector(vseg::remove_duplicates(std::vector<double>{nan_ones, 1.0, nan_ones, -0.0, 0.0})),
                              {nan_ones, 1.0, -0.0, 0.0}));
  const array<std::string> words{"b", "a", "b", "c", "a"};
  CHECK(vseg::to_vector(vseg::remove_duplicates(words)) == std::vector<std::string>{"b", "a", "c"});
}

TEST_CASE("unique is std::unique; unique_s works within every segment") {
  auto rng = vseg::test::seeded(11);
  for (std::int64_t n : key_sizes()) {
    INFO("n = " << n);
    const auto xs = vseg::test::random_ints(rng, n, 0, 2);
    auto want = xs;
    want.erase(std::unique(want.begin(), want.end()), want.end());
    const auto near = [](std::int64_t a, std::int64_t b) { return a / 2 == b / 2; };
    auto want_near = xs;
    want_near.erase(std::unique(want_near.begin(), want_near.end(), near), want_near.end());
    vseg::test::for_each_thread_count([&](int) {
      CHECK(vseg::to_vector(vseg::unique(xs)) == want);
      CHECK(vseg::to_vector(vseg::unique(xs, near)) == want_near);
    });
  }
  for (const auto& mix : vseg::test::standard_mixes(12)) {
    INFO("mix " << mix.name);
    std::int64_t n = 0;
    for (auto l : mix.lengths) n += l;
    const auto xs = vseg::test::random_ints(rng, n, 0, 1);
    ints want_data, want_lengths;
    std::int64_t at = 0;
    for (auto l : mix.lengths) {
      ints seg(xs.begin() + at, xs.begin() + at + l);
      seg.erase(std::unique(seg.begin(), seg.end()), seg.end());
      want_lengths.push_back(static_cast<std::int64_t>(seg.size()));
      want_data.insert(want_data.end(), seg.begin(), seg.end());
      at += l;
    }
    const auto s = vseg::segd::from_lengths(array<std::int64_t>(mix.lengths));
    vseg::test::for_each_thread_count([&](int) {
      const auto got = vseg::unique_s(s, xs);
      CHECK(vseg::to_vector(got.data) == want_data);
      CHECK(vseg::to_vector(got.descriptor.lengths()) == want_lengths);
    });
  }
  CHECK_THROWS_AS(vseg::unique_s(vseg::segd::single(2), array<int>{1}), std::invalid_argument);
}
