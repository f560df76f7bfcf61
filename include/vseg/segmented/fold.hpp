// fold_s and sum_s: one reduction per segment. O(elements + segments),
// balanced over both and deterministic (see vseg/detail/merge_path.hpp).
#pragma once

#include <cstdint>
#include <span>

#include "vseg/array.hpp"
#include "vseg/detail/fold_range.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"
#include "vseg/tuning.hpp"

namespace vseg {

namespace detail {

// o[j] = the fold of segment j of `in`, serially, segment after segment.
// O(elements + segments).
template <class T, class Monoid>
void fold_s_serial_into(const segd& s, const T* in, const Monoid& m, T* o) {
  with_layout(s, [&](const auto& lay) {
    for (std::int64_t j = 0; j < s.segments(); ++j)
      o[j] = fold_piece(in, lay.start(j), lay.end(j), s.elements(), m.identity(), m);
  });
}

// fold_s, with `operation` naming the public entry point in the errors.
template <class T, class Monoid>
array<T> fold_s_checked(const char* operation, const segd& s, std::span<const T> in, const Monoid& m) {
  check_covers(operation, s, static_cast<std::int64_t>(in.size()));
  auto out = buffer<T>::for_overwrite(s.segments());
  T* o = out.data();
  if (s.elements() + s.segments() <= tuning::serial_cutoff) {
    fold_s_serial_into(s, in.data(), m, o);
  } else if (s.uniform_length() == 1) {
    // One element per segment: identity . x, element-wise (not x itself:
    // 0.0 + -0.0 is 0.0).
    const T* x = in.data();
    parallel_for(s.segments(), [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t j = lo; j < hi; ++j) o[j] = m(m.identity(), x[j]);
    });
  } else {
    const T* x = in.data();
    const std::int64_t n = s.elements(), segments = s.segments();
    const auto piece = [x, n, &m](std::int64_t, std::int64_t lo, std::int64_t hi, T acc) {
      return fold_piece(x, lo, hi, n, acc, m);
    };
    if (s.uniform_length() >= 0) {
      fold_segments<T>(segments, n, [each = s.uniform_length()](std::int64_t j) { return (j + 1) * each; }, piece,
                       m, o);
    } else {
      // The starts are the exclusive scan of the lengths, so segment j ends
      // where j + 1 starts: 8 bytes of descriptor per segment, not 16.
      const std::int64_t* st = s.starts().data();
      fold_segments<T>(segments, n, [st, segments, n](std::int64_t j) { return j + 1 < segments ? st[j + 1] : n; },
                       piece, m, o);
    }
  }
  return std::move(out).freeze();
}

}  // namespace detail

// Per segment, the fold of its elements with the monoid, serially: the
// small-input path of fold_s (same result). O(elements + segments).
template <class T, monoid_for<T> Monoid>
array<T> fold_s_serial(const segd& s, std::span<const T> data, const Monoid& m) {
  check_covers("fold_s_serial", s, static_cast<std::int64_t>(data.size()));
  auto out = buffer<T>::for_overwrite(s.segments());
  detail::fold_s_serial_into(s, data.data(), m, out.data());
  return std::move(out).freeze();
}

// Per segment, the fold of its elements with the monoid (its identity for an
// empty segment). Throws std::invalid_argument unless s covers data.
// O(elements + segments).
template <contiguous_input R, monoid_for<element_t<R>> Monoid>
array<element_t<R>> fold_s(const segd& s, const R& data, const Monoid& m) {
  return detail::fold_s_checked<element_t<R>>("fold_s", s, detail::as_span(data), m);
}

// Per segment, the sum of its elements (0 for an empty segment).
// O(elements + segments).
template <contiguous_input R>
array<element_t<R>> sum_s(const segd& s, const R& data) {
  return detail::fold_s_checked<element_t<R>>("sum_s", s, detail::as_span(data), plus<element_t<R>>{});
}

}  // namespace vseg
