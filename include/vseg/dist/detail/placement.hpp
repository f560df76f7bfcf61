// Where a distributed nested array's data lies: the layout every rank agrees
// on, and this rank's pieces (a piece is a whole segment, or under the
// `split` spec part of one). Arrays derived by local operations (map,
// zip_with) share their placement object, so comparing two arrays'
// placements is usually one pointer comparison.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/dist/sharding.hpp"

namespace vseg::dist::detail {

// The plan that finishes a fold across a process mesh's row (vseg/dist/mesh.hpp).
struct row_fold;

struct placement {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int nranks = 1;
  shard_layout where;
  // Per local piece: its global segment and the global element of its first
  // element (its length is that of the local physical segment).
  array<std::int64_t> ids;
  array<std::int64_t> starts;
  // Whether the first piece begins its segment and the last piece ends it
  // (false only under `split`, for a segment shared with a neighbour rank).
  bool first_is_start = true;
  bool last_is_end = true;
  // A hash of every (segment, piece length), summed over the ranks: two
  // arrays with equal layouts and equal hashes have the same shape, which
  // every rank can tell without a message.
  std::uint64_t shape_hash = 0;
  // Set on a block of a 2D process mesh (mesh_block): fold_s and sum_s
  // finish each row across the process row with this plan.
  std::shared_ptr<const row_fold> across;
};

// Whether two placements put the same pieces on the same ranks: the same
// global shape, layout offsets and kind of placement; O(nranks).
inline bool same_placement(const placement& a, const placement& b) {
  if (&a == &b) return true;
  const bool kinds = a.where.spec.contiguous() == b.where.spec.contiguous() &&
                     (a.where.spec.contiguous() || a.where.spec == b.where.spec);
  const bool same_mesh = (a.across == nullptr) == (b.across == nullptr);
  return kinds && same_mesh && a.where.segments == b.where.segments && a.where.elements == b.where.elements &&
         a.where.first_segment == b.where.first_segment && a.where.first_element == b.where.first_element &&
         a.shape_hash == b.shape_hash;
}

// Where each rank's segments start under `cyclic` (rank r holds the
// segments r, r + p, ...: ceil((M - r) / p) of them), p + 1 offsets; O(p).
inline std::vector<std::int64_t> cyclic_offsets(std::int64_t segments, int nranks) {
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(nranks) + 1, 0);
  for (int r = 0; r < nranks; ++r)
    offsets[r + 1] = offsets[r] + (segments > r ? (segments - r + nranks - 1) / nranks : 0);
  return offsets;
}

// The hash of one piece (its global segment and length); O(1).
inline std::uint64_t piece_hash(std::int64_t id, std::int64_t length) {
  std::uint64_t x = static_cast<std::uint64_t>(id) * 0x9e3779b97f4a7c15ULL ^ static_cast<std::uint64_t>(length);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

}  // namespace vseg::dist::detail
