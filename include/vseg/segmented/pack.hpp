// pack_s: keep the flagged elements of every segment. O(elements + segments).
#pragma once

#include <cstdint>

#include "vseg/array.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat/pack.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/segmented_array.hpp"

namespace vseg {

// Per segment, the elements whose flag is true, with the new descriptor.
// Throws std::invalid_argument unless s covers data and flags.
template <contiguous_input R, contiguous_input Flags>
segmented_array<element_t<R>> pack_s(const segd& s, const R& data, const Flags& flags) {
  check_covers("pack_s", s, detail::ssize(data));
  check_covers("pack_s", s, detail::ssize(flags));
  // The kept count of every segment, folded straight from the flags (no
  // array of 0/1 counts is built).
  auto f = detail::as_span(flags);
  auto counts = buffer<std::int64_t>::for_overwrite(s.segments());
  detail::fold_segments<std::int64_t>(
      s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
      [&](std::int64_t, std::int64_t lo, std::int64_t hi, std::int64_t acc) {
        for (std::int64_t k = lo; k < hi; ++k) acc += f[static_cast<std::size_t>(k)] ? 1 : 0;
        return acc;
      },
      plus<std::int64_t>{}, counts.data());
  return {segd::from_lengths(std::move(counts).freeze()), pack(data, flags)};
}

}  // namespace vseg
