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

#include <bit>
#include <cstdint>
#include <type_traits>

#include "vseg/monoid.hpp"
#include "vseg/tuning.hpp"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

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

// The element types whose short pieces fold_piece folds without a branch
// on the length: floating point, where combining an element that is then
// discarded cannot overflow into undefined behaviour (an integer sum can).
template <class T>
inline constexpr bool branch_free_fold = std::is_same_v<T, float> || std::is_same_v<T, double>;

// c ? a : b for float or double, as a bit mask instead of a branch (the
// compiler turns the conditional into a jump on doubles).
template <class T>
[[gnu::always_inline]] inline T select_bits(bool c, T a, T b) {
  using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  static_assert(sizeof(T) == sizeof(U));
  const U mask = U{0} - static_cast<U>(c);
  return std::bit_cast<T>(static_cast<U>((std::bit_cast<U>(a) & mask) | (std::bit_cast<U>(b) & ~mask)));
}

// acc combined with xs[lo, hi), hi - lo <= tuning::fold_short_max, with no
// branch on the length: the running folds over all fold_short_max elements
// from lo are formed (one chain of combines) and the one after hi - lo
// elements is selected, so the result is the plain loop's bit for bit.
// xs[lo, lo + fold_short_max) must be readable. O(fold_short_max).
template <class T, class Monoid>
[[gnu::always_inline]] inline T fold_short(const T* xs, std::int64_t lo, std::int64_t hi, T acc, const Monoid& m) {
  const std::int64_t len = hi - lo;
  T running = acc;
  T result = acc;
  for (std::int64_t k = 0; k < tuning::fold_short_max; ++k) {
    running = m(running, xs[lo + k]);
    result = select_bits(len > k, running, result);
  }
  return result;
}

#if defined(__x86_64__)
// acc + xs[lo] + ... + xs[lo + len - 1], left to right, for len <= 4, with
// no branch and no select: the 4 elements from lo are loaded, the ones past
// len masked to +0.0 (a row of a mask table), and all 4 added. Adding +0.0
// changes no value but -0.0 (round to nearest gives -0.0 only for
// (-0.0) + (-0.0)), and a sum that starts from +0.0 is never -0.0, so for
// such an acc this is the plain loop's result bit for bit, in a third of
// fold_short's instructions (its select per element moved each double to
// an integer register and back). xs[lo, lo + 4) must be readable. O(1).
[[gnu::always_inline]] inline double sum_short(double acc, const double* xs, std::int64_t lo, std::int64_t len) {
  alignas(16) static constexpr std::uint64_t keep[5][4] = {
      {0, 0, 0, 0}, {~0ULL, 0, 0, 0}, {~0ULL, ~0ULL, 0, 0}, {~0ULL, ~0ULL, ~0ULL, 0}, {~0ULL, ~0ULL, ~0ULL, ~0ULL}};
  const auto* mask = reinterpret_cast<const __m128i*>(keep[len]);
  const __m128d a = _mm_and_pd(_mm_loadu_pd(xs + lo), _mm_castsi128_pd(_mm_load_si128(mask)));
  const __m128d b = _mm_and_pd(_mm_loadu_pd(xs + lo + 2), _mm_castsi128_pd(_mm_load_si128(mask + 1)));
  __m128d s = _mm_add_sd(_mm_set_sd(acc), a);
  s = _mm_add_sd(s, _mm_unpackhi_pd(a, a));
  s = _mm_add_sd(s, b);
  s = _mm_add_sd(s, _mm_unpackhi_pd(b, b));
  return _mm_cvtsd_f64(s);
}

// +0.0 + xs[lo] + ... + xs[hi - 1] as fold_range associates it (groups of 4
// from tuning::fold_group_min elements), the tail after the groups (0-3
// elements) added by sum_short instead of a loop whose exit is mispredicted
// once per segment when the lengths vary. Bit for bit fold_range's sum from
// +0.0. xs[lo, hi + 4) must be readable. O(hi - lo).
[[gnu::always_inline]] inline double sum_range(const double* xs, std::int64_t lo, std::int64_t hi) {
  static_assert(tuning::fold_group == 4 && tuning::fold_short_max == 4, "sum_range groups and tails by 4");
  double acc = 0.0;
  std::int64_t k = lo;
  if (hi - lo >= tuning::fold_group_min)
    for (; k + 4 <= hi; k += 4) acc = acc + ((xs[k] + xs[k + 1]) + (xs[k + 2] + xs[k + 3]));
  while (hi - k > 4) acc = sum_short(acc, xs, k, 4), k += 4;  // pieces of 5-15: by fours
  return sum_short(acc, xs, k, hi - k);
}
#endif

// acc combined with xs[lo, hi), where xs[0, readable) may be read: fold_range,
// except that a double sum from +0.0 (sum_s) takes sum_range, and other
// float and double folds a piece of at most fold_short_max elements through
// fold_short. With lengths that vary from piece to piece the loop's exit
// was mispredicted once per piece, which held sum_s over segments of 1-4
// elements to about a quarter of the read limit (notes/bench-primitives.md).
// Same result as fold_range bit for bit. O(hi - lo).
template <class T, class Monoid>
[[gnu::always_inline]] inline T fold_piece(const T* xs, std::int64_t lo, std::int64_t hi, std::int64_t readable, T acc,
                                           const Monoid& m) {
  if constexpr (branch_free_fold<T>) {
#if defined(__x86_64__)
    // A double sum from +0.0 (sum_s: acc is the identity), where 4 elements
    // past the piece may be read: sum_range.
    if constexpr (std::is_same_v<T, double> && std::is_same_v<Monoid, plus<double>>) {
      if (std::bit_cast<std::uint64_t>(acc) == 0 && hi + tuning::fold_short_max <= readable)
        return sum_range(xs, lo, hi);
    }
#endif
    if (hi - lo <= tuning::fold_short_max && lo + tuning::fold_short_max <= readable)
      return fold_short(xs, lo, hi, acc, m);
  }
  return fold_range(xs, lo, hi, acc, m);
}

}  // namespace vseg::detail
