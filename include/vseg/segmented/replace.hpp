// replace_s and replace_s_into: one element of every segment replaced by a
// value per segment (VCODE's REPLACE). O(segments) in place,
// O(elements + segments) for the copy.
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/segd.hpp"

namespace vseg {

namespace detail {

// Throws std::out_of_range unless every segment's index ix[j] (index_list,
// index_repeated) lies in its segment, naming the first that does not.
template <class Ix>
void check_replace_indices(const segd& s, Ix ix) {
  first_bad bad;
  with_layout(s, [&](const auto& layout) {
    // Branch-free over a chunk (it vectorises); the bad position is looked
    // for only when the chunk has one.
    parallel_for(s.segments(), [&bad, lay = layout, ix](std::int64_t lo, std::int64_t hi) {
      if constexpr (is_uniform_layout<std::remove_cvref_t<decltype(lay)>>) {
        if (ix.all_in_range(lo, hi, lay.each)) return;
      } else {
        bool all_good = true;
        for (std::int64_t j = lo; j < hi; ++j) all_good &= in_range(ix[j], lay.length(j));
        if (all_good) return;
      }
      for (std::int64_t j = lo; j < hi; ++j)
        if (!in_range(ix[j], lay.length(j))) return bad.note(j);
    });
  });
  if (bad.any()) {
    const std::int64_t j = bad.position();
    throw_out_of_range("replace_s", "index ", ix[j], " outside segment ", j, " of length ", s.length(j));
  }
}

// Element ix[j] of every segment j of `data` becomes v[j], in place.
template <class T, class Ix, class V>
void replace_by(const segd& s, std::span<T> data, Ix ix, const V* v) {
  check_replace_indices(s, ix);
  // One write per segment, to distinct positions: no two j collide.
  // The pointers live in the chunk's locals (the stores may alias them).
  with_layout(s, [&](const auto& layout) {
    parallel_for(s.segments(), one_per_segment_grain(s, sizeof(T)), [lay = layout, o = data.data(), ix, v](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t j = lo; j < hi; ++j) o[lay.start(j) + ix[j]] = static_cast<T>(v[j]);
    });
  });
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
  using I = std::remove_cvref_t<element_t<Indices>>;
  detail::replace_by(s, data, detail::index_list<I>{detail::as_span(indices).data()}, detail::as_span(values).data());
}

// In place: element k of every segment j of `data` becomes values[j],
// without an array of k's. Throws as above, naming the first segment
// shorter than k + 1.
template <class T, contiguous_input V>
void replace_s_into(const segd& s, std::span<T> data, std::int64_t k, const V& values) {
  check_covers("replace_s", s, static_cast<std::int64_t>(data.size()));
  detail::check_same_size("replace_s", "segments", s.segments(), "values", detail::ssize(values));
  detail::replace_by(s, data, detail::index_repeated{k}, detail::as_span(values).data());
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
