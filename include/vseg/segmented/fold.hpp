// fold_s and sum_s: one reduction per segment. O(elements + segments),
// balanced over both and deterministic (see vseg/detail/merge_path.hpp).
#pragma once

#include <cstdint>

#include "vseg/array.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"

namespace vseg {

namespace detail {

// acc combined with xs[lo, hi), left to right. A range of at least
// fold_tree_min elements is taken in groups of fold_group, each group folded
// as a balanced tree and then combined into acc: the same number of combines
// as a plain loop, only re-associated, so any monoid (commutative or not)
// gives its fold. The chain through acc is then one combine per group instead
// of one per element, so a long floating-point sum is no longer bound by the
// add latency (about 8 GB/s per core here, below the memory rate). Shorter
// ranges keep the plain loop: their chains are short and independent, the
// core already overlaps them, and the tree is slower there. Measured in
// notes/bench-primitives.md. The grouping starts at lo, and every range the
// segmented kernels pass depends only on the fixed merge blocks, so results
// stay bitwise identical on every thread count.
inline constexpr std::int64_t fold_group = 8;
inline constexpr std::int64_t fold_tree_min = 256;

template <class T, class Monoid>
T fold_range(const T* xs, std::int64_t lo, std::int64_t hi, T acc, const Monoid& m) {
  static_assert(fold_group == 8, "the loop body below folds exactly 8 elements");
  std::int64_t k = lo;
  if (hi - lo >= fold_tree_min) {
    for (; k + fold_group <= hi; k += fold_group) {
      const T* g = xs + k;
      const T left = m(m(g[0], g[1]), m(g[2], g[3]));
      const T right = m(m(g[4], g[5]), m(g[6], g[7]));
      acc = m(acc, m(left, right));
    }
  }
  for (; k < hi; ++k) acc = m(acc, xs[k]);
  return acc;
}

}  // namespace detail

// Per segment, the fold of its elements with the monoid, serially.
template <class T, class Monoid>
array<T> fold_s_serial(const segd& s, std::span<const T> data, const Monoid& m) {
  check_covers("fold_s", s, static_cast<std::int64_t>(data.size()));
  auto out = buffer<T>::for_overwrite(s.segments());
  for (std::int64_t j = 0; j < s.segments(); ++j) {
    T acc = m.identity();
    for (std::int64_t k = s.start(j); k < s.end(j); ++k) acc = m(acc, data[k]);
    out[j] = acc;
  }
  return std::move(out).freeze();
}

// Per segment, the fold of its elements with the monoid (its identity for an
// empty segment). Throws std::invalid_argument unless s covers data.
template <contiguous_input R, class Monoid>
array<element_t<R>> fold_s(const segd& s, const R& data, const Monoid& m) {
  using T = element_t<R>;
  auto in = detail::as_span(data);
  check_covers("fold_s", s, detail::ssize(data));
  auto out = buffer<T>::for_overwrite(s.segments());
  T* o = out.data();
  if (s.uniform_length() == 1) {
    // One element per segment: identity . x, element-wise (not x itself:
    // 0.0 + -0.0 is 0.0).
    const T* x = in.data();
    detail::parallel_for(s.segments(), [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t j = lo; j < hi; ++j) o[j] = m(m.identity(), x[j]);
    });
    return std::move(out).freeze();
  }
  detail::with_layout(s, [&](const auto& lay) {
    detail::fold_segments<T>(
        s.segments(), s.elements(), [&](std::int64_t j) { return lay.end(j); },
        [&](std::int64_t, std::int64_t lo, std::int64_t hi, T acc) {
          return detail::fold_range(in.data(), lo, hi, acc, m);
        },
        m, o);
  });
  return std::move(out).freeze();
}

// Per segment, the sum of its elements (0 for an empty segment).
template <contiguous_input R>
array<element_t<R>> sum_s(const segd& s, const R& data) {
  return fold_s(s, data, plus<element_t<R>>{});
}

}  // namespace vseg
