// bpermute_flagged_s: a gather within segments where only flagged positions
// read their source (VCODE's BFPERMUTE). O(result elements + segments).
#pragma once

#include <cstdint>

#include "vseg/array.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/bpermute.hpp"

namespace vseg {

// For every position k of the result (laid out by index_segd, whose segment j
// gathers from segment j of src): flags[k] ? src_j[indices[k]] : fill. The
// index of an unflagged position is never read. Throws std::invalid_argument
// on a size or segment-count mismatch, std::out_of_range for a flagged index
// outside its source segment. O(result elements + segments).
template <contiguous_input R, contiguous_input Indices, contiguous_input Flags>
array<element_t<R>> bpermute_flagged_s(const segd& src_segd, const R& src, const segd& index_segd,
                                       const Indices& indices, const Flags& flags,
                                       const element_t<R>& fill) {
  using T = element_t<R>;
  detail::check_bpermute_s("bpermute_flagged_s", src_segd, detail::ssize(src), index_segd,
                           detail::ssize(indices));
  detail::check_covers_argument("bpermute_flagged_s", index_segd.elements(), "the flags", detail::ssize(flags));
  auto out = buffer<T>::for_overwrite(index_segd.elements());
  using F = element_t<Flags>;
  detail::bpermute_s_body<T>("bpermute_flagged_s", src_segd, detail::as_span(src).data(), index_segd,
                             detail::as_span(indices).data(), detail::gather_flagged<F>{detail::as_span(flags).data()},
                             &fill, out.data());
  return std::move(out).freeze();
}

}  // namespace vseg
