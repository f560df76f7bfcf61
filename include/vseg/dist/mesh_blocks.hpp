// From a 1D row distribution to the blocks of a 2D process mesh: the
// reshard between a matrix held by rows (one segment per row, entries its
// global column indices, as dist_spmv::distribute or reshard(balanced) make
// it) and the mesh blocks of vseg/dist/mesh.hpp, without any rank holding
// the whole matrix.
//
//   auto mesh = std::make_shared<const process_mesh>(sharding::mesh(), comm);
//   auto [c, v] = to_mesh_blocks(cols, vals, mesh, row_cuts, column_cuts);
//
// Rank (i, j) gets A_ij: the rows [row_cuts[i], row_cuts[i+1]) (one segment
// each, empty rows included) restricted to the columns [column_cuts[j],
// column_cuts[j+1]), renumbered from column_cuts[j], each row's entries in
// their order in the 1D array. The entries move in one exchange over the
// mesh: every 1D rank sends to rank (i, j), in one message, the lengths in
// column block j of its rows of row block i (8 bytes a row), then those
// entries' columns and values; a rank sends to the c ranks of each row
// block its rows meet, empty rows included, so at most
// (row blocks met) * c messages a rank.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "vseg/dist/detail/collective_check.hpp"
#include "vseg/dist/detail/exchange.hpp"
#include "vseg/dist/mesh.hpp"
#include "vseg/dist/nested.hpp"

namespace vseg::dist {

// A matrix on a process mesh: this rank's block's columns and values.
template <class I, class T>
struct mesh_matrix {
  nested<I> cols;
  nested<T> vals;
};

namespace detail {

// The block of `cuts` holding item x (cuts[b] <= x < cuts[b + 1]); O(log blocks).
inline std::int64_t block_holding(std::span<const std::int64_t> cuts, std::int64_t x) {
  return std::upper_bound(cuts.begin(), cuts.end(), x) - cuts.begin() - 1;
}

// Records an error unless `cuts` has blocks + 1 entries from 0 to `total`,
// never decreasing; O(blocks).
inline void check_cuts_into(error_collector& errs, const char* name, std::span<const std::int64_t> cuts,
                            std::int64_t blocks, std::int64_t total, const char* total_name) {
  if (static_cast<std::int64_t>(cuts.size()) != blocks + 1)
    return errs.invalid(name, " has ", cuts.size(), " entries, not ", blocks + 1, " (one more than the mesh's ",
                        name[0] == 'r' ? "process rows" : "process columns", ")");
  if (cuts.front() != 0) return errs.invalid(name, "[0] is ", cuts.front(), ", not 0");
  if (cuts.back() != total)
    return errs.invalid(name, "[", blocks, "] is ", cuts.back(), ", not ", total_name, " ", total);
  for (std::int64_t b = 0; b < blocks; ++b)
    if (cuts[static_cast<std::size_t>(b) + 1] < cuts[static_cast<std::size_t>(b)])
      return errs.invalid(name, "[", b + 1, "] is ", cuts[static_cast<std::size_t>(b) + 1], ", below ", name, "[", b,
                          "] = ", cuts[static_cast<std::size_t>(b)]);
}

}  // namespace detail

// Collective over the mesh: the blocks A_ij (see the top of the file) of the
// matrix whose rows are the segments of `cols` (global column indices, in
// [0, column_cuts.back())) and `vals`, as mesh blocks folding in `order`.
// The 1D arrays need whole segments in contiguous blocks, the same shape,
// and the mesh's ranks in the same order. Throws on every rank (the same
// exception) if they do not, if a cut list does not run from 0 to the rows
// (columns) in mesh.rows() (cols()) non-decreasing blocks, if the ranks pass
// different cuts or orders (std::invalid_argument), or if a column is out of
// range (std::out_of_range). Cost: O(local rows * (c + log r) + local entries
// * log c + received rows and entries); one MPI_Allreduce, one MPI_Alltoall,
// one exchange of the entries (detail::alltoallv, after agree_extent: one
// more MPI_Allreduce on an MPI-3.1 library), and mesh_block's.
template <std::integral I, mpi_item T>
mesh_matrix<I, T> to_mesh_blocks(const nested<I>& cols, const nested<T>& vals,
                                 std::shared_ptr<const process_mesh> mesh, std::span<const std::int64_t> row_cuts,
                                 std::span<const std::int64_t> column_cuts, mesh_fold order = mesh_fold::serial) {
  const MPI_Comm comm = mesh->comm();
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const std::int64_t r = mesh->rows(), c = mesh->cols();
  detail::error_collector errs("dist::to_mesh_blocks", rank);
  for (const MPI_Comm array_comm : {cols.comm(), vals.comm()}) {
    int same = MPI_UNEQUAL;
    MPI_Comm_compare(array_comm, comm, &same);
    if (same != MPI_IDENT && same != MPI_CONGRUENT)
      errs.invalid("the arrays' communicator does not hold the mesh's ranks in the same order");
  }
  if (!cols.spec().contiguous() || cols.spec().splits_segments() || !cols.identity_virtual())
    errs.invalid("needs whole rows in contiguous blocks (one virtual segment per row), not sharding ", cols.spec());
  const auto [lengths, indices] = detail::nested_access::contiguous(cols);
  const auto [value_lengths, values] = detail::nested_access::contiguous(vals);
  if (!detail::same_placement(*detail::nested_access::where(cols), *detail::nested_access::where(vals)))
    errs.invalid("cols and vals are placed differently (", cols.placement(), " and ", vals.placement(), ")");
  if (value_lengths.size() != lengths.size() ||
      !std::equal(lengths.begin(), lengths.end(), value_lengths.begin(), value_lengths.end()))
    errs.invalid("cols and vals have different rows on this rank (", lengths.size(), " and ", value_lengths.size(),
                 " rows, or different lengths)");
  if (order != mesh_fold::serial && order != mesh_fold::column_blocks)
    errs.invalid("unknown fold order ", static_cast<int>(order));
  const std::int64_t columns = column_cuts.empty() ? 0 : column_cuts.back();
  detail::check_cuts_into(errs, "row_cuts", row_cuts, r, cols.global_segments(), "the rows");
  detail::check_cuts_into(errs, "column_cuts", column_cuts, c, columns, "the columns");
  // The cuts every rank must pass, padded to the mesh's size when they are
  // the wrong size (that rank's error is reported first).
  std::vector<std::int64_t> all_cuts(static_cast<std::size_t>(r + c + 2), -1);
  if (!errs.failed()) {
    std::copy(row_cuts.begin(), row_cuts.end(), all_cuts.begin());
    std::copy(column_cuts.begin(), column_cuts.end(), all_cuts.begin() + r + 1);
  }

  // Per local row and column block, its entries there: the header each
  // destination gets, and from it the bytes every destination gets.
  const std::int64_t rows = errs.failed() ? 0 : lengths.size();
  const auto ids = cols.piece_ids();
  std::vector<std::int64_t> in_block(static_cast<std::size_t>(rows * c), 0), row_block(static_cast<std::size_t>(rows));
  for (std::int64_t k = 0, e = 0; k < rows && !errs.failed(); ++k) {
    row_block[static_cast<std::size_t>(k)] = detail::block_holding(row_cuts, ids[k]);
    for (const std::int64_t end = e + lengths[k]; e < end; ++e) {
      const auto col = static_cast<std::int64_t>(indices[e]);
      if (col < 0 || col >= columns) {
        errs.out_of_range("row ", ids[k], " has column ", +indices[e], ", outside [0, ", columns, ")");
        break;
      }
      ++in_block[static_cast<std::size_t>(k * c + detail::block_holding(column_cuts, col))];
    }
  }
  detail::agree(comm, errs, 0, {{"the fold order", static_cast<std::int64_t>(order)}},
                {"row_cuts then column_cuts", all_cuts});

  constexpr std::int64_t entry_bytes = sizeof(I) + sizeof(T), header = sizeof(std::int64_t);
  std::vector<std::int64_t> send_counts(static_cast<std::size_t>(p), 0);
  std::vector<std::int64_t> entries_to(static_cast<std::size_t>(p), 0);  // per destination
  for (std::int64_t k = 0; k < rows; ++k)
    for (std::int64_t j = 0; j < c; ++j) {
      const auto d = static_cast<std::size_t>(row_block[static_cast<std::size_t>(k)] * c + j);
      send_counts[d] += header + in_block[static_cast<std::size_t>(k * c + j)] * entry_bytes;
      entries_to[d] += in_block[static_cast<std::size_t>(k * c + j)];
    }
  std::vector<std::int64_t> recv_counts(static_cast<std::size_t>(p), 0);
  detail::check_mpi(MPI_Alltoall(send_counts.data(), 1, MPI_INT64_T, recv_counts.data(), 1, MPI_INT64_T, comm),
                    "MPI_Alltoall");
  std::vector<std::int64_t> send_displs(static_cast<std::size_t>(p), 0), recv_displs(send_displs);
  for (int d = 1; d < p; ++d) {
    send_displs[d] = send_displs[d - 1] + send_counts[d - 1];
    recv_displs[d] = recv_displs[d - 1] + recv_counts[d - 1];
  }
  const std::int64_t send_total = send_displs[p - 1] + send_counts[p - 1];
  const std::int64_t recv_total = recv_displs[p - 1] + recv_counts[p - 1];

  // Pack: per destination its rows' lengths, then the columns (renumbered
  // from its column block's start), then the values.
  std::vector<char> send(static_cast<std::size_t>(send_total));
  std::vector<std::int64_t> at_header(send_displs), at_col(send_displs.size()), at_val(send_displs.size());
  for (int d = 0; d < p; ++d) {
    const auto u = static_cast<std::size_t>(d);
    const std::int64_t rows_to = (send_counts[u] - entries_to[u] * entry_bytes) / header;
    at_col[u] = send_displs[u] + rows_to * header;
    at_val[u] = at_col[u] + entries_to[u] * static_cast<std::int64_t>(sizeof(I));
  }
  for (std::int64_t k = 0, e = 0; k < rows; ++k) {
    const std::int64_t first = row_block[static_cast<std::size_t>(k)] * c;
    for (std::int64_t j = 0; j < c; ++j) {
      const auto u = static_cast<std::size_t>(first + j);
      std::memcpy(send.data() + at_header[u], &in_block[static_cast<std::size_t>(k * c + j)], header);
      at_header[u] += header;
    }
    for (const std::int64_t end = e + lengths[k]; e < end; ++e) {
      const std::int64_t j = detail::block_holding(column_cuts, static_cast<std::int64_t>(indices[e]));
      const auto u = static_cast<std::size_t>(first + j);
      const I local = static_cast<I>(static_cast<std::int64_t>(indices[e]) - column_cuts[static_cast<std::size_t>(j)]);
      std::memcpy(send.data() + at_col[u], &local, sizeof(I));
      std::memcpy(send.data() + at_val[u], &values[e], sizeof(T));
      at_col[u] += sizeof(I);
      at_val[u] += sizeof(T);
    }
  }
  std::vector<char> received(static_cast<std::size_t>(recv_total));
  detail::alltoallv(send.data(), {send_counts, send_displs}, received.data(), {recv_counts, recv_displs}, MPI_BYTE,
                    detail::agree_extent(std::max(send_total, recv_total), comm), comm);
  send = {};

  // Unpack: the sources in rank order hold this row block's rows in order
  // (the 1D layout is contiguous), each sending its rows of the block.
  const std::int64_t i = mesh->row();
  const std::int64_t a = row_cuts[static_cast<std::size_t>(i)], b = row_cuts[static_cast<std::size_t>(i) + 1];
  const auto& first_row = cols.placement().first_segment;
  auto block_lengths = buffer<std::int64_t>::for_overwrite(b - a);
  const std::int64_t entries = (recv_total - (b - a) * header) / entry_bytes;
  auto block_cols = buffer<I>::for_overwrite(entries);
  auto block_vals = buffer<T>::for_overwrite(entries);
  std::int64_t row = 0, entry = 0;
  for (int s = 0; s < p; ++s) {
    const std::int64_t from = std::max(a, first_row[static_cast<std::size_t>(s)]);
    const std::int64_t to = std::min(b, first_row[static_cast<std::size_t>(s) + 1]);
    if (to <= from) continue;
    const char* in = received.data() + recv_displs[static_cast<std::size_t>(s)];
    std::int64_t n = 0;
    for (std::int64_t k = 0; k < to - from; ++k, ++row) {
      std::memcpy(&block_lengths[row], in + k * header, header);
      n += block_lengths[row];
    }
    in += (to - from) * header;
    if (n == 0) continue;
    const auto count = static_cast<std::size_t>(n);
    std::memcpy(&block_cols[entry], in, count * sizeof(I));
    std::memcpy(&block_vals[entry], in + count * sizeof(I), count * sizeof(T));
    entry += n;
  }
  const array<std::int64_t> row_lengths = std::move(block_lengths).freeze();
  auto c_block = mesh_block(vseg::nested<I>::from_lengths(row_lengths, std::move(block_cols).freeze()), mesh, order);
  auto v_block = mesh_block(vseg::nested<T>::from_lengths(row_lengths, std::move(block_vals).freeze()), mesh, order);
  return {std::move(c_block), std::move(v_block)};
}

}  // namespace vseg::dist
