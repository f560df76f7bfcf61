// expand: repeat each value by a count. O(n + counts) work,
// balanced over output elements plus counts.
#pragma once

#include <cstdint>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/segd.hpp"

namespace vseg {

// Each xs[i] repeated counts[i] times, in order. Throws std::invalid_argument
// for a size mismatch or a negative count.
template <contiguous_input Counts, contiguous_input R>
array<element_t<R>> expand(const Counts& counts, const R& xs) {
  using T = element_t<R>;
  detail::check_same_size("expand", "counts", detail::ssize(counts), "xs", detail::ssize(xs));
  segd s;
  if constexpr (std::is_same_v<Counts, array<std::int64_t>>) s = segd::from_lengths(counts);
  else s = segd::from_lengths(array<std::int64_t>(detail::as_span(counts)));
  auto in = detail::as_span(xs);
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  detail::for_each_segment_piece(s.segments(), s.elements(),
                                 [&](std::int64_t j) { return s.end(j); },
                                 [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                                   const T v = in[j];
                                   for (std::int64_t k = lo; k < hi; ++k) o[k] = v;
                                 });
  return std::move(out).freeze();
}

}  // namespace vseg
