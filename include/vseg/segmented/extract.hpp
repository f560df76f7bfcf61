// extract_s: one element from every segment, by its index in the segment.
// O(segments).
#pragma once

#include <cstdint>

#include "vseg/array.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/segd.hpp"

namespace vseg {

// [segment_j[indices[j]] | j <- segments]. Throws std::invalid_argument on a
// size mismatch and std::out_of_range for an index outside its segment.
template <contiguous_input R, contiguous_input Indices>
array<element_t<R>> extract_s(const segd& s, const R& data, const Indices& indices) {
  using T = element_t<R>;
  check_covers("extract_s", s, detail::ssize(data));
  detail::check_same_size("extract_s", "segments", s.segments(), "indices",
                          detail::ssize(indices));
  auto in = detail::as_span(data);
  auto idx = detail::as_span(indices);
  auto out = buffer<T>::for_overwrite(s.segments());
  T* o = out.data();
  detail::first_bad bad;
  detail::with_layout(s, [&](const auto& lay) {
    detail::parallel_for(s.segments(), [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t j = lo; j < hi; ++j) {
        const auto i = static_cast<std::int64_t>(idx[j]);
        if (detail::in_range(i, lay.length(j))) o[j] = in[lay.start(j) + i];
        else bad.note(j);
      }
    });
  });
  if (bad.any()) {
    const std::int64_t j = bad.position();
    detail::throw_out_of_range("extract_s", "index ", static_cast<std::int64_t>(idx[j]),
                               " outside segment ", j, " of length ", s.length(j));
  }
  return std::move(out).freeze();
}

}  // namespace vseg
