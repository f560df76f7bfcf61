// The segmented fold of a *flat* nested expression: one whose element k of
// the concatenated virtual space is read(k), whatever segment it is in.
// SpMV through the nested API is one: vals and cols are laid out as their
// shape, and the replicated vector is one physical segment, so
//   read(k) = vals[k] * v[cols[k]].
//
// The generic fused fold (nested.hpp) builds per segment a cursor from the
// descriptors (vsegids, sources, starts of every operand: about 60 bytes
// of descriptor reads per row for SpMV) and finds a segment's end from
// starts + lengths. Here a row costs what it costs a hand-written CSR loop:
// one read of the shape's starts (end(j) = starts[j+1]) and one write of
// the result.
//
// Load balance and determinism are those of detail::fold_segments: the merge
// of elements and segment ends is cut into fixed blocks of
// tuning::segmented_block steps, independent of the thread count; a segment
// spanning blocks is finished by a serial fix-up over the block carries.
// Inside a piece the elements are combined four at a time,
// acc = acc . ((x0 . x1) . (x2 . x3)), which needs only associativity and
// takes the floating-point add latency off the critical path of long rows.
#pragma once

#include <cstdint>
#include <vector>

#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/segd.hpp"
#include "vseg/tuning.hpp"

namespace vseg::detail {

// acc combined with read(lo), ..., read(hi - 1), four at a time.
template <class T, class Reader, class Monoid>
T fold_flat_range(const Reader& read, std::int64_t lo, std::int64_t hi, T acc, const Monoid& mon) {
  std::int64_t k = lo;
  for (; k + 4 <= hi; k += 4)
    acc = mon(acc, mon(mon(read(k), read(k + 1)), mon(read(k + 2), read(k + 3))));
  for (; k < hi; ++k) acc = mon(acc, read(k));
  return acc;
}

// out[j] = the fold of read(k) over segment j of s, for every segment.
// O(elements + segments), balanced over both.
template <class T, class Reader, class Monoid>
void fold_flat(const segd& s, const Reader& read, const Monoid& mon, T* out) {
  const std::int64_t m = s.segments(), n = s.elements();
  if (m == 0) return;
  const std::int64_t* starts = s.starts().data();
  // The exclusive end of segment j, from one array.
  const auto ends = [starts, m, n](std::int64_t j) { return j + 1 < m ? starts[j + 1] : n; };
  const auto blocks = merge_path_blocks(m, n, ends);
  const auto count = static_cast<std::int64_t>(blocks.size());
  // carry[b]: the fold of the unfinished segment's elements in block b.
  std::vector<T> carry(static_cast<std::size_t>(count), mon.identity());
  parallel_for(count, 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t b = lo; b < hi; ++b) {
      const merge_block& blk = blocks[static_cast<std::size_t>(b)];
      std::int64_t e = blk.first.element;
      for (std::int64_t j = blk.first.segment; j < blk.last.segment; ++j) {
        const std::int64_t end = ends(j);
        out[j] = fold_flat_range(read, e, end, mon.identity(), mon);
        e = end;
      }
      if (blk.last.segment < m && e < blk.last.element)
        carry[static_cast<std::size_t>(b)] =
            fold_flat_range(read, e, blk.last.element, mon.identity(), mon);
    }
  });
  // Serial fix-up, left to right over blocks (as in fold_segments).
  std::int64_t run_segment = -1;
  T run_value = mon.identity();
  for (std::int64_t b = 0; b < count; ++b) {
    const merge_block& blk = blocks[static_cast<std::size_t>(b)];
    if (blk.first.segment < blk.last.segment) {
      if (run_segment == blk.first.segment) out[run_segment] = mon(run_value, out[run_segment]);
      run_segment = -1;
    }
    if (blk.last.segment < m) {
      if (run_segment == blk.last.segment) {
        run_value = mon(run_value, carry[static_cast<std::size_t>(b)]);
      } else {
        run_segment = blk.last.segment;
        run_value = carry[static_cast<std::size_t>(b)];
      }
    }
  }
}

}  // namespace vseg::detail
