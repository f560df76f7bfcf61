// The segmented fold of a distributed array, bit for bit the single-node
// fold of the whole array (vseg::fold_s, detail::fold_flat).
//
// The single-node fold cuts the merge of elements and segment ends into fixed
// blocks of tuning::segmented_block steps, folds each piece of a segment in a
// block with detail::fold_range_by (grouped), and combines the pieces of a
// segment that spans blocks left to right: ((p0 + p1) + p2) + ... Element e
// of global segment J is step e + J of that merge, so a rank that knows the
// global segment and element of its pieces (the placement) cuts them where
// the single-node fold does, whatever the number of ranks.
//
// Under `split` a segment may span ranks; its pieces' values are exchanged
// (one MPI_Allgather of 4 integers and one MPI_Allgatherv of the values of
// the at most two open pieces per rank) and the rank that finishes the
// segment combines them in rank order, then its own. Other specs exchange
// nothing.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "vseg/detail/fold_range.hpp"
#include "vseg/detail/fused_fold.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/dist/datatype.hpp"
#include "vseg/dist/detail/exchange.hpp"
#include "vseg/dist/detail/placement.hpp"
#include "vseg/segd.hpp"
#include "vseg/tuning.hpp"

namespace vseg::dist::detail {

// The values of the sub-pieces of local piece j (local elements [lo, hi)),
// cut at the single-node fold's block boundaries; fold_sub(a, b) folds the
// local elements [a, b). O(hi - lo).
template <class T, class FoldSub>
void sub_piece_values(const placement& w, std::int64_t j, std::int64_t lo, std::int64_t hi, bool open,
                      const FoldSub& fold_sub, std::vector<T>& values) {
  constexpr std::int64_t step = tuning::segmented_block;
  const std::int64_t offset = w.starts[j] - lo + w.ids[j];  // global step of local element k is k + offset
  const std::int64_t phase = ((lo + offset) % step + step) % step;
  std::int64_t cut = lo + (step - phase);
  std::int64_t a = lo;
  values.clear();
  for (; cut < hi || (cut == hi && !open); cut += step) {
    values.push_back(fold_sub(a, cut));
    a = cut;
  }
  values.push_back(fold_sub(a, hi));
  if (open && values.size() > 1 && a == hi) values.pop_back();
}

// Whether the single-node fold cuts local piece j (local elements [lo, hi),
// finishing here) anywhere in (lo, hi]; O(1).
inline bool crosses_block(const placement& w, std::int64_t j, std::int64_t lo, std::int64_t hi) {
  constexpr std::int64_t step = tuning::segmented_block;
  const std::int64_t offset = w.starts[j] - lo + w.ids[j];
  return (hi + offset) / step != (lo + offset) / step;
}

// ((v0 + v1) + v2) + ..., as merge_carries combines them; v must be non-empty.
template <class T, class Monoid>
T combine_left(const T* v, std::size_t n, const Monoid& mon) {
  T run = v[0];
  for (std::size_t i = 1; i < n; ++i) run = mon(run, v[i]);
  return run;
}

// Under `split`: the sub-piece values of the segment of this rank's first
// piece held by earlier ranks, in order (empty unless that piece continues a
// segment). Every rank sends the values of its open pieces (first_values:
// a continuing first piece; last_values: an open last piece): one
// MPI_Allgather of 4 integers, one MPI_Allgatherv. Collective.
template <class T>
std::vector<T> earlier_values(const placement& w, std::int64_t pieces, const std::vector<T>& first_values,
                              const std::vector<T>& last_values) {
  const bool last_open = pieces > 0 && !w.last_is_end;
  const std::int64_t none = -1;
  std::int64_t mine[4] = {none, 0, none, 0};
  if (pieces > 0 && !w.first_is_start) mine[0] = w.ids[0], mine[1] = static_cast<std::int64_t>(first_values.size());
  if (last_open && !(pieces == 1 && !w.first_is_start))
    mine[2] = w.ids[pieces - 1], mine[3] = static_cast<std::int64_t>(last_values.size());
  const auto p = static_cast<std::size_t>(w.nranks);
  std::vector<std::int64_t> heads(4 * p);
  check_mpi(MPI_Allgather(mine, 4, MPI_INT64_T, heads.data(), 4, MPI_INT64_T, w.comm), "MPI_Allgather");
  std::vector<T> send;
  if (mine[0] != none) send.insert(send.end(), first_values.begin(), first_values.end());
  if (mine[2] != none) send.insert(send.end(), last_values.begin(), last_values.end());
  std::vector<int> counts(p), displs(p);
  int total = 0;
  for (std::size_t r = 0; r < p; ++r) {
    counts[r] = static_cast<int>(heads[4 * r + 1] + heads[4 * r + 3]);
    displs[r] = total;
    total += counts[r];
  }
  std::vector<T> all(static_cast<std::size_t>(total));
  check_mpi(MPI_Allgatherv(send.data(), static_cast<int>(send.size()), datatype<T>(), all.data(), counts.data(),
                           displs.data(), datatype<T>(), w.comm),
            "MPI_Allgatherv");
  std::vector<T> chain;
  if (pieces == 0 || w.first_is_start) return chain;
  const std::int64_t id = w.ids[0];
  for (std::size_t r = 0; r < static_cast<std::size_t>(w.rank); ++r) {
    const T* at = all.data() + displs[r];
    if (heads[4 * r] == id) chain.insert(chain.end(), at, at + heads[4 * r + 1]);
    at += heads[4 * r + 1];
    if (heads[4 * r + 2] == id) chain.insert(chain.end(), at, at + heads[4 * r + 3]);
  }
  return chain;
}

// Whether this rank's pieces are whole, consecutive global segments laid out
// in order (every contiguous spec but `split`): local piece j is global
// segment ids[0] + j and its elements follow piece j - 1's. O(1).
inline bool consecutive_whole_pieces(const placement& w) {
  return w.where.spec.contiguous() && !w.where.spec.splits_segments() && w.first_is_start && w.last_is_end;
}

// The merge blocks of m consecutive whole pieces (n elements) cut where the
// single-node fold cuts them: at the global merge steps that are multiples
// of tuning::segmented_block, local step d being global step d + offset.
// O(blocks * log(m)).
template <class Ends>
std::vector<vseg::detail::merge_block> shifted_merge_blocks(std::int64_t m, std::int64_t n, std::int64_t offset,
                                                            const Ends& ends) {
  constexpr std::int64_t step = tuning::segmented_block;
  std::vector<std::int64_t> cuts{0};
  for (std::int64_t d = step - offset % step; d < n + m; d += step) cuts.push_back(d);
  cuts.push_back(n + m);
  std::vector<vseg::detail::merge_point> points(cuts.size());
  vseg::detail::parallel_for(static_cast<std::int64_t>(cuts.size()), tuning::merge_split_grain,
                             [&](std::int64_t lo, std::int64_t hi) {
                               for (std::int64_t b = lo; b < hi; ++b)
                                 points[static_cast<std::size_t>(b)] = vseg::detail::merge_path_split(
                                     cuts[static_cast<std::size_t>(b)], m, n, ends);
                             });
  std::vector<vseg::detail::merge_block> blocks(cuts.size() - 1);
  for (std::size_t b = 0; b + 1 < points.size(); ++b) blocks[b] = {points[b], points[b + 1]};
  return blocks;
}

// out[j] = the fold of read(k) over local piece j, for consecutive whole
// pieces (consecutive_whole_pieces) of a flat expression whose piece j
// holds local elements [starts[j], starts[j + 1]) (n for the last): the
// single-node detail::fold_flat on merge blocks shifted to the global cuts,
// so the bits are the single-node fold's, with no per-piece placement read.
// Local. O(local elements + pieces).
template <class T, class Read, class Monoid>
array<T> fold_consecutive_flat(const placement& w, const segd& s, const Read& read, const Monoid& mon) {
  const std::int64_t m = s.segments(), n = s.elements();
  auto out = buffer<T>::for_overwrite(m);
  if (m == 0) return std::move(out).freeze();
  const std::int64_t* starts = s.starts().data();
  const auto ends = [starts, m, n](std::int64_t j) { return j + 1 < m ? starts[j + 1] : n; };
  // Global step of local element k of piece j: k + j + (global element of
  // local element 0) + (global segment of piece 0).
  const auto blocks = shifted_merge_blocks(m, n, w.starts[0] + w.ids[0], ends);
  const auto count = static_cast<std::int64_t>(blocks.size());
  vseg::detail::per_block<T> carry(count, mon.identity());
  T* o = out.data();
  vseg::detail::parallel_for(count, tuning::blocks_per_task, [&](std::int64_t lo, std::int64_t hi) {
    const Read r = read;  // a local copy: its pointers stay in registers
    for (std::int64_t b = lo; b < hi; ++b)
      carry[static_cast<std::size_t>(b)] =
          vseg::detail::fold_flat_block<T>(starts, m, n, blocks[static_cast<std::size_t>(b)], r, mon, o);
  });
  vseg::detail::merge_carries(blocks, m, carry, mon, [&](std::size_t b, const T& before) {
    const vseg::detail::merge_block& blk = blocks[b];
    if (blk.first.segment < blk.last.segment) o[blk.first.segment] = mon(before, o[blk.first.segment]);
  });
  return std::move(out).freeze();
}

// out[k] = the fold of the k-th piece this rank finishes (every piece but an
// open last one), over `pieces` pieces whose local elements are
// [starts(j), starts(j + 1)); fold_sub(j, a, b) folds elements [a, b) of
// piece j from the identity with fold_range_by. Collective under `split`
// (see above), local otherwise. O(local elements + pieces).
template <class T, class Monoid, class Starts, class FoldSub>
array<T> global_fold(const placement& w, std::int64_t pieces, const Starts& starts, const FoldSub& fold_sub,
                     const Monoid& mon) {
  const bool last_open = pieces > 0 && !w.last_is_end;
  const std::int64_t finished = pieces - (last_open ? 1 : 0);
  auto out = buffer<T>::for_overwrite(finished);
  std::vector<T> first_values, last_values;
  T* o = out.data();
  vseg::detail::parallel_for(pieces, [&](std::int64_t lo, std::int64_t hi) {
    std::vector<T> values;
    for (std::int64_t j = lo; j < hi; ++j) {
      const bool open = j == pieces - 1 && last_open;
      const std::int64_t first = starts(j), last = starts(j + 1);
      const bool alone = (j > 0 || w.first_is_start) && !open;
      if (alone && !crosses_block(w, j, first, last)) {  // the common case: one piece, no cut
        o[j] = fold_sub(j, first, last);
        continue;
      }
      const auto sub = [&](std::int64_t a, std::int64_t b) { return fold_sub(j, a, b); };
      sub_piece_values<T>(w, j, first, last, open, sub, values);
      if (j == 0 && !w.first_is_start) first_values = values;
      else if (open) last_values = values;
      if (!open && (j > 0 || w.first_is_start)) o[j] = combine_left(values.data(), values.size(), mon);
    }
  });
  if (!w.where.spec.splits_segments()) return std::move(out).freeze();

  // This rank finishes a segment begun elsewhere: its first piece, if closed.
  std::vector<T> chain = earlier_values(w, pieces, first_values, last_values);
  if (pieces > 0 && !w.first_is_start && !(pieces == 1 && last_open)) {
    chain.insert(chain.end(), first_values.begin(), first_values.end());
    o[0] = combine_left(chain.data(), chain.size(), mon);
  }
  return std::move(out).freeze();
}

// The exclusive scan of every piece into out (local elements), bit for bit
// the single-node scan_s: sub-piece i of a segment starts from the fold of
// the sub-pieces before it (combine_left of their grouped folds) and scans
// sequentially. fold_sub(j, a, b) folds local elements [a, b) of piece j;
// read(k) is local element k. Collective under `split`, local otherwise.
// O(local elements + pieces).
template <class T, class Monoid, class Starts, class FoldSub, class Read>
void global_scan(const placement& w, std::int64_t pieces, const Starts& starts, const FoldSub& fold_sub,
                 const Read& read, const Monoid& mon, T* out) {
  const bool last_open = pieces > 0 && !w.last_is_end;
  std::vector<T> first_values, last_values;
  if (w.where.spec.splits_segments()) {
    // The open pieces' sub-piece values first: the continuing piece needs them.
    for (std::int64_t j : {std::int64_t{0}, pieces - 1}) {
      if (j < 0 || pieces == 0) continue;
      const auto sub = [&](std::int64_t a, std::int64_t b) { return fold_sub(j, a, b); };
      const bool open = j == pieces - 1 && last_open;
      if (j == 0 && !w.first_is_start) sub_piece_values<T>(w, j, starts(j), starts(j + 1), open, sub, first_values);
      else if (open) sub_piece_values<T>(w, j, starts(j), starts(j + 1), open, sub, last_values);
    }
  }
  const std::vector<T> before = w.where.spec.splits_segments()
                                    ? earlier_values(w, pieces, first_values, last_values)
                                    : std::vector<T>{};
  vseg::detail::parallel_for(pieces, [&](std::int64_t lo, std::int64_t hi) {
    std::vector<T> values;
    for (std::int64_t j = lo; j < hi; ++j) {
      const bool open = j == pieces - 1 && last_open;
      const std::int64_t first = starts(j), last = starts(j + 1);
      const auto sub = [&](std::int64_t a, std::int64_t b) { return fold_sub(j, a, b); };
      sub_piece_values<T>(w, j, first, last, open, sub, values);
      // The running fold before each sub-piece: earlier ranks' values, then ours.
      std::vector<T> chain = j == 0 ? before : std::vector<T>{};
      constexpr std::int64_t step = tuning::segmented_block;
      const std::int64_t offset = w.starts[j] - first + w.ids[j];
      std::int64_t a = first;
      for (std::size_t i = 0; i < values.size(); ++i) {
        const std::int64_t next = std::min(last, ((a + offset) / step + 1) * step - offset);
        T acc = chain.empty() ? mon.identity() : combine_left(chain.data(), chain.size(), mon);
        for (std::int64_t k = a; k < next; ++k) {
          const T x = read(k);
          out[k] = acc;
          acc = mon(acc, x);
        }
        chain.push_back(values[i]);
        a = next;
      }
    }
  });
}

}  // namespace vseg::dist::detail
