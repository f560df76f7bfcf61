// dist::pack: the segments whose flag is true, optionally rebalanced. A
// lifted operation (vseg/dist/lifted.hpp, which includes this header).
//
// On an array sharded with `split` a segment's pieces may lie on several
// ranks, so
//   1. the ranks check that every piece of a segment carries the same flag
//      (one MPI_Allgather of each rank's first and last piece and its kept
//      counts; every rank finds the same first mismatch and throws it);
//   2. the kept pieces stay where they are, renumbered: a kept segment's id
//      is the number of kept segments that begin before it, its elements
//      follow the kept elements of the ranks before (the same allgather);
//   3. that packed array, whose cuts are the old ones, is resharded to
//      `split` over its own shape (the cuts the single-node fold uses, so
//      fold_s/scan_s keep their single-node bits), or to `balanced` with
//      rebalance::yes. Only the elements whose rank changes move. (Keeping
//      the old cuts would need a layout that is no spec, and the folds'
//      bits rely on split's cuts.)
//
// On an array seen through vsegids (replicated or expanded, any spec) the
// flags are one per virtual segment, as for the core vseg::pack and DPH's
// packs on virtual segments: the result keeps the physical segments (the
// pieces, shared) and the flagged vsegids. No element is copied and
// nothing is sent but the flag counts' agreement (one MPI_Allreduce).
// rebalance::yes there means: take_v first, then rebalance. The kept
// virtual segments become segments of their own (a segment kept twice is
// copied twice; the pieces are first resharded to balanced, vsegids kept,
// under the specs take_v does not read: cyclic, split, replicated), in
// their global virtual order, resharded to `balanced`.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "vseg/dist/lifted.hpp"
#include "vseg/dist/nested.hpp"
#include "vseg/nested.hpp"

namespace vseg::dist::detail {

// What each rank tells the others about its pieces and flags.
struct pack_summary {
  std::int64_t pieces, first_id, first_flag, first_is_start, last_flag, kept_begun, kept_finished, kept_elements;
};

// Collective: the flagged segments of a `split` array (flags: one per local
// piece, the same for every piece of a segment), resharded to `target`
// (split, or balanced to rebalance). Throws std::invalid_argument on every rank
// when two pieces of a segment carry different flags. Cost: O(local
// elements + pieces + nranks); one MPI_Allgather, then the reshard's plan
// (the target layout, one lookup and one take of the moved elements).
template <class T>
nested<T> pack_split(const nested<T>& xs, const array<bool>& flags, const sharding& target) {
  const placement& w = *nested_access::where(xs);
  const int t = w.rank, p = w.nranks;
  const vseg::nested<T>& pieces = xs.pieces();
  const std::int64_t n = pieces.size();
  const auto begins = [&](std::int64_t k) { return k > 0 || w.first_is_start; };
  const auto ends = [&](std::int64_t k) { return k + 1 < n || w.last_is_end; };

  // 1. Every rank's summary, and the same check everywhere.
  pack_summary mine{n, n > 0 ? w.ids[0] : -1, n > 0 && flags[0], w.first_is_start, n > 0 && flags[n - 1], 0, 0, 0};
  for (std::int64_t k = 0; k < n; ++k)
    if (flags[k]) {
      mine.kept_begun += begins(k);
      mine.kept_finished += ends(k);
      mine.kept_elements += static_cast<std::int64_t>(pieces[k].size());
    }
  constexpr int fields = sizeof(pack_summary) / sizeof(std::int64_t);
  std::vector<pack_summary> all(static_cast<std::size_t>(p));
  check_mpi(MPI_Allgather(&mine, fields, MPI_INT64_T, all.data(), fields, MPI_INT64_T, w.comm), "MPI_Allgather");
  int previous = -1;  // the last rank before r holding a piece
  for (int r = 0; r < p; ++r) {
    if (all[r].pieces == 0) continue;
    // A first piece that continues a segment continues the previous holder's last piece.
    if (!all[r].first_is_start && previous >= 0 && all[previous].last_flag != all[r].first_flag)
      vseg::detail::throw_invalid("dist::pack", "segment ", all[r].first_id, " is split between ranks ", previous,
                                  " and ", r, ", whose flags for it differ (", all[previous].last_flag != 0, " and ",
                                  all[r].first_flag != 0, ")");
    previous = r;
  }

  // 2. The kept pieces, renumbered, on a placement of their own.
  auto packed = std::make_shared<placement>();
  packed->comm = w.comm;
  packed->rank = t;
  packed->nranks = p;
  std::vector<std::int64_t> first_segment(static_cast<std::size_t>(p) + 1, 0), first_element(first_segment);
  std::int64_t begun_before = 0;
  for (int r = 0; r < p; ++r) {
    first_segment[r + 1] = first_segment[r] + all[r].kept_finished;
    first_element[r + 1] = first_element[r] + all[r].kept_elements;
    if (r < t) begun_before += all[r].kept_begun;
  }
  const vseg::nested<T> kept = vseg::pack(pieces, flags).cull();
  auto ids = buffer<std::int64_t>::for_overwrite(kept.size());
  auto starts = buffer<std::int64_t>::for_overwrite(kept.size());
  std::int64_t at = first_element[t], next_id = begun_before, out = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    if (!flags[k]) continue;
    if (out == 0) packed->first_is_start = begins(k);
    packed->last_is_end = ends(k);
    // A continued piece belongs to the last kept segment begun before it.
    ids[out] = begins(k) ? next_id++ : next_id - 1;
    starts[out] = at;
    at += static_cast<std::int64_t>(pieces[k].size());
    ++out;
  }
  // Labelled offsets (never split, so reshard to split or balanced always
  // plans); its shape hash is never compared: the array only feeds reshard.
  packed->where = shard_layout{sharding::offsets(first_segment), first_segment.back(), first_element.back(),
                               first_segment, first_element};
  packed->ids = std::move(ids).freeze();
  packed->starts = std::move(starts).freeze();
  const auto local = vseg::nested<T>::from_vsegd_unchecked({kept.blocks().begin(), kept.blocks().end()},
                                                           vsegd::identity(kept.descriptor().scattered()));
  const nested<T> in_place = nested_access::make<T>(std::move(packed), local, xs);

  // 3. The target's cuts of the packed shape.
  return in_place.reshard(target);
}

// The kept virtual segments of `packed` (seen through vsegids) as segments
// of their own, in global virtual order, resharded to balanced. Collective.
// Cost: O(their elements); a reshard of the pieces to balanced unless the
// spec has whole segments in contiguous blocks, one global_indexer build
// and one take_v of the segments, from_segments' collectives, then the
// balanced reshard's plan and take.
template <class T>
nested<T> take_then_balance(const nested<T>& packed) {
  const sharding& spec = packed.spec();
  const bool whole_blocks = spec.contiguous() && !spec.splits_segments();
  // The vsegids survive the reshard: they name global segments, which no spec renumbers.
  const nested<T> source = whole_blocks ? packed : packed.reshard(sharding::balanced());
  return nested<T>::from_segments(source.take_physical(source.vsegids()), packed.comm())
      .reshard(sharding::balanced());
}

// Collective: the virtual segments of xs (seen through vsegids) whose flag
// is true (one flag per local virtual segment): the pieces shared, the
// flagged vsegids kept. Throws std::invalid_argument on every rank if a
// rank's flag count is not its number of virtual segments. Cost: one
// MPI_Allreduce (the agreement); O(virtual segments).
template <class T>
nested<T> pack_virtual(const nested<T>& xs, const array<bool>& flags) {
  error_collector errs("dist::pack", nested_access::where(xs)->rank);
  if (flags.size() != xs.local_virtual_size())
    errs.invalid("flags has size ", flags.size(), " but this rank has ", xs.local_virtual_size(),
                 " virtual segments (its vsegids were replicated or expanded: one flag per virtual segment)");
  agree(xs.comm(), errs);
  std::vector<std::int64_t> kept;
  for (std::int64_t k = 0; k < flags.size(); ++k)
    if (flags[k]) kept.push_back(xs.vsegids()[static_cast<std::size_t>(k)]);
  return nested_access::with_vsegids(xs, std::move(kept));
}

}  // namespace vseg::dist::detail

namespace vseg::dist {

// Collective: the virtual segments whose flag is true (flags: one per local
// piece). Whole segments stay where they are (the new placement: one
// MPI_Allgather, one MPI_Allreduce; O(local segments)), and rebalance::yes
// reshards them to `balanced`. Under `split` (every piece of a segment
// flagged alike) the result is resharded to split over the packed shape, or
// to balanced with rebalance::yes (pack_split above; O(local elements)).
// Seen through vsegids (any spec): one flag per virtual segment, the
// flagged vsegids kept over the same pieces (one MPI_Allreduce; O(virtual
// segments)), or with rebalance::yes taken and balanced (take_then_balance).
enum class rebalance { no, yes };
template <class T>
nested<T> pack(const nested<T>& xs, const array<bool>& flags, rebalance again = rebalance::no) {
  if (!xs.identity_virtual()) {
    nested<T> packed = detail::pack_virtual(xs, flags);
    return again == rebalance::yes ? detail::take_then_balance(packed) : packed;
  }
  if (!xs.spec().contiguous())
    vseg::detail::throw_invalid("dist::pack", "needs segments in contiguous blocks, not ", xs.spec());
  detail::error_collector errs("dist::pack", detail::nested_access::where(xs)->rank);
  if (flags.size() != xs.pieces().size())
    errs.invalid("flags has size ", flags.size(), " but this rank holds ", xs.pieces().size(), " pieces");
  detail::agree(xs.comm(), errs);
  if (xs.spec().splits_segments())
    return detail::pack_split(xs, flags, again == rebalance::yes ? sharding::balanced() : sharding::split());
  // The kept segments as pieces of their own (culled, identity): no element copied.
  const vseg::nested<T> packed = vseg::pack(xs.pieces(), flags).cull();
  auto kept = nested<T>::from_local(
      vseg::nested<T>::from_vsegd_unchecked({packed.blocks().begin(), packed.blocks().end()},
                                            vsegd::identity(packed.descriptor().scattered())),
      xs.comm());
  return again == rebalance::yes ? kept.reshard(sharding::balanced()) : kept;
}

}  // namespace vseg::dist
