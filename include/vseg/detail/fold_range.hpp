// The serial fold of one piece of a segment: the per-block body of fold_s,
// sum_s, scan_s's first pass and the fused nested folds (SpMV).
//
// A piece of at least tuning::fold_group_min elements is taken in groups of
// tuning::fold_group, each group folded as a balanced tree and then combined
// into the accumulator: the same number of combines as a plain loop, only
// re-associated, so any monoid (commutative or not) gives its fold. The chain
// through the accumulator is then one combine per group instead of one per
// element, so a long floating-point sum is no longer bound by the add
// latency. Shorter pieces keep the plain loop: their chains are short and
// independent, the core already overlaps them, and the tree is slower there.
// The grouping starts at the piece's first element, and every piece the
// segmented kernels pass depends only on the fixed merge blocks, so results
// stay bitwise identical on every thread count. Why the constants are what
// they are: tuning.hpp.
#pragma once

#include <cstdint>

#include "vseg/tuning.hpp"

namespace vseg::detail {

// acc combined with read(lo), ..., read(hi - 1), left to right up to
// re-association. O(hi - lo). Always inlined: the fused folds call it once
// per row, and a call per row (spilled registers, the reader reloaded) was a
// measurable part of the 7-point stencil's SpMV.
template <class T, class Read, class Monoid>
[[gnu::always_inline]] inline T fold_range_by(const Read& read, std::int64_t lo, std::int64_t hi, T acc,
                                              const Monoid& m) {
  constexpr std::int64_t group = tuning::fold_group;
  static_assert(group == 4 || group == 8, "the grouped loop below folds 4 or 8 elements");
  std::int64_t k = lo;
  if (hi - lo >= tuning::fold_group_min) {
    for (; k + group <= hi; k += group) {
      if constexpr (group == 8) {
        const T left = m(m(read(k), read(k + 1)), m(read(k + 2), read(k + 3)));
        const T right = m(m(read(k + 4), read(k + 5)), m(read(k + 6), read(k + 7)));
        acc = m(acc, m(left, right));
      } else {
        acc = m(acc, m(m(read(k), read(k + 1)), m(read(k + 2), read(k + 3))));
      }
    }
  }
  for (; k < hi; ++k) acc = m(acc, read(k));
  return acc;
}

// acc combined with xs[lo, hi): fold_range_by over an array. O(hi - lo).
template <class T, class Monoid>
T fold_range(const T* xs, std::int64_t lo, std::int64_t hi, T acc, const Monoid& m) {
  return fold_range_by(
      [xs](std::int64_t k) -> const T& { return xs[k]; }, lo, hi, acc, m);
}

}  // namespace vseg::detail
