// A 2D process mesh for matrix-shaped data (sharding::mesh): the ranks as an
// r x c MPI_Cart grid, rank (i, j) = i * c + j, with the communicators of its
// process row (the c ranks (i, *)) and its process column (the r ranks (*, j)).
//
// A matrix-shaped array on the mesh is row blocks x column blocks: rank
// (i, j) holds block A_ij, the rows of row block i restricted to column
// block j, as a distributed array over its process column (mesh_block). The
// whole array is the row blocks in process-row order, each row its slices
// in process-column order (a CSR matrix with sorted columns, cut at column
// block boundaries). mesh_block takes a block already cut; to_mesh_blocks
// (vseg/dist/mesh_blocks.hpp) makes the blocks from a matrix distributed 1D
// by rows, in one exchange. The lifted operations then run on it unchanged:
//
//   index_l(replicate(n, x), is)   x sharded over the process column: the
//                                  gather (expand) stays within the column
//   fold_s, sum_s                  in the order the block was made with
//                                  (mesh_fold, below), the rows finished on
//                                  the rank owning them
//
// mesh_fold::serial (the default) gives the bits of the single-node fold of
// the whole array for every mesh: each row's fold runs along the process
// row, rank (i, j) continuing it exactly where (i, j - 1) stopped
// (detail/mesh_chain.hpp). mesh_fold::column_blocks folds each block's rows
// on their own (the single-node fold of the column block's sub-array) and
// combines the partials of the blocks where the row is non-empty left to
// right by process column at the owner: fewer bytes and no chain, but bits
// that depend on the number of process columns. Either way the result does
// not depend on timing, and for c = 1 both are the single-node bits.
// The owner of row r of row block i (rows [a, b)) is rank (i, q) with r in
// part q of [a, b) cut in c equal parts.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "vseg/dist/datatype.hpp"
#include "vseg/dist/detail/collective_check.hpp"
#include "vseg/dist/detail/mesh_chain.hpp"
#include "vseg/dist/detail/placement.hpp"
#include "vseg/dist/nested.hpp"
#include "vseg/dist/sharding.hpp"

namespace vseg::dist {

class process_mesh {
 public:
  // Collective over comm: the mesh of a sharding::mesh spec, free dimensions
  // chosen by MPI_Dims_create. Throws std::invalid_argument on every rank if
  // the spec is not a mesh, a dimension is negative, the dimensions do not
  // fit the communicator's size, or the ranks ask for different meshes.
  // Cost: one MPI_Allreduce, MPI_Cart_create and two MPI_Cart_sub.
  process_mesh(const sharding& spec, MPI_Comm comm);
  ~process_mesh();
  process_mesh(const process_mesh&) = delete;
  process_mesh& operator=(const process_mesh&) = delete;

  // The resolved spec (both dimensions given), e.g. mesh{2x2}; O(1).
  const sharding& spec() const { return spec_; }
  // Dimensions and this rank's coordinates; O(1).
  int rows() const { return spec_.mesh_rows(); }
  int cols() const { return spec_.mesh_cols(); }
  int row() const { return row_; }
  int col() const { return col_; }
  // The whole mesh (MPI_Cart), this rank's process row (rank = col()) and
  // process column (rank = row()); owned by the mesh. O(1).
  MPI_Comm comm() const { return cart_; }
  MPI_Comm row_comm() const { return row_comm_; }
  MPI_Comm col_comm() const { return col_comm_; }

 private:
  sharding spec_;
  int row_ = 0;
  int col_ = 0;
  MPI_Comm cart_ = MPI_COMM_NULL;
  MPI_Comm row_comm_ = MPI_COMM_NULL;
  MPI_Comm col_comm_ = MPI_COMM_NULL;
};

// The order in which fold_s and sum_s on mesh blocks combine a row's
// elements (see the top of the file): the plain single-node fold's, or per
// column block then left to right over the blocks.
enum class mesh_fold { serial, column_blocks };

// "mesh_fold::serial" or "mesh_fold::column_blocks"; O(1).
std::string to_string(mesh_fold order);
inline std::ostream& operator<<(std::ostream& out, mesh_fold order) { return out << to_string(order); }

// Where part q of n items cut in `parts` equal parts starts: n * q / parts; O(1).
inline std::int64_t equal_part_start(std::int64_t n, std::int64_t parts, std::int64_t q) { return n * q / parts; }

namespace detail {

// The plan of the fold across a process row: which local rows' values go
// to which rank of the row, and which owned row each received value is;
// under mesh_fold::serial with several process columns also the chain
// that folds the rows along the process row first.
struct row_fold {
  std::shared_ptr<const process_mesh> mesh;
  mesh_fold order = mesh_fold::serial;
  std::shared_ptr<const row_chain> chain;  // set for mesh_fold::serial on c > 1 process columns
  std::int64_t owned = 0;  // rows this rank owns (part col() of its row block)
  std::vector<std::int64_t> send_rows;  // local rows sent, by destination then row
  std::vector<std::int64_t> recv_rows;  // per received value its owned row, by source then row
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
};

// Collective over the mesh: the row-fold plan of a block whose local rows
// have the given lengths. column_blocks sends a row's partial where the row
// is non-empty; serial plans the chain (each row's global merge step and
// this rank's offset in it) and sends a non-empty row from the rank
// finishing it.
// Throws std::invalid_argument on every rank if the ranks of a process row
// hold different numbers of rows. Cost: O(rows); one MPI_Allgather and one
// MPI_Alltoall on the row, one MPI_Allreduce on the mesh, one MPI_Alltoallv;
// serial adds one MPI_Allreduce and one MPI_Exscan on the row and one
// MPI_Exscan on the column.
std::shared_ptr<const row_fold> plan_row_fold(std::shared_ptr<const process_mesh> mesh,
                                              const array<std::int64_t>& lengths, mesh_fold order);

// The rows this rank owns, each the left-to-right fold over the process
// columns of the values the plan sends for it (column_blocks: the partials
// of the blocks where the row is non-empty, the identity where it is empty
// everywhere; serial: the one finished row, the identity for an empty
// one). Collective over the process
// row: one MPI_Alltoallv. O(rows + received values).
template <class T, class Monoid>
array<T> fold_across(const row_fold& plan, const array<T>& partials, const Monoid& mon) {
  // A process row of one rank owns all its rows, and an empty row's partial
  // is already the identity: nothing to send or combine (no MPI call).
  if (plan.mesh->cols() == 1) return partials;
  auto send = buffer<T>::for_overwrite(static_cast<std::int64_t>(plan.send_rows.size()));
  auto received = buffer<T>::for_overwrite(static_cast<std::int64_t>(plan.recv_rows.size()));
  for (std::size_t k = 0; k < plan.send_rows.size(); ++k) send[static_cast<std::int64_t>(k)] = partials[plan.send_rows[k]];
  check_mpi(MPI_Alltoallv(send.data(), plan.send_counts.data(), plan.send_displs.data(), datatype<T>(),
                          received.data(), plan.recv_counts.data(), plan.recv_displs.data(), datatype<T>(),
                          plan.mesh->row_comm()),
            "MPI_Alltoallv");
  auto out = buffer<T>::for_overwrite(plan.owned);
  if (plan.chain) {  // serial: each non-empty owned row comes finished from exactly one rank
    std::fill(out.data(), out.data() + plan.owned, mon.identity());
    for (std::size_t k = 0; k < plan.recv_rows.size(); ++k)
      out[plan.recv_rows[k]] = received[static_cast<std::int64_t>(k)];
    return std::move(out).freeze();
  }
  std::vector<char> seen(static_cast<std::size_t>(plan.owned), 0);
  for (std::size_t k = 0; k < plan.recv_rows.size(); ++k) {
    const auto r = static_cast<std::size_t>(plan.recv_rows[k]);
    const T& value = received[static_cast<std::int64_t>(k)];
    out[plan.recv_rows[k]] = seen[r] ? mon(out[plan.recv_rows[k]], value) : value;
    seen[r] = 1;
  }
  for (std::int64_t r = 0; r < plan.owned; ++r)
    if (!seen[static_cast<std::size_t>(r)]) out[r] = mon.identity();
  return std::move(out).freeze();
}

}  // namespace detail

// Collective over the mesh: this rank's block A_ij of a matrix-shaped array
// (one segment per row of row block i, empty rows included, holding the
// row's entries in column block j) as a distributed array over the process
// column, whose fold_s and sum_s finish across the process row in the given
// order (see above). The blocks are kept (no element copied). Throws
// std::invalid_argument on every rank if a block's virtual segments are not
// its physical ones, the ranks ask for different orders, or the ranks of a
// process row hold different numbers of rows. Cost: O(rows); one
// MPI_Allreduce, and the collectives of nested::from_local and plan_row_fold.
template <mpi_item T>
nested<T> mesh_block(const vseg::nested<T>& block, std::shared_ptr<const process_mesh> mesh,
                     mesh_fold order = mesh_fold::serial) {
  int rank = 0;
  MPI_Comm_rank(mesh->comm(), &rank);
  detail::error_collector errs("dist::mesh_block", rank);
  if (!block.descriptor().identity())
    errs.invalid("the block's virtual segments are not its physical segments (cull it first)");
  if (order != mesh_fold::serial && order != mesh_fold::column_blocks)
    errs.invalid("unknown fold order ", static_cast<int>(order));
  detail::agree(mesh->comm(), errs, 0, {{"the fold order", static_cast<std::int64_t>(order)}});
  auto plan = detail::plan_row_fold(mesh, block.physical_lengths(), order);
  auto column = nested<T>::from_local(block, mesh->col_comm());
  auto where = std::make_shared<detail::placement>(*detail::nested_access::where(column));
  where->across = std::move(plan);
  return detail::nested_access::make<T>(std::move(where), column.pieces(), column);
}

}  // namespace vseg::dist
