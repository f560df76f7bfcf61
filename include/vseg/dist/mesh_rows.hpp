// From the blocks of a 2D process mesh back to a matrix distributed 1D by
// rows: the way back of to_mesh_blocks (vseg/dist/mesh_blocks.hpp).
//
//   auto [c, v] = to_mesh_blocks(cols, vals, mesh, row_cuts, column_cuts);
//   auto [rows_c, rows_v] = from_mesh_blocks(c, v, column_cuts, comm);
//
// Row R of row block i (rows [a, b)) goes to the rank that owns it in the
// mesh's folds: rank (i, q), R in part q of [a, b) cut in c equal parts
// (equal_part_start), so the 1D rows line up with what sum_s on the blocks
// returns. Each row's entries are its slices in process-column order, the
// columns renumbered back to global (+ column_cuts[j]): for rows whose
// columns are sorted (CSR), from_mesh_blocks(to_mesh_blocks(A)) is A row for
// row; in general each row's entries are stably partitioned by column block.
// The entries move within each process row only: rank (i, j) sends each of
// its rows' slices, in one message per rank of its process row, with 8
// bytes a row for the slice's length.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "vseg/dist/detail/collective_check.hpp"
#include "vseg/dist/detail/exchange.hpp"
#include "vseg/dist/mesh.hpp"
#include "vseg/dist/mesh_blocks.hpp"
#include "vseg/dist/nested.hpp"

namespace vseg::dist {

// A matrix distributed 1D by rows: one segment per row, on every rank the
// same rows in cols (global column indices) and vals.
template <class I, class T>
struct row_matrix {
  nested<I> cols;
  nested<T> vals;
};

// Collective over `comm` (the mesh's ranks in the mesh's order, e.g. the
// communicator the mesh was built over): the rows of the matrix whose mesh
// blocks are cols and vals (as to_mesh_blocks or mesh_block make them), one
// segment per row, on the rank owning the row (see the top of the file),
// spec offsets{...}. Throws on every rank (the same exception) if cols or
// vals is not a mesh block, they differ in shape, comm does not hold the
// mesh's ranks in order, the column cuts do not run from 0 in
// mesh.cols() non-decreasing blocks or differ between ranks
// (std::invalid_argument), or a local column is outside its column block
// (std::out_of_range). Cost: O(local rows * c + local entries + received
// rows and entries); one MPI_Allreduce on comm, one MPI_Alltoall and one
// exchange on the process row, and nested::from_local's collectives.
template <std::integral I, mpi_item T>
row_matrix<I, T> from_mesh_blocks(const nested<I>& cols, const nested<T>& vals,
                                  std::span<const std::int64_t> column_cuts, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  detail::error_collector errs("dist::from_mesh_blocks", rank);
  const auto& cw = detail::nested_access::where(cols);
  const auto& vw = detail::nested_access::where(vals);
  const std::shared_ptr<const process_mesh> mesh = cw->across ? cw->across->mesh : nullptr;
  const auto [lengths, indices] = detail::nested_access::contiguous(cols);
  const auto [value_lengths, values] = detail::nested_access::contiguous(vals);
  std::int64_t c = 1;
  if (!mesh || !vw->across || vw->across->mesh != mesh || !cols.identity_virtual() || !vals.identity_virtual()) {
    errs.invalid("cols and vals must be blocks of one process mesh (to_mesh_blocks or mesh_block)");
  } else {
    c = mesh->cols();
    int same = MPI_UNEQUAL;
    MPI_Comm_compare(comm, mesh->comm(), &same);
    if (same != MPI_IDENT && same != MPI_CONGRUENT)
      errs.invalid("the communicator does not hold the mesh's ranks in the mesh's order");
    else if (!std::equal(lengths.begin(), lengths.end(), value_lengths.begin(), value_lengths.end()))
      errs.invalid("cols and vals have different rows on this rank (", lengths.size(), " and ",
                   value_lengths.size(), " rows, or different lengths)");
  }
  const std::int64_t columns = column_cuts.empty() ? 0 : column_cuts.back();
  if (!errs.failed()) detail::check_cuts_into(errs, "column_cuts", column_cuts, c, columns, "the columns");
  if (!errs.failed() && columns - 1 > static_cast<std::int64_t>(std::numeric_limits<I>::max()))
    errs.invalid("column_cuts end at ", columns, ", past the column type's maximum");
  const std::int64_t j = errs.failed() ? 0 : mesh->col();
  const std::int64_t lo = errs.failed() ? 0 : column_cuts[static_cast<std::size_t>(j)];
  const std::int64_t width = errs.failed() ? 0 : column_cuts[static_cast<std::size_t>(j) + 1] - lo;
  for (std::int64_t e = 0; !errs.failed() && e < indices.size(); ++e)
    if (indices[e] < 0 || static_cast<std::int64_t>(indices[e]) >= width)
      errs.out_of_range("entry ", e, " has local column ", +indices[e], ", outside column block ", j, "'s [0, ",
                        width, ")");
  std::vector<std::int64_t> agreed(static_cast<std::size_t>(c) + 1, -1);
  if (!errs.failed()) std::copy(column_cuts.begin(), column_cuts.end(), agreed.begin());
  detail::agree(comm, errs, 0, {{"the process columns", c}}, {"column_cuts", agreed});

  // Per rank q of the process row: the local rows it owns, [first[q], first[q + 1]).
  const std::int64_t rows = lengths.size();
  std::vector<std::int64_t> first(static_cast<std::size_t>(c) + 1);
  for (std::int64_t q = 0; q <= c; ++q) first[static_cast<std::size_t>(q)] = equal_part_start(rows, c, q);
  std::vector<std::int64_t> row_start(static_cast<std::size_t>(rows) + 1, 0);
  for (std::int64_t k = 0; k < rows; ++k) row_start[static_cast<std::size_t>(k) + 1] = row_start[k] + lengths[k];
  constexpr std::int64_t entry_bytes = sizeof(I) + sizeof(T), header = sizeof(std::int64_t);
  const auto n = static_cast<std::size_t>(c);
  std::vector<std::int64_t> send_counts(n), send_displs(n, 0), recv_counts(n), recv_displs(n, 0);
  for (std::size_t q = 0; q < n; ++q)
    send_counts[q] = (first[q + 1] - first[q]) * header + (row_start[first[q + 1]] - row_start[first[q]]) * entry_bytes;
  const MPI_Comm row_comm = mesh->row_comm();
  detail::check_mpi(MPI_Alltoall(send_counts.data(), 1, MPI_INT64_T, recv_counts.data(), 1, MPI_INT64_T, row_comm),
                    "MPI_Alltoall");
  for (std::size_t q = 1; q < n; ++q) {
    send_displs[q] = send_displs[q - 1] + send_counts[q - 1];
    recv_displs[q] = recv_displs[q - 1] + recv_counts[q - 1];
  }
  // Pack, per owner: its rows' slice lengths, the slices' global columns, their values.
  std::vector<char> send(static_cast<std::size_t>(send_displs[n - 1] + send_counts[n - 1]));
  for (std::size_t q = 0; q < n; ++q) {
    char* out = send.data() + send_displs[q];
    for (std::int64_t k = first[q]; k < first[q + 1]; ++k, out += header) std::memcpy(out, &lengths[k], header);
    for (std::int64_t e = row_start[first[q]]; e < row_start[first[q + 1]]; ++e, out += sizeof(I)) {
      const I global = static_cast<I>(static_cast<std::int64_t>(indices[e]) + lo);
      std::memcpy(out, &global, sizeof(I));
    }
    const std::int64_t entries = row_start[first[q + 1]] - row_start[first[q]];
    if (entries > 0) std::memcpy(out, &values[row_start[first[q]]], static_cast<std::size_t>(entries) * sizeof(T));
  }
  const std::int64_t recv_total = recv_displs[n - 1] + recv_counts[n - 1];
  std::vector<char> received(static_cast<std::size_t>(recv_total));
  detail::alltoallv(send.data(), {send_counts, send_displs}, received.data(), {recv_counts, recv_displs}, MPI_BYTE,
                    detail::agree_extent(std::max<std::int64_t>(static_cast<std::int64_t>(send.size()), recv_total),
                                         row_comm),
                    row_comm);
  send = {};

  // Unpack: row k of the owned ones is the slices of sources 0..c-1, in order.
  const std::int64_t owned = first[static_cast<std::size_t>(j) + 1] - first[static_cast<std::size_t>(j)];
  const std::int64_t entries = (recv_total - static_cast<std::int64_t>(n) * owned * header) / entry_bytes;
  auto out_lengths = buffer<std::int64_t>::for_overwrite(owned);
  std::vector<std::int64_t> slice(n * static_cast<std::size_t>(owned)), slice_at(n);  // per source, per row
  for (std::int64_t k = 0; k < owned; ++k) out_lengths[k] = 0;
  for (std::size_t s = 0; s < n; ++s) {
    std::int64_t total = 0;
    for (std::int64_t k = 0; k < owned; ++k) {
      std::int64_t len = 0;
      std::memcpy(&len, received.data() + recv_displs[s] + k * header, header);
      slice[s * static_cast<std::size_t>(owned) + static_cast<std::size_t>(k)] = len;
      out_lengths[k] += len;
      total += len;
    }
    slice_at[s] = total;  // the source's entry count, for where its values start
  }
  auto out_cols = buffer<I>::for_overwrite(entries);
  auto out_vals = buffer<T>::for_overwrite(entries);
  std::vector<std::int64_t> read(n, 0);  // entries of source s consumed
  for (std::int64_t k = 0, at = 0; k < owned; ++k)
    for (std::size_t s = 0; s < n; ++s) {
      const std::int64_t len = slice[s * static_cast<std::size_t>(owned) + static_cast<std::size_t>(k)];
      if (len == 0) continue;
      const char* base = received.data() + recv_displs[s] + owned * header;
      std::memcpy(&out_cols[at], base + read[s] * static_cast<std::int64_t>(sizeof(I)),
                  static_cast<std::size_t>(len) * sizeof(I));
      std::memcpy(&out_vals[at], base + slice_at[s] * static_cast<std::int64_t>(sizeof(I)) + read[s] * sizeof(T),
                  static_cast<std::size_t>(len) * sizeof(T));
      read[s] += len;
      at += len;
    }
  const array<std::int64_t> row_lengths = std::move(out_lengths).freeze();
  return {nested<I>::from_local(vseg::nested<I>::from_lengths(row_lengths, std::move(out_cols).freeze()), comm),
          nested<T>::from_local(vseg::nested<T>::from_lengths(row_lengths, std::move(out_vals).freeze()), comm)};
}

}  // namespace vseg::dist
