// The delayed nested expressions (vseg/nested/expression.hpp) and their fused
// folds: SpMV against a CSR loop, the flat fast path, the shape check, the
// protocol kept out of the public interface, and the monoid constraint.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <doctest/doctest.h>

#include "support.hpp"
#include "vseg/nested.hpp"

using vseg::array;
using vseg::nested;
using namespace vseg::test;

namespace {

// Whether fold_s / scan_s accept this operation as a monoid.
template <class X, class M>
concept can_fold = requires(const X& x, const M& m) { vseg::fold_s(x, m); };
template <class X, class M>
concept can_scan = requires(const X& x, const M& m) { vseg::scan_s(x, m); };

// Whether the expression protocol is reachable from outside.
template <class E>
concept public_cursor = requires(const E& e, vseg::detail::first_bad* bad) { e.cursor(0, bad, 0); };
template <class E>
concept public_flat_cursor = requires(const E& e, vseg::detail::first_bad* bad) { e.flat_cursor(bad); };

using spmv_expr = decltype(vseg::zip_with(std::multiplies<>{}, std::declval<nested<double>>(),
                                          vseg::index_l(std::declval<nested<double>>(),
                                                        std::declval<nested<std::int32_t>>())));

}  // namespace

// fold_s and scan_s take monoids (identity() and operator()), not bare operations.
static_assert(can_fold<nested<int>, vseg::plus<int>>);
static_assert(!can_fold<nested<int>, std::plus<>>);
static_assert(can_scan<nested<int>, vseg::maximum<int>>);
static_assert(!can_scan<nested<int>, std::plus<>>);
static_assert(!can_fold<spmv_expr, std::plus<>>);
// The fusion protocol lives behind detail::expression_access.
static_assert(vseg::flat_expression<nested<int>>);
static_assert(vseg::flat_expression<spmv_expr>);
static_assert(!public_cursor<nested<int>>);
static_assert(!public_flat_cursor<nested<int>>);
static_assert(!public_cursor<spmv_expr>);

TEST_CASE("zip_with: a shape mismatch names the first differing segment and its lengths") {
  const auto xss = nested<int>::from({{1, 2}, {3}, {4, 5, 6}});
  CHECK_THROWS_WITH_AS(vseg::zip_with(std::plus<>{}, xss, nested<int>::from({{1, 2}, {2, 3}, {4}})),
                       doctest::Contains("zip_with: segment 1 has 1 elements in the first nested array and 2 in the second"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::zip_with(std::plus<>{}, xss, nested<int>::from({{1}, {2}})),
                       doctest::Contains("zip_with: the nested arrays have 3 and 2 segments"), std::invalid_argument);
  // Equal shapes built separately are accepted (compared by value).
  CHECK(vseg::to_vectors(vseg::zip_with(std::plus<>{}, xss, nested<int>::from({{1, 1}, {1}, {1, 1, 1}}))) ==
        std::vector<std::vector<int>>{{2, 3}, {4}, {5, 6, 7}});
}

TEST_CASE("SpMV after a map over the values stays on the flat path") {
  auto rng = seeded(41);
  const std::int64_t n = 4000;
  const auto lens = random_ints(rng, n, 0, 40);
  const std::int64_t nnz = std::accumulate(lens.begin(), lens.end(), std::int64_t{0});
  const auto cols64 = random_ints(rng, nnz, 0, n - 1);
  const std::vector<std::int32_t> cols_v(cols64.begin(), cols64.end());
  const auto vals_v = random_doubles(rng, nnz);
  const auto x_v = random_doubles(rng, n);
  const array<std::int64_t> lengths(lens);
  const auto cols = nested<std::int32_t>::from_lengths(lengths, array<std::int32_t>(cols_v));
  const auto vals = nested<double>::from_lengths(lengths, array<double>(vals_v));
  const array<double> x(x_v);
  const auto scaled = vseg::map([](double v) { return 2.0 * v - 1.0; }, vals);
  REQUIRE(scaled.flat());
  REQUIRE(scaled.identity_vsegids());
  // The shape is shared, not recomputed: zip_with's check is a pointer comparison.
  CHECK(scaled.shape().lengths().data() == cols.shape().lengths().data());
  const auto expr = vseg::zip_with(std::multiplies<>{}, scaled, vseg::index_l(vseg::replicate(n, x), cols));
  CHECK(expr.flat());
  for_each_thread_count([&](int) {
    const auto y = vseg::sum_s(expr);
    REQUIRE(y.size() == n);
    std::int64_t k = 0;
    for (std::int64_t r = 0; r < n; ++r) {
      double acc = 0;
      for (std::int64_t q = 0; q < lens[static_cast<std::size_t>(r)]; ++q, ++k) {
        const auto kk = static_cast<std::size_t>(k);
        acc += (2.0 * vals_v[kk] - 1.0) * x_v[static_cast<std::size_t>(cols_v[kk])];
      }
      REQUIRE(y[r] == doctest::Approx(acc).epsilon(1e-12));
    }
  });
  // A non-flat operand (shared rows) takes the generic path and agrees too.
  const auto twice = vseg::expand(vseg::fill<std::int64_t>(n, 2), scaled);
  const auto twice_cols = vseg::expand(vseg::fill<std::int64_t>(n, 2), cols);
  const auto expr2 = vseg::zip_with(std::multiplies<>{}, twice, vseg::index_l(vseg::replicate(2 * n, x), twice_cols));
  CHECK_FALSE(expr2.flat());
  const auto y = vseg::sum_s(expr);
  const auto y2 = vseg::sum_s(expr2);
  for (std::int64_t r = 0; r < n; ++r) {
    REQUIRE(y2[2 * r] == doctest::Approx(y[r]).epsilon(1e-12));
    REQUIRE(y2[2 * r + 1] == doctest::Approx(y[r]).epsilon(1e-12));
  }
}

TEST_CASE("SpMV in nested form, fused, matches a CSR loop") {
  // rows of a random sparse matrix
  auto rng = seeded(5);
  const std::int64_t n = 3000;
  auto lens = random_ints(rng, n, 0, 12);
  std::int64_t nnz = std::accumulate(lens.begin(), lens.end(), std::int64_t{0});
  auto cols_v = random_ints(rng, nnz, 0, n - 1);
  auto vals_v = random_doubles(rng, nnz);
  auto x_v = random_doubles(rng, n);
  array<std::int64_t> lengths(lens);
  auto cols = nested<std::int64_t>::from_lengths(lengths, array<std::int64_t>(cols_v));
  auto vals = nested<double>::from_lengths(lengths, array<double>(vals_v));
  array<double> x(x_v);
  for_each_thread_count([&](int) {
    auto y = vseg::sum_s(vseg::zip_with(std::multiplies<>{}, vals, vseg::index_l(vseg::replicate(n, x), cols)));
    REQUIRE(y.size() == n);
    std::int64_t k = 0;
    for (std::int64_t r = 0; r < n; ++r) {
      double acc = 0;
      for (std::int64_t q = 0; q < lens[static_cast<std::size_t>(r)]; ++q, ++k)
        acc += vals_v[static_cast<std::size_t>(k)] * x_v[static_cast<std::size_t>(cols_v[static_cast<std::size_t>(k)])];
      REQUIRE(y[r] == doctest::Approx(acc).epsilon(1e-12));
    }
  });
}

TEST_CASE("SpMV over the flat fused fold: int32 columns, short and grouped rows, rows across blocks") {
  // Row lengths on both sides of the four-at-a-time grouping threshold, empty
  // rows, and rows longer than a merge-path block (split over blocks).
  for (std::uint64_t seed : {11u, 12u}) {
    INFO("seed = " << seed);
    auto rng = seeded(seed);
    const std::int64_t n = 5000;
    auto lens = random_ints(rng, n, 0, 2 * vseg::detail::flat_fold_group_min + 3);
    lens[100] = 3 * vseg::tuning::segmented_block + 5;
    lens[n - 1] = vseg::tuning::segmented_block + 1;
    const std::int64_t nnz = std::accumulate(lens.begin(), lens.end(), std::int64_t{0});
    const auto cols64 = random_ints(rng, nnz, 0, n - 1);
    const std::vector<std::int32_t> cols_v(cols64.begin(), cols64.end());
    const auto vals_v = random_doubles(rng, nnz);
    const auto x_v = random_doubles(rng, n);
    const array<std::int64_t> lengths(lens);
    const auto cols = nested<std::int32_t>::from_lengths(lengths, array<std::int32_t>(cols_v));
    const auto vals = nested<double>::from_lengths(lengths, array<double>(vals_v));
    const array<double> x(x_v);
    const auto expr = vseg::zip_with(std::multiplies<>{}, vals, vseg::index_l(vseg::replicate(n, x), cols));
    REQUIRE(expr.flat());
    std::vector<double> first;
    for_each_thread_count([&](int) {
      const auto y = vseg::to_vector(vseg::sum_s(expr));
      REQUIRE(static_cast<std::int64_t>(y.size()) == n);
      std::int64_t k = 0;
      for (std::int64_t r = 0; r < n; ++r) {
        double acc = 0;
        for (std::int64_t q = 0; q < lens[static_cast<std::size_t>(r)]; ++q, ++k)
          acc += vals_v[static_cast<std::size_t>(k)] * x_v[static_cast<std::size_t>(cols_v[static_cast<std::size_t>(k)])];
        REQUIRE(y[static_cast<std::size_t>(r)] == doctest::Approx(acc).epsilon(1e-12));
      }
      // the same bits on every thread count
      if (first.empty()) first = y;
      CHECK(same_bits(y, first));
    });
  }
}

TEST_CASE("SpMV over the flat fused fold: a bad column names index_l, its value, position and row") {
  // Rows of 7 (the 7-point stencil's shape), enough of them for many blocks.
  const std::int64_t n = 20'000, per_row = 7;
  std::vector<std::int32_t> cols_v(static_cast<std::size_t>(n * per_row));
  for (std::size_t k = 0; k < cols_v.size(); ++k) cols_v[k] = static_cast<std::int32_t>(k % static_cast<std::size_t>(n));
  const array<std::int64_t> lengths = vseg::fill<std::int64_t>(n, per_row);
  const auto vals = nested<double>::from_lengths(lengths, vseg::fill<double>(n * per_row, 1.0));
  const array<double> x = vseg::fill<double>(n, 2.0);
  const auto spmv = [&](const std::vector<std::int32_t>& c) {
    const auto cols = nested<std::int32_t>::from_lengths(lengths, array<std::int32_t>(c));
    return vseg::sum_s(vseg::zip_with(std::multiplies<>{}, vals, vseg::index_l(vseg::replicate(n, x), cols)));
  };
  CHECK(vseg::to_vector(spmv(cols_v)) == std::vector<double>(static_cast<std::size_t>(n), 14.0));
  for_each_thread_count([&](int) {
    // Two bad columns: the first one (row 12'345, position 3) is reported.
    auto bad = cols_v;
    bad[12'345 * per_row + 3] = -3;
    bad[19'000 * per_row + 1] = static_cast<std::int32_t>(n);
    CHECK_THROWS_WITH_AS(spmv(bad),
                         doctest::Contains("index_l: index -3 at position 3 of segment 12345 outside "
                                           "that segment's length 20000"),
                         std::out_of_range);
    bad[12'345 * per_row + 3] = 0;
    CHECK_THROWS_WITH_AS(spmv(bad),
                         doctest::Contains("index_l: index 20000 at position 1 of segment 19000"),
                         std::out_of_range);
  });
}
