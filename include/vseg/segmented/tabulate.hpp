// tabulate_s and tabulate_fold_s: per element of a segment descriptor, a
// function of (segment, position), written out or folded per segment
// without writing it. The segmented form of tabulate (moderngpu's
// transform_lbs): no array of segment ids is built, every piece of a
// segment knows its segment. O(elements + segments), balanced over both.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"

namespace vseg {

namespace detail {

// Whether a store of a T may alias any object: the character types.
template <class T>
inline constexpr bool stores_may_alias = std::is_same_v<T, char> || std::is_same_v<T, signed char> ||
                                         std::is_same_v<T, unsigned char> || std::is_same_v<T, std::byte>;

// The bytes tabulate_s computes before copying them out (see there).
inline constexpr std::int64_t staged_bytes = 256;

}  // namespace detail

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
                                   if constexpr (detail::stores_may_alias<T>) {
                                     // A byte stored through o may alias anything f reads (a
                                     // character type), so the compiler would reload all of f's
                                     // captures after every store: stage the bytes in a local
                                     // buffer, which aliases nothing, and copy them out.
                                     T staged[detail::staged_bytes];
                                     for (std::int64_t i = lo; i < hi; i += detail::staged_bytes) {
                                       const std::int64_t len = std::min(detail::staged_bytes, hi - i);
                                       for (std::int64_t k = 0; k < len; ++k) staged[k] = f(j, i + k);
                                       std::memcpy(o + i, staged, static_cast<std::size_t>(len));
                                     }
                                   } else {
                                     for (std::int64_t i = lo; i < hi; ++i) o[i] = f(j, i);
                                   }
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
