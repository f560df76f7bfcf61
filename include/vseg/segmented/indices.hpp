// indices_s and segment_ids: per element, its position inside its segment or
// the segment it belongs to. O(elements + segments), balanced over both.
#pragma once

#include <cstdint>

#include "vseg/array.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/segd.hpp"

namespace vseg {

// [0, 1, ..., lengths[0]-1, 0, 1, ..., lengths[1]-1, ...].
inline array<std::int64_t> indices_s(const segd& s) {
  auto out = buffer<std::int64_t>::for_overwrite(s.elements());
  std::int64_t* o = out.data();
  detail::for_each_segment_piece(s.segments(), s.elements(),
                                 [&](std::int64_t j) { return s.end(j); },
                                 [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                                   const std::int64_t start = s.start(j);
                                   for (std::int64_t k = lo; k < hi; ++k) o[k] = k - start;
                                 });
  return std::move(out).freeze();
}

// [0 x lengths[0], 1 x lengths[1], ...]: the segment of every element.
inline array<std::int64_t> segment_ids(const segd& s) {
  auto out = buffer<std::int64_t>::for_overwrite(s.elements());
  std::int64_t* o = out.data();
  detail::for_each_segment_piece(s.segments(), s.elements(),
                                 [&](std::int64_t j) { return s.end(j); },
                                 [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                                   for (std::int64_t k = lo; k < hi; ++k) o[k] = j;
                                 });
  return std::move(out).freeze();
}

// The segment of every element, for segments of the given lengths.
inline array<std::int64_t> segment_ids(const array<std::int64_t>& lengths) {
  return segment_ids(segd::from_lengths(lengths));
}

}  // namespace vseg
