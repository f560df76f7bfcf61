// reduce: combine all elements with a monoid. O(n) work.
//
// The input is cut into fixed blocks (tuning::flat_block); each block is
// reduced serially, left to right, and the block results are combined left to
// right. The blocks do not depend on the thread count, so a floating-point
// sum is bitwise identical on any number of threads.
#pragma once

#include <cstdint>
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

// The sum of the elements. O(n).
template <contiguous_input R>
element_t<R> sum(const R& xs) {
  return reduce(xs, plus<element_t<R>>{});
}

}  // namespace vseg
