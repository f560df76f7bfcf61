// fold_s and sum_s: one reduction per segment. O(elements + segments),
// balanced over both and deterministic (see vseg/detail/merge_path.hpp).
#pragma once

#include <cstdint>

#include "vseg/array.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"

namespace vseg {

// Per segment, the fold of its elements with the monoid, serially.
template <class T, class Monoid>
array<T> fold_s_serial(const segd& s, std::span<const T> data, const Monoid& m) {
  check_covers("fold_s", s, static_cast<std::int64_t>(data.size()));
  auto out = buffer<T>::for_overwrite(s.segments());
  for (std::int64_t j = 0; j < s.segments(); ++j) {
    T acc = m.identity();
    for (std::int64_t k = s.start(j); k < s.end(j); ++k) acc = m(acc, data[k]);
    out[j] = acc;
  }
  return std::move(out).freeze();
}

// Per segment, the fold of its elements with the monoid (its identity for an
// empty segment). Throws std::invalid_argument unless s covers data.
template <contiguous_input R, class Monoid>
array<element_t<R>> fold_s(const segd& s, const R& data, const Monoid& m) {
  using T = element_t<R>;
  auto in = detail::as_span(data);
  check_covers("fold_s", s, detail::ssize(data));
  auto out = buffer<T>::for_overwrite(s.segments());
  detail::fold_segments<T>(
      s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
      [&](std::int64_t, std::int64_t lo, std::int64_t hi, T acc) {
        for (std::int64_t k = lo; k < hi; ++k) acc = m(acc, in[k]);
        return acc;
      },
      m, out.data());
  return std::move(out).freeze();
}

// Per segment, the sum of its elements (0 for an empty segment).
template <contiguous_input R>
array<element_t<R>> sum_s(const segd& s, const R& data) {
  return fold_s(s, data, plus<element_t<R>>{});
}

}  // namespace vseg
