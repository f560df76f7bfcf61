// iota_s: an arithmetic sequence in every segment (VCODE's INDEX).
// O(elements + segments), balanced over both.
#pragma once

#include <cstdint>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/segd.hpp"

namespace vseg {

// [[starts[j] + i * strides[j] | i <- [0, lengths[j])] | j <- segments].
// Integer arithmetic wraps modulo 2^bits (it is done in the unsigned type),
// so a long sequence of a narrow type is defined. Throws
// std::invalid_argument unless there is one start and one stride per segment.
template <contiguous_input R1, contiguous_input R2>
array<element_t<R1>> iota_s(const segd& s, const R1& starts, const R2& strides) {
  using T = element_t<R1>;
  detail::check_same_size("iota_s", "segments", s.segments(), "starts", detail::ssize(starts));
  detail::check_same_size("iota_s", "segments", s.segments(), "strides", detail::ssize(strides));
  // Integer segments of one element each hold just their start (a floating
  // start + 0 * stride can differ: -0.0, an infinite stride).
  if constexpr (std::is_integral_v<T>) {
    if (s.uniform_length() == 1) {
      if constexpr (std::is_same_v<std::remove_cvref_t<R1>, array<T>>) return starts;
      else return array<T>(detail::as_span(starts));
    }
  }
  auto first = detail::as_span(starts);
  auto step = detail::as_span(strides);
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  detail::with_layout(s, [&](const auto& lay) {
    detail::for_each_segment_piece(
      s.segments(), s.elements(), [&](std::int64_t j) { return lay.end(j); },
      [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
        // The start and stride are read once per piece: the compiler cannot
        // prove o does not alias them and would reload them per element.
        const std::int64_t base = lay.start(j);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          using U = std::make_unsigned_t<T>;
          const U first_j = static_cast<U>(first[j]);
          const U step_j = static_cast<U>(step[j]);
          for (std::int64_t k = lo; k < hi; ++k)
            o[k] = static_cast<T>(static_cast<U>(first_j + static_cast<U>(k - base) * step_j));
        } else {
          const T first_j = static_cast<T>(first[j]);
          const T step_j = static_cast<T>(step[j]);
          for (std::int64_t k = lo; k < hi; ++k) o[k] = static_cast<T>(first_j + static_cast<T>(k - base) * step_j);
        }
      });
  });
  return std::move(out).freeze();
}

}  // namespace vseg
