// permute_s, permute_default_s, bpermute_flagged_s, replace_s: scatters and
// gathers whose indices are local to a segment (the segmented permutations of
// VCODE's PERMUTE, DPERMUTE, BFPERMUTE and REPLACE). Each is
// O(elements + segments), balanced over both.
//
// Indices are positions inside a segment: index i of an element of segment j
// names element starts[j] + i of the same segment of the target. Every index
// is checked against the length of its segment; a failure throws
// std::out_of_range naming the operation, the position and the index.
#pragma once

#include <cstdint>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat/permute.hpp"
#include "vseg/segd.hpp"

namespace vseg {

namespace detail {

// Global positions in `target` of the segment-local indices laid out by
// `index_segd`: index k of segment j becomes target.start(j) + indices[k].
// Throws std::out_of_range for an index outside its target segment.
template <class I>
array<std::int64_t> global_indices_s(const char* operation, const segd& index_segd,
                                     std::span<const I> idx, const segd& target) {
  auto out = buffer<std::int64_t>::for_overwrite(index_segd.elements());
  std::int64_t* o = out.data();
  first_bad bad;
  for_each_segment_piece(
      index_segd.segments(), index_segd.elements(), [&](std::int64_t j) { return index_segd.end(j); },
      [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
        const std::int64_t base = target.start(j);
        const std::int64_t len = target.length(j);
        for (std::int64_t k = lo; k < hi; ++k) {
          const auto i = static_cast<std::int64_t>(idx[k]);
          if (in_range(i, len)) o[k] = base + i;
          else bad.note(k);
        }
      });
  if (bad.any()) {
    const std::int64_t k = bad.position();
    throw_out_of_range(operation, "index ", static_cast<std::int64_t>(idx[k]), " at position ", k,
                       " outside its segment");
  }
  return std::move(out).freeze();
}

}  // namespace detail

// Within every segment, result[indices[k]] = data[k]: a scatter by local
// indices. Throws std::invalid_argument on a size mismatch and
// std::out_of_range unless the indices of every segment are a permutation of
// that segment's positions.
template <contiguous_input R, contiguous_input Indices>
array<element_t<R>> permute_s(const segd& s, const R& data, const Indices& indices) {
  check_covers("permute_s", s, detail::ssize(data));
  check_covers("permute_s", s, detail::ssize(indices));
  auto global = detail::global_indices_s("permute_s", s, detail::as_span(indices), s);
  return permute(data, global);
}

// A copy of defaults (laid out by dst_segd) where, for every segment j,
// element indices[k] of segment j is data[k] for each k of the source segment
// j. When an index repeats, the later position wins. Throws
// std::invalid_argument unless both descriptors have the same number of
// segments and cover their data, std::out_of_range for a bad index.
template <contiguous_input R, contiguous_input Indices, contiguous_input D>
array<element_t<R>> permute_default_s(const segd& src_segd, const R& data, const Indices& indices,
                                      const segd& dst_segd, const D& defaults) {
  check_covers("permute_default_s", src_segd, detail::ssize(data));
  check_covers("permute_default_s", src_segd, detail::ssize(indices));
  check_covers("permute_default_s", dst_segd, detail::ssize(defaults));
  detail::check_same_size("permute_default_s", "source segments", src_segd.segments(),
                          "destination segments", dst_segd.segments());
  auto global = detail::global_indices_s("permute_default_s", src_segd, detail::as_span(indices), dst_segd);
  return permute_default(defaults, data, global);
}

// For every position k of the result (laid out by index_segd, whose segment j
// gathers from segment j of src): flags[k] ? src_j[indices[k]] : fill. The
// index of an unflagged position is never read. Throws std::invalid_argument
// on a size or segment-count mismatch, std::out_of_range for a flagged index
// outside its source segment.
template <contiguous_input R, contiguous_input Indices, contiguous_input Flags>
array<element_t<R>> bpermute_flagged_s(const segd& src_segd, const R& src, const segd& index_segd,
                                       const Indices& indices, const Flags& flags,
                                       const element_t<R>& fill) {
  using T = element_t<R>;
  check_covers("bpermute_flagged_s", src_segd, detail::ssize(src));
  check_covers("bpermute_flagged_s", index_segd, detail::ssize(indices));
  check_covers("bpermute_flagged_s", index_segd, detail::ssize(flags));
  detail::check_same_size("bpermute_flagged_s", "source segments", src_segd.segments(),
                          "index segments", index_segd.segments());
  auto in = detail::as_span(src);
  auto idx = detail::as_span(indices);
  auto f = detail::as_span(flags);
  auto out = buffer<T>::for_overwrite(index_segd.elements());
  T* o = out.data();
  detail::first_bad bad;
  detail::for_each_segment_piece(
      index_segd.segments(), index_segd.elements(), [&](std::int64_t j) { return index_segd.end(j); },
      [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
        const std::int64_t base = src_segd.start(j);
        const std::int64_t len = src_segd.length(j);
        for (std::int64_t k = lo; k < hi; ++k) {
          if (!f[k]) {
            o[k] = fill;
            continue;
          }
          const auto i = static_cast<std::int64_t>(idx[k]);
          if (detail::in_range(i, len)) o[k] = in[base + i];
          else bad.note(k);
        }
      });
  if (bad.any()) {
    const std::int64_t k = bad.position();
    detail::throw_out_of_range("bpermute_flagged_s", "index ", static_cast<std::int64_t>(idx[k]),
                               " at position ", k, " outside its source segment");
  }
  return std::move(out).freeze();
}

namespace detail {

template <class Indices>
void check_replace_indices(const segd& s, std::span<const Indices> idx) {
  first_bad bad;
  parallel_for(s.segments(), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t j = lo; j < hi; ++j)
      if (!in_range(static_cast<std::int64_t>(idx[j]), s.length(j))) bad.note(j);
  });
  if (bad.any()) {
    const std::int64_t j = bad.position();
    throw_out_of_range("replace_s", "index ", static_cast<std::int64_t>(idx[j]), " outside segment ", j,
                       " of length ", s.length(j));
  }
}

}  // namespace detail

// In place: element indices[j] of every segment j of `data` becomes
// values[j]. O(segments). Throws std::invalid_argument on a size mismatch and
// std::out_of_range for an index outside its segment (data is then unchanged).
template <class T, contiguous_input Indices, contiguous_input V>
void replace_s_into(const segd& s, std::span<T> data, const Indices& indices, const V& values) {
  check_covers("replace_s", s, static_cast<std::int64_t>(data.size()));
  detail::check_same_size("replace_s", "segments", s.segments(), "indices", detail::ssize(indices));
  detail::check_same_size("replace_s", "segments", s.segments(), "values", detail::ssize(values));
  auto idx = detail::as_span(indices);
  auto val = detail::as_span(values);
  detail::check_replace_indices(s, idx);
  // One write per segment, to distinct positions: no two j collide.
  detail::parallel_for(s.segments(), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t j = lo; j < hi; ++j)
      data[static_cast<std::size_t>(s.start(j) + static_cast<std::int64_t>(idx[j]))] = static_cast<T>(val[j]);
  });
}

// A copy of data with element indices[j] of every segment j replaced by
// values[j]. O(elements + segments). Throws std::invalid_argument on a size
// mismatch, std::out_of_range for an index outside its segment.
template <contiguous_input R, contiguous_input Indices, contiguous_input V>
array<element_t<R>> replace_s(const segd& s, const R& data, const Indices& indices, const V& values) {
  using T = element_t<R>;
  check_covers("replace_s", s, detail::ssize(data));
  auto in = detail::as_span(data);
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  detail::parallel_for(s.elements(), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) o[k] = in[k];
  });
  replace_s_into(s, out.span(), indices, values);
  return std::move(out).freeze();
}

}  // namespace vseg
