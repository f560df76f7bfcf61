// Flat primitives against plain sequential references, on the standard sizes,
// under a sweep of thread counts.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <doctest/doctest.h>

#include "support.hpp"
#include "vseg/flat.hpp"

using vseg::array;
using namespace vseg::test;

namespace {

array<bool> to_flags(const std::vector<bool>& v) { return array<bool>(v); }

}  // namespace

TEST_CASE("tabulate, iota, fill, map, zip_with match the reference") {
  for (std::int64_t n : standard_sizes()) {
    INFO("n = " << n);
    for_each_thread_count([&](int) {
      auto t = vseg::tabulate(n, [](std::int64_t i) { return i * 3 + 1; });
      auto io = vseg::iota(n, std::int64_t{5}, std::int64_t{2});
      auto f = vseg::fill(n, 2.5);
      REQUIRE(t.size() == n);
      REQUIRE(io.size() == n);
      REQUIRE(f.size() == n);
      for (std::int64_t i = 0; i < n; ++i) {
        REQUIRE(t[i] == i * 3 + 1);
        REQUIRE(io[i] == 5 + 2 * i);
        REQUIRE(f[i] == 2.5);
      }
      auto m = vseg::map([](std::int64_t x) { return static_cast<double>(x) / 2; }, t);
      auto z = vseg::zip_with([](std::int64_t a, std::int64_t b) { return a - b; }, t, io);
      for (std::int64_t i = 0; i < n; ++i) {
        REQUIRE(m[i] == static_cast<double>(t[i]) / 2);
        REQUIRE(z[i] == t[i] - io[i]);
      }
    });
  }
  CHECK_THROWS_WITH_AS(vseg::zip_with([](int a, int b) { return a + b; }, array<int>{1, 2},
                                      array<int>{1}),
                       doctest::Contains("zip_with"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::tabulate(-3, [](std::int64_t i) { return i; }),
                       doctest::Contains("-3"), std::invalid_argument);
  // A narrow integer sequence wraps modulo 2^32 (as VCODE's INDEX does).
  auto wrapped = vseg::iota<std::int32_t>(4, 2'147'483'646, 1);
  CHECK(vseg::to_vector(wrapped) == std::vector<std::int32_t>{2'147'483'646, 2'147'483'647, -2'147'483'648, -2'147'483'647});
  CHECK(vseg::iota<std::int32_t>(3, 0, -1'073'741'824)[2] == -2'147'483'648);
  // The type comes from start alone: an int stride does not conflict with it.
  const std::int64_t c = 4;
  auto down = vseg::iota(c, c - 1, -1);
  static_assert(std::is_same_v<decltype(down), array<std::int64_t>>);
  CHECK(vseg::to_vector(down) == std::vector<std::int64_t>{3, 2, 1, 0});
  auto halves = vseg::iota(3, 1.0, 0.5);
  static_assert(std::is_same_v<decltype(halves), array<double>>);
  CHECK(vseg::to_vector(halves) == std::vector<double>{1.0, 1.5, 2.0});
}

TEST_CASE("reduce and scan match the reference for every monoid") {
  std::uint64_t seed = 42;
  for (std::int64_t n : standard_sizes()) {
    INFO("n = " << n << ", seed = " << seed);
    auto rng = seeded(seed++);
    auto v = random_ints(rng, n, -1000, 1000);
    array<std::int64_t> xs(v);
    for_each_thread_count([&](int) {
      CHECK(vseg::sum(xs) == std::accumulate(v.begin(), v.end(), std::int64_t{0}));
      CHECK(vseg::reduce(xs, vseg::maximum<std::int64_t>{}) ==
            (n ? *std::max_element(v.begin(), v.end()) : std::numeric_limits<std::int64_t>::lowest()));
      CHECK(vseg::reduce(xs, vseg::minimum<std::int64_t>{}) ==
            (n ? *std::min_element(v.begin(), v.end()) : std::numeric_limits<std::int64_t>::max()));
      CHECK(vseg::reduce(xs, vseg::bit_xor<std::int64_t>{}) ==
            std::accumulate(v.begin(), v.end(), std::int64_t{0},
                            [](std::int64_t a, std::int64_t b) { return a ^ b; }));
      auto ex = vseg::scan(xs, vseg::plus<std::int64_t>{});
      auto in = vseg::scan_inclusive(xs, vseg::plus<std::int64_t>{});
      auto wt = vseg::scan_with_total(xs, vseg::plus<std::int64_t>{});
      std::vector<std::int64_t> ref_ex(v.size()), ref_in(v.size());
      std::exclusive_scan(v.begin(), v.end(), ref_ex.begin(), std::int64_t{0});
      std::inclusive_scan(v.begin(), v.end(), ref_in.begin());
      CHECK(vseg::to_vector(ex) == ref_ex);
      CHECK(vseg::to_vector(in) == ref_in);
      CHECK(vseg::to_vector(wt.prefixes) == ref_ex);
      CHECK(wt.total == std::accumulate(v.begin(), v.end(), std::int64_t{0}));
    });
  }
}

// Whether reduce and scan accept a monoid of type M over ints.
template <class M>
concept reduces_with = requires(const array<int>& xs, const M& m) {
  vseg::reduce(xs, m);
  vseg::scan(xs, m);
  vseg::scan_inclusive(xs, m);
};

TEST_CASE("reduce and scan take monoids only") {
  static_assert(reduces_with<vseg::plus<int>> && reduces_with<vseg::minimum<int>>);
  static_assert(!reduces_with<std::plus<>>, "reduce(xs, std::plus<>{}) must not compile");
  CHECK(vseg::reduce(array<int>{3, 4}, vseg::multiplies<int>{}) == 12);
}

TEST_CASE("reduce and scan with a non-commutative user monoid keep the order") {
  // 2x2 integer matrix products modulo a prime: associative, not commutative.
  struct mat {
    std::int64_t a, b, c, d;
    bool operator==(const mat&) const = default;
  };
  const std::int64_t p = 1'000'003;
  auto mul = [p](const mat& x, const mat& y) {
    return mat{(x.a * y.a + x.b * y.c) % p, (x.a * y.b + x.b * y.d) % p,
               (x.c * y.a + x.d * y.c) % p, (x.c * y.b + x.d * y.d) % p};
  };
  auto m = vseg::make_monoid(mul, mat{1, 0, 0, 1});
  auto rng = seeded(7);
  const std::int64_t n = 3 * vseg::tuning::flat_block + 11;
  auto r = random_ints(rng, 4 * n, 0, 100);
  auto xs = vseg::tabulate(n, [&](std::int64_t i) {
    return mat{r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]};
  });
  mat ref{1, 0, 0, 1};
  std::vector<mat> ref_scan;
  for (std::int64_t i = 0; i < n; ++i) {
    ref_scan.push_back(ref);
    ref = mul(ref, xs[i]);
  }
  for_each_thread_count([&](int) {
    CHECK(vseg::reduce(xs, m) == ref);
    CHECK(vseg::to_vector(vseg::scan(xs, m)) == ref_scan);
  });
}

TEST_CASE("tabulate_reduce is reduce of tabulate, bit for bit, without the array") {
  // A non-commutative monoid (keeps the first and last index) and a
  // floating-point sum, whose bits show any other grouping.
  auto m = ends_monoid();
  const std::int64_t c = vseg::tuning::serial_cutoff, block = vseg::tuning::flat_block;
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, c, c + 1, 3 * block + 11}) {
    INFO("n = " << n);
    auto f = [](std::int64_t i) { return 1.0 / static_cast<double>(i + 3); };
    const double want = vseg::sum(vseg::tabulate(n, f));
    for_each_thread_count([&](int) {
      CHECK(same_bits({vseg::tabulate_reduce(n, f, vseg::plus<double>{})}, {want}));
      CHECK(vseg::tabulate_reduce(n, [](std::int64_t i) { return ends_pair{i, i}; }, m) ==
            (n == 0 ? ends_pair{-1, -1} : ends_pair{0, n - 1}));
    });
  }
  CHECK_THROWS_WITH_AS(vseg::tabulate_reduce(-1, [](std::int64_t i) { return i; }, vseg::plus<std::int64_t>{}),
                       doctest::Contains("tabulate_reduce: negative size -1"), std::invalid_argument);
}

TEST_CASE("floating-point reduce and scan are bitwise identical on every thread count") {
  auto rng = seeded(2024);
  auto v = random_doubles(rng, 1'000'003);
  array<double> xs(v);
  std::vector<double> sums;
  std::vector<std::vector<double>> scans;
  for_each_thread_count([&](int) {
    sums.push_back(vseg::sum(xs));
    scans.push_back(vseg::to_vector(vseg::scan_inclusive(xs, vseg::plus<double>{})));
  });
  for (std::size_t i = 1; i < sums.size(); ++i) {
    CHECK(same_bits({sums[i]}, {sums[0]}));
    CHECK(same_bits(scans[i], scans[0]));
  }
  // And the sum is right up to rounding.
  double ref = std::accumulate(v.begin(), v.end(), 0.0);
  CHECK(sums[0] == doctest::Approx(ref).epsilon(1e-9));
}

TEST_CASE("pack and pack_index match the reference") {
  std::uint64_t seed = 100;
  for (std::int64_t n : standard_sizes()) {
    for (double p : {0.0, 0.3, 1.0}) {
      INFO("n = " << n << ", p = " << p << ", seed = " << seed);
      auto rng = seeded(seed++);
      auto v = random_ints(rng, n, 0, 1'000'000);
      auto f = random_flags_vector(rng, n, p);
      std::vector<std::int64_t> ref, ref_idx;
      for (std::int64_t i = 0; i < n; ++i)
        if (f[static_cast<std::size_t>(i)]) {
          ref.push_back(v[static_cast<std::size_t>(i)]);
          ref_idx.push_back(i);
        }
      array<std::int64_t> xs(v);
      auto flags = to_flags(f);
      for_each_thread_count([&](int) {
        CHECK(vseg::to_vector(vseg::pack(xs, flags)) == ref);
        CHECK(vseg::to_vector(vseg::pack_index(flags)) == ref_idx);
        CHECK(vseg::count_true(flags) == static_cast<std::int64_t>(ref.size()));
      });
      CHECK(vseg::to_vector(vseg::pack_serial<std::int64_t>(xs, flags)) == ref);
    }
  }
  CHECK_THROWS_WITH_AS(vseg::pack(array<int>{1, 2, 3}, array<bool>{true}),
                       doctest::Contains("pack: xs has size 3 but flags has size 1"),
                       std::invalid_argument);
}

TEST_CASE("count_flags counts every range, at every alignment") {
  auto rng = seeded(17);
  const auto f = random_flags_vector(rng, 70, 0.5);
  std::vector<char> bytes(f.begin(), f.end());  // bools as bytes, 0 or 1
  const bool* p = reinterpret_cast<const bool*>(bytes.data());
  for (std::int64_t lo = 0; lo <= 70; ++lo)
    for (std::int64_t hi = lo; hi <= 70; ++hi) {
      std::int64_t ref = 0;
      for (std::int64_t i = lo; i < hi; ++i) ref += f[static_cast<std::size_t>(i)] ? 1 : 0;
      REQUIRE(vseg::detail::count_flags(p, lo, hi) == ref);
    }
  std::vector<char> all(64, 1);  // eight true flags in every word: the largest byte sum
  CHECK(vseg::detail::count_flags(reinterpret_cast<const bool*>(all.data()), 0, 64) == 64);
}

TEST_CASE("bpermute, permute and permute_default match the reference") {
  std::uint64_t seed = 300;
  for (std::int64_t n : standard_sizes()) {
    INFO("n = " << n << ", seed = " << seed);
    auto rng = seeded(seed++);
    auto v = random_ints(rng, n, -50, 50);
    std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    auto gather_idx = n ? random_ints(rng, 2 * n + 1, 0, n - 1) : std::vector<std::int64_t>{};
    array<std::int64_t> xs(v), p(perm), g(gather_idx);
    std::vector<std::int64_t> ref_gather, ref_scatter(v.size());
    for (auto i : gather_idx) ref_gather.push_back(v[static_cast<std::size_t>(i)]);
    for (std::size_t i = 0; i < v.size(); ++i) ref_scatter[static_cast<std::size_t>(perm[i])] = v[i];
    // inverse_permutation: the position of each target, in the indices' type.
    std::vector<std::int64_t> ref_inverse(v.size());
    std::vector<std::int32_t> ref_inverse32(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      ref_inverse[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
      ref_inverse32[static_cast<std::size_t>(perm[i])] = static_cast<std::int32_t>(i);
    }
    array<std::int32_t> p32(std::vector<std::int32_t>(perm.begin(), perm.end()));
    // permute_default with repeated targets: the later position wins.
    std::vector<std::int64_t> defaults(static_cast<std::size_t>(n), -7);
    auto targets = n ? random_ints(rng, n / 2 + 3, 0, n - 1) : std::vector<std::int64_t>{};
    auto values = random_ints(rng, static_cast<std::int64_t>(targets.size()), 0, 9);
    std::vector<std::int64_t> ref_default = defaults;
    for (std::size_t i = 0; i < targets.size(); ++i)
      ref_default[static_cast<std::size_t>(targets[i])] = values[i];
    for_each_thread_count([&](int) {
      CHECK(vseg::to_vector(vseg::bpermute(xs, g)) == ref_gather);
      CHECK(vseg::to_vector(vseg::bpermute_unchecked(xs, g)) == ref_gather);
      CHECK(vseg::to_vector(vseg::permute(xs, p)) == ref_scatter);
      CHECK(vseg::to_vector(vseg::permute_unchecked(xs, p)) == ref_scatter);
      CHECK(vseg::to_vector(vseg::inverse_permutation(p)) == ref_inverse);
      CHECK(vseg::to_vector(vseg::inverse_permutation(p32)) == ref_inverse32);
      CHECK(vseg::to_vector(vseg::inverse_permutation_unchecked(p)) == ref_inverse);
      CHECK(vseg::to_vector(vseg::permute_default(array<std::int64_t>(values),
                                                  array<std::int64_t>(targets),
                                                  array<std::int64_t>(defaults))) == ref_default);
    });
  }
}

TEST_CASE("permute_default with distinct targets (the lock-free path) and scatters into storage") {
  std::uint64_t seed = 350;
  for (std::int64_t n : standard_sizes()) {
    INFO("n = " << n << ", seed = " << seed);
    auto rng = seeded(seed++);
    // Half the targets of a shuffled [0, n): distinct, some left at the default.
    std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    perm.resize(static_cast<std::size_t>(n / 2));
    auto values = random_ints(rng, static_cast<std::int64_t>(perm.size()), 0, 9);
    std::vector<std::int64_t> ref(static_cast<std::size_t>(n), -7);
    for (std::size_t i = 0; i < perm.size(); ++i) ref[static_cast<std::size_t>(perm[i])] = values[i];
    auto v = random_ints(rng, n, -50, 50);
    std::vector<std::int64_t> doubled(v.size()), summed(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      doubled[i] = 2 * v[i];
      summed[i] = 3 * v[i];
    }
    for_each_thread_count([&](int) {
      CHECK(vseg::to_vector(vseg::permute_default(array<std::int64_t>(values), array<std::int64_t>(perm),
                                                  vseg::fill<std::int64_t>(n, -7))) == ref);
      // map_into and zip_with_into may write over their own input.
      std::vector<std::int64_t> w = v;
      vseg::map_into([](std::int64_t x) { return 2 * x; }, w, std::span<std::int64_t>(w));
      CHECK(w == doubled);
      vseg::zip_with_into([](std::int64_t x, std::int64_t y) { return x + y / 2; }, w, w, std::span<std::int64_t>(w));
      CHECK(w == summed);
    });
  }
  std::vector<std::int64_t> three(3);
  CHECK_THROWS_AS(vseg::map_into([](std::int64_t x) { return x; }, array<std::int64_t>{1, 2}, std::span<std::int64_t>(three)),
                  std::invalid_argument);
}

TEST_CASE("permute names the first bad position on large input, whatever the thread count") {
  const std::int64_t n = 100'000;
  auto idx = vseg::to_vector(vseg::iota(n));
  idx[90'000] = 5;       // repeats position 5's index
  idx[95'000] = n + 1;   // out of range, later
  array<std::int64_t> xs = vseg::iota(n), bad(idx);
  for_each_thread_count([&](int) {
    CHECK_THROWS_WITH_AS(vseg::permute(xs, bad), doctest::Contains("index 5 at position 90000 repeats"),
                         std::out_of_range);
  });
  idx[90'000] = 90'000;
  array<std::int64_t> out_of_range(idx);
  CHECK_THROWS_WITH_AS(vseg::permute(xs, out_of_range), doctest::Contains("index 100001 at position 95000 outside"),
                       std::out_of_range);
}

TEST_CASE("checked permutes: failures at the first or last position, then good calls of other sizes") {
  // The parallel check (detail/scatter.hpp, scatter_marked) must name the
  // first bad position at either end, and a failed call must not disturb
  // the next one, smaller or larger.
  const std::int64_t n = 100'000;
  const auto reversed = [](std::int64_t m) {
    std::vector<std::int64_t> r(static_cast<std::size_t>(m));
    for (std::int64_t i = 0; i < m; ++i) r[static_cast<std::size_t>(i)] = m - 1 - i;
    return r;
  };
  const auto permuted = [&](std::int64_t m) {  // permute(iota(m), reversed(m)) is reversed(m)
    return vseg::to_vector(vseg::permute(vseg::iota(m), array<std::int64_t>(reversed(m))));
  };
  array<std::int64_t> xs = vseg::iota(n);
  for_each_thread_count([&](int) {
    auto idx = reversed(n);
    idx[n - 1] = idx[0];  // the last position repeats the first's index
    CHECK_THROWS_WITH_AS(vseg::permute(xs, array<std::int64_t>(idx)),
                         doctest::Contains("index 99999 at position 99999 repeats"), std::out_of_range);
    CHECK(permuted(n) == reversed(n));
    idx = reversed(n);
    idx[0] = n;  // out of range at the first position
    CHECK_THROWS_WITH_AS(vseg::permute(xs, array<std::int64_t>(idx)),
                         doctest::Contains("index 100000 at position 0 outside [0, 100000)"), std::out_of_range);
    CHECK(permuted(n / 2) == reversed(n / 2));  // smaller
    idx = reversed(n);
    idx[n - 1] = -1;  // out of range at the last position
    CHECK_THROWS_WITH_AS(vseg::inverse_permutation(array<std::int64_t>(idx)),
                         doctest::Contains("index -1 at position 99999 outside"), std::out_of_range);
    idx[n - 1] = 1;  // a repeat at the last position, of the index at n - 2
    CHECK_THROWS_WITH_AS(vseg::inverse_permutation(array<std::int64_t>(idx)),
                         doctest::Contains("index 1 at position 99999 repeats"), std::out_of_range);
    CHECK(permuted(2 * n) == reversed(2 * n));  // larger
    CHECK(vseg::to_vector(vseg::inverse_permutation(array<std::int64_t>(reversed(n)))) == reversed(n));
  });
}

TEST_CASE("permutes reject bad indices with the position and the value") {
  array<int> xs{10, 20, 30};
  CHECK_THROWS_WITH_AS(vseg::bpermute(xs, array<std::int64_t>{0, 3}),
                       doctest::Contains("bpermute: index 3 at position 1 outside [0, 3)"),
                       std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::bpermute(xs, array<std::int64_t>{-1}),
                       doctest::Contains("index -1"), std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::permute(xs, array<std::int64_t>{0, 0, 1}),
                       doctest::Contains("index 0 at position 1 repeats"), std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::permute(xs, array<std::int64_t>{0, 5, 1}),
                       doctest::Contains("index 5 at position 1 outside [0, 3)"),
                       std::out_of_range);
  CHECK_THROWS_AS(vseg::permute(xs, array<std::int64_t>{0, 1}), std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::inverse_permutation(array<int>{1, 2, 1}),
                       doctest::Contains("inverse_permutation: index 1 at position 2 repeats"), std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::inverse_permutation(array<int>{0, -4}),
                       doctest::Contains("inverse_permutation: index -4 at position 1 outside [0, 2)"),
                       std::out_of_range);
  // Large enough for the parallel scatter: the first bad position is named.
  auto shifted = vseg::tabulate(100'000, [](std::int64_t i) { return static_cast<int>(i < 66'666 ? i : i + 1); });
  CHECK_THROWS_WITH_AS(vseg::inverse_permutation(shifted), doctest::Contains("index 100000 at position 99999 outside"),
                       std::out_of_range);
  CHECK(vseg::inverse_permutation(array<int>{}).size() == 0);
  CHECK_THROWS_WITH_AS(vseg::permute_default(array<int>{1}, array<std::int64_t>{9}, xs),
                       doctest::Contains("permute_default: index 9"), std::out_of_range);
  // The first bad position is reported even when many are bad, in parallel.
  auto big = vseg::tabulate(100'000, [](std::int64_t i) { return i < 77'777 ? i : -i; });
  CHECK_THROWS_WITH_AS(vseg::bpermute(vseg::iota(100'000), big),
                       doctest::Contains("at position 77777"), std::out_of_range);
}

TEST_CASE("combine2, append and expand match the reference") {
  std::uint64_t seed = 500;
  for (std::int64_t n : standard_sizes()) {
    INFO("n = " << n << ", seed = " << seed);
    auto rng = seeded(seed++);
    auto f = random_flags_vector(rng, n, 0.4);
    std::int64_t trues = std::count(f.begin(), f.end(), true);
    auto a = random_ints(rng, n - trues, 0, 100);
    auto b = random_ints(rng, trues, 1000, 2000);
    std::vector<std::int64_t> ref_combine;
    std::size_t ia = 0, ib = 0;
    for (bool x : f) ref_combine.push_back(x ? b[ib++] : a[ia++]);
    std::vector<std::int64_t> ref_append = a;
    ref_append.insert(ref_append.end(), b.begin(), b.end());
    auto counts = random_ints(rng, n, 0, 4);
    if (n > 10) counts[5] = 50'000;  // one long run among short ones
    auto vals = random_ints(rng, n, -9, 9);
    std::vector<std::int64_t> ref_expand;
    for (std::size_t i = 0; i < counts.size(); ++i)
      for (std::int64_t k = 0; k < counts[i]; ++k) ref_expand.push_back(vals[i]);
    for_each_thread_count([&](int) {
      CHECK(vseg::to_vector(vseg::combine2(to_flags(f), array<std::int64_t>(a),
                                           array<std::int64_t>(b))) == ref_combine);
      CHECK(vseg::to_vector(vseg::append(array<std::int64_t>(a), array<std::int64_t>(b))) ==
            ref_append);
      CHECK(vseg::to_vector(vseg::expand(array<std::int64_t>(counts), array<std::int64_t>(vals))) ==
            ref_expand);
    });
  }
  CHECK_THROWS_WITH_AS(vseg::combine2(array<bool>{true, false}, array<int>{1, 2}, array<int>{3}),
                       doctest::Contains("combine2: flags select 1 elements of xs and 1 of ys"),
                       std::invalid_argument);
  // Reported by expand, with the count and its position.
  CHECK_THROWS_WITH_AS(vseg::expand(array<std::int64_t>{1, -2}, array<int>{1, 2}),
                       doctest::Contains("vseg::expand: the count at position 1 asks for a segment of negative length -2"), std::invalid_argument);
  std::vector<int> many_counts(50'000, 1);
  many_counts[40'000] = -7;
  CHECK_THROWS_WITH_AS(vseg::expand(many_counts, std::vector<int>(50'000, 3)),
                       doctest::Contains("vseg::expand: the count at position 40000 asks for a segment of negative length -7"), std::invalid_argument);
  CHECK_THROWS_AS(vseg::expand(array<std::int64_t>{1}, array<int>{1, 2}), std::invalid_argument);
}

TEST_CASE("flat primitives accept std::vector and std::span as input") {
  std::vector<int> v{1, 2, 3, 4};
  std::span<const int> s(v);
  CHECK(vseg::sum(v) == 10);
  CHECK(vseg::sum(s) == 10);
  CHECK(vseg::to_vector(vseg::map([](int x) { return x * x; }, v)) == std::vector<int>{1, 4, 9, 16});
}
