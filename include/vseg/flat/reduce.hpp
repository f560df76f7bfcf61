// reduce and tabulate_reduce: combine all elements (or all values of a
// function of the index) with a monoid. O(n) work.
//
// The input is cut into fixed blocks (tuning::flat_block); each block is
// reduced serially, left to right, and the block results are combined left to
// right. The blocks do not depend on the thread count, so a floating-point
// sum is bitwise identical on any number of threads.
#pragma once

#include <concepts>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/monoid.hpp"

namespace vseg {

// m.identity() combined with every element, left to right, serially: the
// per-block body and small-input path of reduce. O(n).
template <class T, class Monoid>
T reduce_serial(std::span<const T> xs, const Monoid& m) {
  T acc = m.identity();
  for (const T& x : xs) acc = m(acc, x);
  return acc;
}

// All elements combined with the monoid (its identity when xs is empty). O(n).
template <contiguous_input R, monoid_for<element_t<R>> Monoid>
element_t<R> reduce(const R& xs, const Monoid& m) {
  using T = element_t<R>;
  auto in = detail::as_span(xs);
  const auto n = static_cast<std::int64_t>(in.size());
  const std::int64_t block = tuning::flat_block;
  // Small input: the serial version (the same result, see tuning.hpp).
  if (n <= tuning::serial_cutoff) return reduce_serial<T>(in, m);
  detail::per_block<T> partial(detail::block_count(n, block), m.identity());
  detail::for_each_block(n, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
    partial[static_cast<std::size_t>(b)] = reduce_serial<T>(in.subspan(lo, hi - lo), m);
  });
  return reduce_serial<T>(std::span<const T>(partial), m);
}

// reduce(tabulate(n, f), m) without writing the tabulated values: f(i)
// for i in [0, n) combined with the monoid over the same fixed blocks, so
// the same result. O(n).
template <class F, class Monoid>
  requires std::invocable<F&, std::int64_t>
auto tabulate_reduce(std::int64_t n, F&& f, const Monoid& m) {
  using T = std::remove_cvref_t<std::invoke_result_t<F&, std::int64_t>>;
  static_assert(monoid_for<Monoid, T>, "tabulate_reduce: the monoid must combine f's results");
  if (n < 0) detail::throw_invalid("tabulate_reduce", "negative size ", n);
  const auto fold_range = [&](std::int64_t lo, std::int64_t hi) {
    T acc = m.identity();
    for (std::int64_t i = lo; i < hi; ++i) acc = m(acc, f(i));
    return acc;
  };
  if (n <= tuning::serial_cutoff) return fold_range(0, n);
  const std::int64_t block = tuning::flat_block;
  detail::per_block<T> partial(detail::block_count(n, block), m.identity());
  detail::for_each_block(n, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
    partial[static_cast<std::size_t>(b)] = fold_range(lo, hi);
  });
  return reduce_serial<T>(std::span<const T>(partial), m);
}

// The sum of the elements. O(n).
template <contiguous_input R>
element_t<R> sum(const R& xs) {
  return reduce(xs, plus<element_t<R>>{});
}

}  // namespace vseg
