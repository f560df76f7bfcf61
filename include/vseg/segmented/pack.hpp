// pack_s: keep the flagged elements of every segment. O(elements + segments).
#pragma once

#include <cstdint>

#include "vseg/array.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat/map.hpp"
#include "vseg/flat/pack.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/fold.hpp"
#include "vseg/segmented/segmented_array.hpp"

namespace vseg {

// Per segment, the elements whose flag is true, with the new descriptor.
// Throws std::invalid_argument unless s covers data and flags.
template <contiguous_input R, contiguous_input Flags>
segmented_array<element_t<R>> pack_s(const segd& s, const R& data, const Flags& flags) {
  check_covers("pack_s", s, detail::ssize(data));
  check_covers("pack_s", s, detail::ssize(flags));
  auto counts = fold_s(s, map([](bool f) { return std::int64_t{f ? 1 : 0}; }, flags),
                       plus<std::int64_t>{});
  return {segd::from_lengths(std::move(counts)), pack(data, flags)};
}

}  // namespace vseg
