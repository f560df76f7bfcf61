// bpermute_s: a gather within segments. O(result elements + segments).
#pragma once

#include <cstdint>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/segmented_array.hpp"

namespace vseg {

namespace detail {

// Which positions of a segmented gather read their source: every one
// (bpermute_s), or those whose flag is set (bpermute_flagged_s; the others
// get the fill value and their index is never read).
struct gather_every {
  constexpr bool operator()(std::int64_t) const noexcept { return true; }
};
template <class Flag>
struct gather_flagged {
  const Flag* flags;
  bool operator()(std::int64_t k) const noexcept { return static_cast<bool>(flags[k]); }
};

// o[k] = in[idx[k]] for k in [lo, hi) when every index there is in [0, len);
// false, writing nothing, otherwise. The range check vectorises and the
// gather keeps its pointers in registers: inside bpermute_s_body's lambdas
// GCC reloaded the captured pointers at every element, twice the loads of
// the gather itself (Barnes-Hut's BPERMUTE FLOAT, notes/vcode.md).
// O(hi - lo).
template <class T, class I>
bool gather_in_range(const T* in, std::int64_t len, const I* idx, T* o, std::int64_t lo, std::int64_t hi) noexcept {
  if (!all_in_range(idx, lo, hi, len)) return false;
  for (std::int64_t k = lo; k < hi; ++k) o[k] = in[static_cast<std::int64_t>(idx[k])];
  return true;
}

// The body of bpermute_s and bpermute_flagged_s: o[k] = src_j[idx[k]] for
// every position k of segment j of index_segd that `gathers`, *fill for the
// others. Throws std::out_of_range naming `op`, the first bad position and
// its index. The descriptors are checked by the caller.
// O(index elements + segments), balanced over both.
template <class T, class I, class Gathers>
void bpermute_s_body(const char* op, const segd& src_segd, const T* in, const segd& index_segd, const I* idx,
                     Gathers gathers, const T* fill, T* o) {
  first_bad bad;
  auto gather = [&](std::int64_t k, std::int64_t base, std::int64_t len) {
    if (!gathers(k)) {
      o[k] = *fill;
      return;
    }
    const auto i = static_cast<std::int64_t>(idx[k]);
    if (in_range(i, len)) o[k] = in[base + i];
    else bad.note(k);
  };
  with_layout(src_segd, [&](const auto& from) {
    // One index per segment: position k gathers from segment k.
    if (index_segd.uniform_length() == 1) {
      parallel_for(index_segd.elements(), [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t k = lo; k < hi; ++k) gather(k, from.start(k), from.length(k));
      });
      return;
    }
    with_layout(index_segd, [&](const auto& to) {
      for_each_segment_piece(index_segd.segments(), index_segd.elements(), [&](std::int64_t j) { return to.end(j); },
                             [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                               const std::int64_t base = from.start(j);
                               const std::int64_t len = from.length(j);
                               if constexpr (std::is_same_v<Gathers, gather_every>) {
                                 if (gather_in_range(in + base, len, idx, o, lo, hi)) return;
                               }
                               for (std::int64_t k = lo; k < hi; ++k) gather(k, base, len);
                             });
    });
  });
  if (bad.any()) {
    const std::int64_t k = bad.position();
    throw_out_of_range(op, "index ", static_cast<std::int64_t>(idx[k]), " at position ", k,
                       " outside its source segment");
  }
}

// The checks shared by bpermute_s and bpermute_flagged_s.
inline void check_bpermute_s(const char* op, const segd& src_segd, std::int64_t src_size, const segd& index_segd,
                             std::int64_t index_size) {
  check_covers(op, src_segd, src_size);
  check_covers_argument(op, index_segd.elements(), "the indices", index_size);
  check_same_size(op, "source segments", src_segd.segments(), "index segments", index_segd.segments());
}

}  // namespace detail

// [[src_j[i] | i <- indices_j] | j <- segments]: every segment of the result
// gathers from the same segment of the source. Throws std::invalid_argument
// when the descriptors disagree in segment count or do not cover their data,
// and std::out_of_range for an index outside its source segment.
// O(result elements + segments).
template <contiguous_input R, contiguous_input Indices>
segmented_array<element_t<R>> bpermute_s(const segd& src_segd, const R& src,
                                         const segd& index_segd, const Indices& indices) {
  using T = element_t<R>;
  detail::check_bpermute_s("bpermute_s", src_segd, detail::ssize(src), index_segd, detail::ssize(indices));
  auto out = buffer<T>::for_overwrite(index_segd.elements());
  detail::bpermute_s_body<T>("bpermute_s", src_segd, detail::as_span(src).data(), index_segd,
                             detail::as_span(indices).data(), detail::gather_every{}, nullptr, out.data());
  return {index_segd, std::move(out).freeze()};
}

}  // namespace vseg
