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
// spanning blocks is finished by the serial fix-up detail::merge_carries.
// Every piece is folded by detail::fold_range_by, the same grouped kernel as
// fold_s (tuning::fold_group, tuning::fold_group_min); the grouping depends
// on the piece, hence on the fixed blocks only.
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

#include "vseg/detail/fold_range.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/segd.hpp"
#include "vseg/tuning.hpp"

namespace vseg::detail {

// The shortest piece folded in groups; the name tests/test_nested.cpp uses.
inline constexpr std::int64_t flat_fold_group_min = tuning::fold_group_min;

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
    out[j] = fold_range_by<T>(read, e, end, mon.identity(), mon);
    e = end;
  }
  if (j < blk.last.segment) {  // the last segment finishes here
    out[j] = fold_range_by<T>(read, e, n, mon.identity(), mon);
    return mon.identity();
  }
  return fold_range_by<T>(read, e, blk.last.element, mon.identity(), mon);
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
  parallel_for(count, tuning::blocks_per_task, [&](std::int64_t lo, std::int64_t hi) {
    const Reader r = read;  // a local copy: its pointers stay in registers
    for (std::int64_t b = lo; b < hi; ++b) {
      const merge_block& blk = blocks[static_cast<std::size_t>(b)];
      carry[static_cast<std::size_t>(b)] = fold_flat_block<T>(starts, m, n, blk, r, mon, out);
    }
  });
  // A segment that spans blocks gets the carries of the blocks before the
  // one that finishes it (as in fold_segments).
  merge_carries(blocks, m, carry, mon, [&](std::size_t b, const T& before) {
    const merge_block& blk = blocks[b];
    if (blk.first.segment < blk.last.segment) out[blk.first.segment] = mon(before, out[blk.first.segment]);
  });
}

}  // namespace vseg::detail
