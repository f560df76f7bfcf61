// replicate_s: one value per segment, repeated over the segment.
// O(elements + segments), balanced over both.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/segd.hpp"

namespace vseg {

// values[j] repeated over segment j, for every segment. Throws
// std::invalid_argument unless there is one value per segment.
template <contiguous_input R>
array<element_t<R>> replicate_s(const segd& s, const R& values) {
  using T = element_t<R>;
  detail::check_same_size("replicate_s", "segments", s.segments(), "values",
                          detail::ssize(values));
  // Segments of one element each: the result is the values themselves.
  if (s.uniform_length() == 1) {
    if constexpr (std::is_same_v<std::remove_cvref_t<R>, array<T>>) return values;
    else return array<T>(detail::as_span(values));
  }
  auto in = detail::as_span(values);
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  // One segment: a fill, with no merge path to walk.
  if (s.segments() == 1) {
    detail::parallel_for(s.elements(), [o, v = in[0]](std::int64_t lo, std::int64_t hi) { std::fill(o + lo, o + hi, v); });
    return std::move(out).freeze();
  }
  detail::with_layout(s, [&](const auto& lay) {
    detail::for_each_segment_piece(s.segments(), s.elements(), [&](std::int64_t j) { return lay.end(j); },
                                   [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                                     const T v = in[j];
                                     for (std::int64_t k = lo; k < hi; ++k) o[k] = v;
                                   });
  });
  return std::move(out).freeze();
}

}  // namespace vseg
