// expand: repeat each value by a count. O(n + counts) work,
// balanced over output elements plus counts.
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

namespace vseg {

namespace detail {

// Throws std::invalid_argument naming expand, the first negative count and
// its position. The loop is a branch-free minimum (it vectorises); the
// position is looked for only in a chunk that has one. O(counts).
template <class C>
void check_counts(std::span<const C> counts) {
  first_bad bad;
  parallel_for(static_cast<std::int64_t>(counts.size()), [&bad, c = counts.data()](std::int64_t lo, std::int64_t hi) {
    C least = 0;
    for (std::int64_t i = lo; i < hi; ++i) least = c[i] < least ? c[i] : least;
    if (least < 0)
      for (std::int64_t i = lo; i < hi; ++i)
        if (c[i] < 0) return bad.note(i);
  });
  if (bad.any())
    throw_invalid("expand", "the count at position ", bad.position(), " asks for a segment of negative length ",
                  static_cast<long long>(counts[static_cast<std::size_t>(bad.position())]));
}

}  // namespace detail

// Each xs[i] repeated counts[i] times, in order. Throws std::invalid_argument
// for a size mismatch or a negative count (naming it and its position), and
// std::overflow_error when the counts sum beyond int64.
template <contiguous_input Counts, contiguous_input R>
array<element_t<R>> expand(const Counts& counts, const R& xs) {
  using T = element_t<R>;
  detail::check_same_size("expand", "counts", detail::ssize(counts), "xs", detail::ssize(xs));
  if constexpr (std::is_signed_v<element_t<Counts>>) detail::check_counts(detail::as_span(counts));
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
