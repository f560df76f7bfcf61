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
// Inside a piece of at least flat_fold_group_min elements the elements are
// combined four at a time, acc = acc . ((x0 . x1) . (x2 . x3)), which needs
// only associativity and takes the floating-point add latency off the
// critical path of long rows; shorter pieces are folded left to right. The
// choice depends on the piece, hence on the fixed blocks only.
//
// The index check of index_l stays fused into the element read (one compare
// and a never-taken branch per element). A separate vectorised bounds pass
// per block followed by an unchecked loop was tried and was slower on both
// stencils (1.31x and 1.40x of the hand loop against 1.16x and 1.14x, same
// run conditions): the pass is the one that takes the cache misses on the
// columns, and the second read of them comes from L2, not L1.
#pragma once

#include <cstdint>
#include <vector>

#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/segd.hpp"
#include "vseg/tuning.hpp"

namespace vseg::detail {

// Pieces at least this long are folded four elements at a time (below):
// the 27-point stencil's rows are, the 7-point stencil's are not.
inline constexpr std::int64_t flat_fold_group_min = 16;

// acc combined with read(lo), ..., read(hi - 1). A range of at least
// flat_fold_group_min elements is taken four at a time,
// acc . ((x0 . x1) . (x2 . x3)), which takes the add latency off long rows;
// short ones (SpMV's stencil rows) keep the plain loop: their chains are
// short and independent, and a grouped loop's tail costs more than it saves
// there. Always inlined: it runs once per row, and a call per row
// (spilled registers, the reader reloaded) was a measurable part of the
// 7-point stencil's time.
template <class T, class Read, class Monoid>
[[gnu::always_inline]] inline T fold_flat_range(const Read& read, std::int64_t lo, std::int64_t hi,
                                                T acc, const Monoid& mon) {
  std::int64_t k = lo;
  if (hi - lo >= flat_fold_group_min)
    for (; k + 4 <= hi; k += 4)
      acc = mon(acc, mon(mon(read(k), read(k + 1)), mon(read(k + 2), read(k + 3))));
  for (; k < hi; ++k) acc = mon(acc, read(k));
  return acc;
}

// The segments of one merge-path block: out[j] for those finishing in it
// and the fold of the unfinished one's elements (returned). The end of
// segment j < m - 1 is starts[j + 1]; that of the last one is n.
template <class T, class Read, class Monoid>
T fold_flat_block(const std::int64_t* starts, std::int64_t m, std::int64_t n,
                  const merge_block& blk, const Read& read, const Monoid& mon, T* out) {
  std::int64_t e = blk.first.element;
  std::int64_t j = blk.first.segment;
  const std::int64_t inner = blk.last.segment < m ? blk.last.segment : m - 1;
  for (; j < inner; ++j) {
    const std::int64_t end = starts[j + 1];
    out[j] = fold_flat_range(read, e, end, mon.identity(), mon);
    e = end;
  }
  if (j < blk.last.segment) {  // the last segment finishes here
    out[j] = fold_flat_range(read, e, n, mon.identity(), mon);
    return mon.identity();
  }
  return fold_flat_range(read, e, blk.last.element, mon.identity(), mon);
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
  per_block<T> carry(count, mon.identity());
  parallel_for(count, 1, [&](std::int64_t lo, std::int64_t hi) {
    const Reader r = read;  // a local copy: its pointers stay in registers
    for (std::int64_t b = lo; b < hi; ++b) {
      const merge_block& blk = blocks[static_cast<std::size_t>(b)];
      carry[static_cast<std::size_t>(b)] = fold_flat_block<T>(starts, m, n, blk, r, mon, out);
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
