// Load balancing over elements + segments (merge path), shared by every
// segmented primitive.
//
// Think of the work of a segmented operation as a merge of two sorted lists:
// the n elements, and the m segment ends ends(0) <= ends(1) <= ... = n. An
// element costs one step and finishing a segment (writing its result) costs
// one step, so the total work is n + m steps. Cutting that merge into blocks
// of tuning::segmented_block steps gives every block the same work whatever
// the segment lengths: one giant segment, millions of empty ones and a Zipf
// mix are all split evenly. The blocks depend only on n, m and the lengths,
// never on the thread count, so a floating-point result is deterministic.
//
// In the merge, segment j is taken before element e exactly when
// ends(j) <= e (its elements are all consumed), so a block covering steps
// [d0, d1) starts at (segment i0, element e0) and finishes the segments
// [i0, i1) plus a prefix of segment i1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "vseg/detail/parallel.hpp"
#include "vseg/tuning.hpp"

namespace vseg::detail {

// A point in the merge: `segment` segments finished, `element` elements consumed.
struct merge_point {
  std::int64_t segment;
  std::int64_t element;
};

// The point reached after d steps of the merge of m segment ends with n
// elements. ends(j) is the exclusive end of segment j, non-decreasing.
template <class Ends>
merge_point merge_path_split(std::int64_t d, std::int64_t m, std::int64_t n, const Ends& ends) {
  std::int64_t lo = std::max<std::int64_t>(0, d - n);
  std::int64_t hi = std::min<std::int64_t>(d, m);
  // The largest i in [lo, hi] with i == 0 or ends(i - 1) <= d - i.
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (ends(mid - 1) <= d - mid) lo = mid;
    else hi = mid - 1;
  }
  return {lo, d - lo};
}

// One block of the merge: segments [first.segment, last.segment) finish in
// it; elements [first.element, last.element) are consumed in it.
struct merge_block {
  merge_point first;
  merge_point last;
};

// The fixed blocks of the merge of m segments with n elements.
template <class Ends>
std::vector<merge_block> merge_path_blocks(std::int64_t m, std::int64_t n, const Ends& ends,
                                           std::int64_t block = tuning::segmented_block) {
  const std::int64_t steps = n + m;
  const std::int64_t blocks = block_count(steps, block);
  std::vector<merge_point> points(static_cast<std::size_t>(blocks + 1));
  parallel_for(blocks + 1, tuning::merge_split_grain, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t b = lo; b < hi; ++b)
      points[static_cast<std::size_t>(b)] =
          merge_path_split(std::min(b * block, steps), m, n, ends);
  });
  std::vector<merge_block> result(static_cast<std::size_t>(blocks));
  for (std::int64_t b = 0; b < blocks; ++b)
    result[static_cast<std::size_t>(b)] = {points[static_cast<std::size_t>(b)],
                                           points[static_cast<std::size_t>(b + 1)]};
  return result;
}

// Whether the merge of m segments with n elements is one fixed block, the
// block merge_path_blocks would return alone (whole_merge). The loops below
// then walk it directly: Delaunay's VCODE makes ~80k segmented calls over a
// few hundred to a few thousand elements, and each paid for the vectors of
// split points and blocks (and of carries) it did not need. O(1).
inline bool fits_one_block(std::int64_t m, std::int64_t n) { return n + m <= tuning::segmented_block; }

// The merge of m segments with n elements as one block: every segment finishes in it. O(1).
inline merge_block whole_merge(std::int64_t m, std::int64_t n) { return {{0, 0}, {m, n}}; }

// Calls piece(j, lo, hi, finishes) for every piece of a segment inside one
// block, in order: elements [lo, hi) of segment j, `finishes` true when the
// segment ends in this block (always true for the empty segments). Every
// segment finishes in exactly one block.
template <class Ends, class Piece>
void for_each_piece(const merge_block& blk, std::int64_t m, const Ends& ends, Piece&& piece) {
  std::int64_t e = blk.first.element;
  for (std::int64_t j = blk.first.segment; j < blk.last.segment; ++j) {
    const std::int64_t end = ends(j);
    piece(j, e, end, true);
    e = end;
  }
  if (blk.last.segment < m && e < blk.last.element)
    piece(blk.last.segment, e, blk.last.element, false);
}

// Runs body(block) for every merge block, in parallel.
template <class Body>
void for_each_merge_block(const std::vector<merge_block>& blocks, Body&& body) {
  const auto count = static_cast<std::int64_t>(blocks.size());
  if (count == 0) return;
  if (count == 1) {
    body(blocks[0]);
    return;
  }
  parallel_for(count, tuning::blocks_per_task, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t b = lo; b < hi; ++b) body(blocks[static_cast<std::size_t>(b)]);
  });
}

// The serial fix-up of the blocked segmented fold and scan: a segment that
// spans blocks has a partial result (carry[b]: the fold of its elements in
// block b) in every block it does not finish. Walking the blocks left to
// right, arrive(b, v) is called for every block b whose first segment began
// in an earlier block, v being the fold of that segment's elements in the
// earlier blocks. O(blocks).
template <class T, class Monoid, class Arrive>
void merge_carries(const std::vector<merge_block>& blocks, std::int64_t m, const per_block<T>& carry,
                   const Monoid& mon, Arrive&& arrive) {
  std::int64_t run_segment = -1;
  T run_value = mon.identity();
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const merge_block& blk = blocks[b];
    if (run_segment == blk.first.segment) arrive(b, run_value);
    if (blk.first.segment < blk.last.segment) run_segment = -1;
    if (blk.last.segment < m) {
      if (run_segment == blk.last.segment) {
        run_value = mon(run_value, carry[b]);
      } else {
        run_segment = blk.last.segment;
        run_value = carry[b];
      }
    }
  }
}

// Segmented fold, load-balanced and deterministic.
//   m segments; ends(j) their exclusive ends in a logical element space [0, n);
//   reduce_range(j, lo, hi, acc) returns acc combined (left to right) with
//   the logical elements [lo, hi), which all lie in segment j;
//   out[j] receives the fold of segment j (monoid identity when empty).
template <class T, class Ends, class ReduceRange, class Monoid>
void fold_segments(std::int64_t m, std::int64_t n, const Ends& ends,
                   const ReduceRange& reduce_range, const Monoid& mon, T* out) {
  if (m == 0) return;
  if (fits_one_block(m, n)) {
    // Every segment finishes in the one block: no split points, no carries.
    for_each_piece(whole_merge(m, n), m, ends, [&](std::int64_t j, std::int64_t first, std::int64_t last, bool) {
      out[j] = reduce_range(j, first, last, mon.identity());
    });
    return;
  }
  auto blocks = merge_path_blocks(m, n, ends);
  const auto count = blocks.size();
  // carry[b]: the fold of the unfinished segment's elements in block b.
  per_block<T> carry(static_cast<std::int64_t>(count), mon.identity());
  parallel_for(static_cast<std::int64_t>(count), tuning::blocks_per_task, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t b = lo; b < hi; ++b) {
      for_each_piece(blocks[static_cast<std::size_t>(b)], m, ends,
                     [&](std::int64_t j, std::int64_t first, std::int64_t last, bool finishes) {
                       T acc = reduce_range(j, first, last, mon.identity());
                       if (finishes) out[j] = acc;
                       else carry[static_cast<std::size_t>(b)] = acc;
                     });
    }
  });
  // A segment that spans blocks gets the carries of the blocks before the
  // one that finishes it.
  merge_carries(blocks, m, carry, mon, [&](std::size_t b, const T& before) {
    const merge_block& blk = blocks[b];
    if (blk.first.segment < blk.last.segment) out[blk.first.segment] = mon(before, out[blk.first.segment]);
  });
}

// Segmented scan, load-balanced and deterministic.
//   scan_range(j, lo, hi, acc) writes the scan of logical elements [lo, hi)
//   of segment j starting from acc, and returns the running value after them;
//   reduce_range as for fold_segments.
template <class T, class Ends, class ReduceRange, class ScanRange, class Monoid>
void scan_segments(std::int64_t m, std::int64_t n, const Ends& ends,
                   const ReduceRange& reduce_range, const ScanRange& scan_range,
                   const Monoid& mon) {
  if (m == 0 || n == 0) return;
  if (fits_one_block(m, n)) {
    // One block: every segment starts and finishes in it, from the identity.
    for_each_piece(whole_merge(m, n), m, ends, [&](std::int64_t j, std::int64_t first, std::int64_t last, bool) {
      scan_range(j, first, last, mon.identity());
    });
    return;
  }
  auto blocks = merge_path_blocks(m, n, ends);
  const auto count = blocks.size();
  // Pass 1: the fold of the unfinished segment's elements in each block.
  per_block<T> carry(static_cast<std::int64_t>(count), mon.identity());
  parallel_for(static_cast<std::int64_t>(count), tuning::blocks_per_task, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t b = lo; b < hi; ++b) {
      const merge_block& blk = blocks[static_cast<std::size_t>(b)];
      if (blk.last.segment >= m) continue;
      const std::int64_t seg = blk.last.segment;
      const std::int64_t seg_start = seg == 0 ? 0 : ends(seg - 1);
      const std::int64_t first = std::max(seg_start, blk.first.element);
      if (first < blk.last.element)
        carry[static_cast<std::size_t>(b)] =
            reduce_range(seg, first, blk.last.element, mon.identity());
    }
  });
  // Serial: the running value each block's first segment starts from.
  std::vector<T> carry_in(count, mon.identity());
  merge_carries(blocks, m, carry, mon, [&](std::size_t b, const T& before) { carry_in[b] = before; });
  // Pass 2: scan every piece, the first one of a block from its carry.
  parallel_for(static_cast<std::int64_t>(count), tuning::blocks_per_task, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t b = lo; b < hi; ++b) {
      const merge_block& blk = blocks[static_cast<std::size_t>(b)];
      for_each_piece(blk, m, ends,
                     [&](std::int64_t j, std::int64_t first, std::int64_t last, bool) {
                       const T start = (j == blk.first.segment && first == blk.first.element)
                                           ? carry_in[static_cast<std::size_t>(b)]
                                           : mon.identity();
                       scan_range(j, first, last, start);
                     });
    }
  });
}

// Runs piece(j, lo, hi) over every segment piece, balanced over elements +
// segments; for element-wise segmented work (replicate, indices, ids).
template <class Ends, class Piece>
void for_each_segment_piece(std::int64_t m, std::int64_t n, const Ends& ends, Piece&& piece) {
  if (m == 0) return;
  if (fits_one_block(m, n)) {
    for_each_piece(whole_merge(m, n), m, ends, [&](std::int64_t j, std::int64_t lo, std::int64_t hi, bool) {
      piece(j, lo, hi);
    });
    return;
  }
  auto blocks = merge_path_blocks(m, n, ends);
  for_each_merge_block(blocks, [&](const merge_block& blk) {
    for_each_piece(blk, m, ends, [&](std::int64_t j, std::int64_t lo, std::int64_t hi, bool) {
      piece(j, lo, hi);
    });
  });
}

}  // namespace vseg::detail
