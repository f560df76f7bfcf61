// Sharding specs: how the segments of a distributed nested array map onto the
// ranks, as declarative values separate from the data (JAX's ShardingSpec).
// A spec is printable (to_string, operator<<) and comparable (==); applying
// it to a shape gives a layout, the concrete offsets every rank agrees on.
//
//   block        contiguous blocks of equal segment counts (the first
//                M % p ranks one more)
//   balanced     contiguous blocks of about N / p elements each, cut at
//                segment starts (a segment is never split)
//   cyclic       segment J on rank J % p
//   offsets{..}  contiguous blocks at the given segment offsets (p + 1 of them)
//   split        contiguous ranges of the merge of elements and segment ends,
//                cut at the fixed blocks of tuning::segmented_block steps that
//                the single-node fold uses: a giant segment is split across
//                ranks by elements, and a fold combines its pieces as the
//                single-node fold does (same bits)
//   replicated   every rank holds every segment
//   mesh{r x c}  a 2D process mesh for matrix-shaped data: row blocks x
//                column blocks over an r x c MPI_Cart communicator (a
//                dimension given as 0 is chosen by MPI_Dims_create); it is
//                not a layout of segments (reshard rejects it) but the spec
//                of a process_mesh (vseg/dist/mesh.hpp)
//
// A layout for the contiguous kinds is the merge point (J_r, E_r) where rank
// r starts: it finishes the segments [J_r, J_{r+1}) and holds the elements
// [E_r, E_{r+1}); with `split` its first segment may have begun on an earlier
// rank and its last piece may continue on the next one.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace vseg::dist {

class sharding {
 public:
  enum class kind { block, balanced, cyclic, offsets, split, replicated, mesh };

  // The specs; O(1) except offsets, O(offsets).
  static sharding block() { return sharding(kind::block); }
  static sharding balanced() { return sharding(kind::balanced); }
  static sharding cyclic() { return sharding(kind::cyclic); }
  static sharding split() { return sharding(kind::split); }
  static sharding replicated() { return sharding(kind::replicated); }
  static sharding offsets(std::vector<std::int64_t> segment_offsets) {
    sharding s(kind::offsets);
    s.offsets_ = std::move(segment_offsets);
    return s;
  }
  // A process_rows x process_cols mesh; 0 leaves a dimension to
  // MPI_Dims_create (mesh() = mesh(0, 0): both chosen). O(1).
  static sharding mesh(int process_rows = 0, int process_cols = 0) {
    sharding s(kind::mesh);
    s.mesh_rows_ = process_rows;
    s.mesh_cols_ = process_cols;
    return s;
  }

  // Which spec this is, and the explicit offsets (empty unless offsets); O(1).
  kind type() const { return kind_; }
  std::span<const std::int64_t> explicit_offsets() const { return offsets_; }
  // The mesh dimensions asked for (0 = free; both 0 unless mesh); O(1).
  int mesh_rows() const { return mesh_rows_; }
  int mesh_cols() const { return mesh_cols_; }
  // Whether each rank holds one contiguous range of the global order; O(1).
  bool contiguous() const { return kind_ != kind::cyclic && kind_ != kind::replicated && kind_ != kind::mesh; }
  // Whether a segment can be split between ranks; O(1).
  bool splits_segments() const { return kind_ == kind::split; }

  // "block", "balanced", "cyclic", "offsets{0,3,7}", "split", "replicated",
  // "mesh{2x3}" ("mesh{*x*}" for free dimensions); O(offsets).
  std::string to_string() const;
  friend bool operator==(const sharding&, const sharding&) = default;
  friend std::ostream& operator<<(std::ostream& out, const sharding& s) { return out << s.to_string(); }

 private:
  explicit sharding(kind k) : kind_(k) {}
  kind kind_ = kind::block;
  std::vector<std::int64_t> offsets_;
  int mesh_rows_ = 0;
  int mesh_cols_ = 0;
};

// The concrete placement of M segments and N elements under a spec, the same
// on every rank. For contiguous specs first_segment and first_element have
// nranks + 1 entries (the merge points above); for cyclic and replicated
// they are empty.
struct shard_layout {
  sharding spec = sharding::block();
  std::int64_t segments = 0;
  std::int64_t elements = 0;
  std::vector<std::int64_t> first_segment;
  std::vector<std::int64_t> first_element;

  // "split over 4 ranks: segments {0,1,1,2,3}, elements {...}"; O(nranks).
  std::string to_string() const;
  friend bool operator==(const shard_layout&, const shard_layout&) = default;
  friend std::ostream& operator<<(std::ostream& out, const shard_layout& l) { return out << l.to_string(); }
};

namespace detail {

// What a rank knows of a contiguous source's shape: its own segments, as the
// global id and global element range of each local piece.
struct local_shape {
  std::int64_t segments = 0;  // M, global
  std::int64_t elements = 0;  // N, global
  std::span<const std::int64_t> ids;     // global segment of each local piece
  std::span<const std::int64_t> starts;  // global element of each piece's first element
  std::span<const std::int64_t> ends;    // global element one past each piece
  // Whether the first piece begins its segment / the last piece ends it.
  bool first_is_start = true;
  bool last_is_end = true;
};

// Collective: the layout of `spec` over the shape every rank describes in
// `here`. Throws std::invalid_argument on every rank for offsets of the wrong
// size or out of order. Cost: O(local pieces * log nranks + nranks); one
// MPI_Allreduce of 2 * (nranks + 1) integers (none for cyclic, replicated).
shard_layout plan_layout(const sharding& spec, const local_shape& here, MPI_Comm comm);

}  // namespace detail

}  // namespace vseg::dist
