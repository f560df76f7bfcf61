// bpermute_s: a gather within segments. O(result elements + segments).
#pragma once

#include <cstdint>

#include "vseg/array.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/segmented_array.hpp"

namespace vseg {

// [[src_j[i] | i <- indices_j] | j <- segments]: every segment of the result
// gathers from the same segment of the source. Throws std::invalid_argument
// when the descriptors disagree in segment count or do not cover their data,
// and std::out_of_range for an index outside its source segment.
template <contiguous_input R, contiguous_input Indices>
segmented_array<element_t<R>> bpermute_s(const segd& src_segd, const R& src,
                                         const segd& index_segd, const Indices& indices) {
  using T = element_t<R>;
  check_covers("bpermute_s", src_segd, detail::ssize(src));
  check_covers("bpermute_s", index_segd, detail::ssize(indices));
  detail::check_same_size("bpermute_s", "source segments", src_segd.segments(),
                          "index segments", index_segd.segments());
  auto in = detail::as_span(src);
  auto idx = detail::as_span(indices);
  auto out = buffer<T>::for_overwrite(index_segd.elements());
  T* o = out.data();
  detail::first_bad bad;
  detail::with_layout(src_segd, [&](const auto& from) {
    // One index per segment: position k gathers from segment k.
    if (index_segd.uniform_length() == 1) {
      detail::parallel_for(index_segd.elements(), [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t k = lo; k < hi; ++k) {
          const auto i = static_cast<std::int64_t>(idx[k]);
          if (detail::in_range(i, from.length(k))) o[k] = in[from.start(k) + i];
          else bad.note(k);
        }
      });
      return;
    }
    detail::with_layout(index_segd, [&](const auto& to) {
      detail::for_each_segment_piece(
          index_segd.segments(), index_segd.elements(), [&](std::int64_t j) { return to.end(j); },
          [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
            const std::int64_t base = from.start(j);
            const std::int64_t len = from.length(j);
            for (std::int64_t k = lo; k < hi; ++k) {
              const auto i = static_cast<std::int64_t>(idx[k]);
              if (detail::in_range(i, len)) o[k] = in[base + i];
              else bad.note(k);
            }
          });
    });
  });
  if (bad.any()) {
    const std::int64_t k = bad.position();
    detail::throw_out_of_range("bpermute_s", "index ", static_cast<std::int64_t>(idx[k]),
                               " at position ", k, " outside its source segment");
  }
  return {index_segd, std::move(out).freeze()};
}

}  // namespace vseg
