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
  auto first = detail::as_span(starts);
  auto step = detail::as_span(strides);
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  detail::for_each_segment_piece(
      s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
      [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
        const std::int64_t base = s.start(j);
        for (std::int64_t k = lo; k < hi; ++k) {
          if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            using U = std::make_unsigned_t<T>;
            o[k] = static_cast<T>(static_cast<U>(static_cast<U>(first[j]) +
                                                 static_cast<U>(k - base) * static_cast<U>(step[j])));
          } else {
            o[k] = static_cast<T>(first[j] + static_cast<T>(k - base) * static_cast<T>(step[j]));
          }
        }
      });
  return std::move(out).freeze();
}

}  // namespace vseg
