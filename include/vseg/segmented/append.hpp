// append_s: segment-wise append of two segmented arrays.
// O(elements + segments), balanced over both.
#pragma once

#include <cstdint>

#include "vseg/array.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat/map.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/segmented_array.hpp"

namespace vseg {

// [xs_j ++ ys_j | j <- segments]. Throws std::invalid_argument unless both
// descriptors have the same number of segments and cover their data.
template <contiguous_input R1, contiguous_input R2>
segmented_array<element_t<R1>> append_s(const segd& xs_segd, const R1& xs, const segd& ys_segd,
                                        const R2& ys) {
  using T = element_t<R1>;
  check_covers("append_s", xs_segd, detail::ssize(xs));
  check_covers("append_s", ys_segd, detail::ssize(ys));
  detail::check_same_size("append_s", "xs segments", xs_segd.segments(), "ys segments",
                          ys_segd.segments());
  const segd s = segd::from_lengths(zip_with([](std::int64_t a, std::int64_t b) { return a + b; },
                                             xs_segd.lengths(), ys_segd.lengths()));
  auto a = detail::as_span(xs);
  auto b = detail::as_span(ys);
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  detail::for_each_segment_piece(
      s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
      [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
        const std::int64_t start = s.start(j);
        const std::int64_t split = start + xs_segd.length(j);
        const std::int64_t xs_from = xs_segd.start(j) - start;
        const std::int64_t ys_from = ys_segd.start(j) - split;
        for (std::int64_t k = lo; k < hi; ++k) o[k] = k < split ? a[xs_from + k] : b[ys_from + k];
      });
  return {s, std::move(out).freeze()};
}

}  // namespace vseg
