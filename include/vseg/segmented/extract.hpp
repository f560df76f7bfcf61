// extract_s: one element from every segment, by its index in the segment.
// O(segments).
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/segd.hpp"

namespace vseg {

namespace detail {

// [segment_j[ix[j]] | j <- segments] for an index_list or index_repeated.
template <class T, class Ix>
array<T> extract_by(const segd& s, std::span<const T> in, Ix ix) {
  auto out = buffer<T>::for_overwrite(s.segments());
  first_bad bad;
  // No data: every segment is empty, so any index is out of range.
  if (in.empty() && s.segments() > 0) bad.note(0);
  if (!bad.any()) with_layout(s, [&](const auto& layout) {
    // The pointers and the layout live in the chunk's locals: the stores to
    // `o` may alias anything a capture points to, so the compiler would
    // otherwise reload them after every element. An index out of range
    // reads element 0 instead (the value is discarded), so the loop has no
    // branch and its loads overlap; the bad position is looked for only when
    // some index failed.
    const std::int64_t grain = one_per_segment_grain(s, sizeof(T));
    parallel_for(s.segments(), grain, [&bad, lay = layout, src = in.data(), ix, o = out.data()](std::int64_t lo, std::int64_t hi) {
      if constexpr (is_uniform_layout<std::remove_cvref_t<decltype(lay)>>) {
        // Equal segments: a vectorised check, then a plain gather.
        if (ix.all_in_range(lo, hi, lay.each)) {
          for (std::int64_t j = lo; j < hi; ++j) o[j] = src[j * lay.each + ix[j]];
          return;
        }
      } else {
        bool all_good = true;
        for (std::int64_t j = lo; j < hi; ++j) {
          const std::int64_t i = ix[j];
          const bool good = in_range(i, lay.length(j));
          all_good &= good;
          o[j] = src[good ? lay.start(j) + i : 0];
        }
        if (all_good) return;
      }
      for (std::int64_t j = lo; j < hi; ++j)
        if (!in_range(ix[j], lay.length(j))) return bad.note(j);
    });
  });
  if (bad.any()) {
    const std::int64_t j = bad.position();
    throw_out_of_range("extract_s", "index ", ix[j], " outside segment ", j, " of length ", s.length(j));
  }
  return std::move(out).freeze();
}

}  // namespace detail

// [segment_j[indices[j]] | j <- segments]. Throws std::invalid_argument on a
// size mismatch and std::out_of_range for an index outside its segment.
template <contiguous_input R, contiguous_input Indices>
array<element_t<R>> extract_s(const segd& s, const R& data, const Indices& indices) {
  check_covers("extract_s", s, detail::ssize(data));
  detail::check_same_size("extract_s", "segments", s.segments(), "indices", detail::ssize(indices));
  using I = std::remove_cvref_t<element_t<Indices>>;
  return detail::extract_by(s, detail::as_span(data), detail::index_list<I>{detail::as_span(indices).data()});
}

// [segment_j[k] | j <- segments]: element k of every segment, without an
// array of k's. Throws std::invalid_argument on a size mismatch and
// std::out_of_range, naming the first segment shorter than k + 1.
template <contiguous_input R>
array<element_t<R>> extract_s(const segd& s, const R& data, std::int64_t k) {
  check_covers("extract_s", s, detail::ssize(data));
  return detail::extract_by(s, detail::as_span(data), detail::index_repeated{k});
}

}  // namespace vseg
