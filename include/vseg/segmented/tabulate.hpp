// tabulate_s and tabulate_fold_s: per element of a segment descriptor, a
// function of (segment, position), written out or folded per segment
// without writing it. The segmented form of tabulate (moderngpu's
// transform_lbs): no array of segment ids is built, every piece of a
// segment knows its segment. O(elements + segments), balanced over both.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"

namespace vseg {

// [f(j, i) | i in segment j of s]: f called once per element with its
// segment j and its position i in [0, s.elements()), in parallel.
// O(elements + segments).
template <class F>
  requires std::invocable<F&, std::int64_t, std::int64_t>
auto tabulate_s(const segd& s, F&& f) {
  using T = std::remove_cvref_t<std::invoke_result_t<F&, std::int64_t, std::int64_t>>;
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  detail::for_each_segment_piece(s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
                                 [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                                   for (std::int64_t i = lo; i < hi; ++i) o[i] = f(j, i);
                                 });
  return std::move(out).freeze();
}

// Per segment j of s, the fold with the monoid of f(j, i) over its element
// positions i, left to right within each piece (the identity for an empty
// segment); the values are never stored. The pieces depend only on s, so
// the result does not depend on the thread count. O(elements + segments).
template <class F, class Monoid>
  requires std::invocable<F&, std::int64_t, std::int64_t>
auto tabulate_fold_s(const segd& s, F&& f, const Monoid& m) {
  using T = std::remove_cvref_t<std::invoke_result_t<F&, std::int64_t, std::int64_t>>;
  static_assert(monoid_for<Monoid, T>, "tabulate_fold_s: the monoid must combine f's results");
  auto out = buffer<T>::for_overwrite(s.segments());
  T* o = out.data();
  detail::fold_segments<T>(s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
                           [&](std::int64_t j, std::int64_t lo, std::int64_t hi, T acc) {
                             for (std::int64_t i = lo; i < hi; ++i) acc = m(acc, f(j, i));
                             return acc;
                           },
                           m, o);
  return std::move(out).freeze();
}

}  // namespace vseg
