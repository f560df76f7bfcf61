// Operations that move elements between the nested and the flat world:
// concat (the only one that materialises replication), unconcat, append_l,
// and the conversions between nested and segmented_array (to_nested,
// to_segmented).
#pragma once

#include <concepts>
#include <cstdint>
#include <utility>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/flat.hpp"
#include "vseg/nested/expression.hpp"
#include "vseg/nested/nested.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/segmented_array.hpp"

namespace vseg {

// All virtual elements, in order: the only operation that materialises
// replication. Throws std::overflow_error when there are more than 2^63-1.
// O(1) when xss is flat (laid out as its shape: block 0 is the answer, shared,
// as for a materialised expression), otherwise O(virtual elements + virtual
// segments).
template <class T>
array<T> concat(const nested<T>& xss) {
  virtual_elements(xss);  // throws before any allocation when too large
  const segd s = xss.shape();
  if (xss.flat()) return xss.blocks().front().slice(0, s.elements());
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  detail::for_each_segment_piece(s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
                                 [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                                   const T* src = xss[j].data();
                                   const std::int64_t start = s.start(j);
                                   for (std::int64_t k = lo; k < hi; ++k) o[k] = src[k - start];
                                 });
  return std::move(out).freeze();
}

// The delayed expression's elements, in order: materialised once, then
// shared (the materialised array is flat). O(elements + segments).
template <nested_expression E>
  requires(!std::same_as<E, nested<typename E::value_type>>)
array<typename E::value_type> concat(const E& e) {
  return concat(detail::materialize(e));
}

// The segments of a segmented_array as a nested array, sharing its data (no
// element copied). O(1).
template <class T>
nested<T> to_nested(const segmented_array<T>& xs) {
  return nested<T>::from_segmented(xs);
}

// The virtual segments as contiguous data plus their segd, for the _s
// operations: shares block 0 when xss is flat (built from lengths, a segd or
// a segmented_array, or map/scan_s of one), otherwise concat copies every
// virtual element. O(1) when flat, O(virtual elements + segments) otherwise.
template <class T>
segmented_array<T> to_segmented(const nested<T>& xss) {
  const segd s = xss.shape();
  if (xss.flat()) return {s, xss.blocks().front().slice(0, s.elements())};
  return {s, concat(xss)};
}

// flat cut into the segments of shape: [[flat[..]] | same lengths as shape].
// O(1) when shape is flat, O(segments) otherwise. Throws
// std::invalid_argument unless shape has flat.size() virtual elements.
template <class U, class T>
nested<T> unconcat(const nested<U>& shape, const array<T>& flat) {
  const segd s = shape.shape();
  if (s.elements() != flat.size())
    detail::throw_invalid("unconcat", "the shape holds ", s.elements(),
                          " elements but the flat array has ", flat.size());
  return nested<T>::from_segd(s, flat);
}

// [xss[k] ++ yss[k] | k]: segment-wise append (copies the elements).
// O(result elements + segments). Throws std::invalid_argument unless both
// have as many segments.
template <class T>
nested<T> append_l(const nested<T>& xss, const nested<T>& yss) {
  if (xss.size() != yss.size())
    detail::throw_invalid("append_l", "the nested arrays have ", xss.size(), " and ", yss.size(),
                          " segments");
  const array<std::int64_t> la = xss.lengths(), lb = yss.lengths();
  const segd s = segd::from_lengths(zip_with([](std::int64_t a, std::int64_t b) { return a + b; }, la, lb));
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  detail::for_each_segment_piece(s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
                                 [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                                   const std::int64_t start = s.start(j);
                                   const std::int64_t split = start + la[j];
                                   const T* a = xss[j].data();
                                   const T* b = yss[j].data();
                                   for (std::int64_t k = lo; k < hi; ++k)
                                     o[k] = k < split ? a[k - start] : b[k - split];
                                 });
  return nested<T>::from_segd(s, std::move(out).freeze());
}

}  // namespace vseg
