// scan_s (vseg/dist/lifted.hpp) on the blocks of a 2D process mesh: the
// single-node scan_s bits of the whole matrix-shaped array, whatever the
// blocks' fold order.
//
// The single-node scan of a row cuts it at the fold's block boundaries of
// the merge; each sub-piece starts from the left-to-right combination of
// the earlier sub-pieces' grouped folds. Continuing that across process
// columns needs the fold chain's state (detail/mesh_chain.hpp) plus the
// running scan value; here instead each row goes whole to the rank owning
// it in the folds (as from_mesh_blocks, vseg/dist/mesh_rows.hpp), is scanned
// there by the 1D scan_s (whole rows in the matrix's order: the single-node
// bits), and each slice comes back to its block. So it moves the block's
// elements twice within the process row; the chain would move a few values
// a row (notes/distributed.md).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "vseg/dist/detail/exchange.hpp"
#include "vseg/dist/lifted.hpp"

namespace vseg::dist::detail {

// The exclusive scan with `mon` of each row of a mesh block, as its slices
// in this block (same placement). Collective over the mesh: one
// MPI_Alltoall and two exchanges on the process row (the rows to their
// owners, the scanned slices back), and nested::from_local's collectives on
// the mesh. O(local elements + rows * c).
template <class T, class Monoid>
nested<T> scan_mesh(const nested<T>& block, const Monoid& mon) {
  static_assert(std::is_trivially_copyable_v<T>, "dist::scan_s on mesh blocks moves elements as bytes");
  const auto& where = nested_access::where(block);
  const process_mesh& mesh = *where->across->mesh;
  const auto [lengths, data] = nested_access::contiguous(block);
  const std::int64_t rows = lengths.size(), c = mesh.cols(), j = mesh.col();
  const auto n = static_cast<std::size_t>(c);
  constexpr std::int64_t header = sizeof(std::int64_t), item = sizeof(T);
  // Local rows [first[q], first[q + 1]) are owned by rank q of the process row.
  std::vector<std::int64_t> first(n + 1), row_start(static_cast<std::size_t>(rows) + 1, 0);
  for (std::size_t q = 0; q <= n; ++q) first[q] = equal_part_start(rows, c, static_cast<std::int64_t>(q));
  for (std::int64_t k = 0; k < rows; ++k) row_start[static_cast<std::size_t>(k) + 1] = row_start[k] + lengths[k];
  std::vector<std::int64_t> send_counts(n), send_displs(n, 0), recv_counts(n), recv_displs(n, 0);
  for (std::size_t q = 0; q < n; ++q)
    send_counts[q] = (first[q + 1] - first[q]) * header + (row_start[first[q + 1]] - row_start[first[q]]) * item;
  const MPI_Comm row_comm = mesh.row_comm();
  check_mpi(MPI_Alltoall(send_counts.data(), 1, MPI_INT64_T, recv_counts.data(), 1, MPI_INT64_T, row_comm),
            "MPI_Alltoall");
  for (std::size_t q = 1; q < n; ++q) {
    send_displs[q] = send_displs[q - 1] + send_counts[q - 1];
    recv_displs[q] = recv_displs[q - 1] + recv_counts[q - 1];
  }
  const std::int64_t send_total = send_displs[n - 1] + send_counts[n - 1];
  const std::int64_t recv_total = recv_displs[n - 1] + recv_counts[n - 1];
  const std::int64_t extent = agree_extent(std::max(send_total, recv_total), row_comm);
  // 1. Per owner: its rows' slice lengths, then the slices' elements.
  std::vector<char> send(static_cast<std::size_t>(send_total)), received(static_cast<std::size_t>(recv_total));
  for (std::size_t q = 0; q < n; ++q) {
    char* out = send.data() + send_displs[q];
    for (std::int64_t k = first[q]; k < first[q + 1]; ++k, out += header) std::memcpy(out, &lengths[k], header);
    const std::int64_t count = row_start[first[q + 1]] - row_start[first[q]];
    if (count > 0) std::memcpy(out, &data[row_start[first[q]]], static_cast<std::size_t>(count * item));
  }
  alltoallv(send.data(), {send_counts, send_displs}, received.data(), {recv_counts, recv_displs}, MPI_BYTE, extent,
            row_comm);

  // 2. The owned rows whole (source s's slice of row k after those of 0..s-1),
  // scanned as a 1D array over the mesh (rows in the matrix's order).
  const std::int64_t owned = first[static_cast<std::size_t>(j) + 1] - first[static_cast<std::size_t>(j)];
  std::vector<std::int64_t> slice(n * static_cast<std::size_t>(owned)), element_at(n);
  auto row_lengths = buffer<std::int64_t>::for_overwrite(owned);
  for (std::int64_t k = 0; k < owned; ++k) row_lengths[k] = 0;
  std::int64_t total = 0;
  for (std::size_t s = 0; s < n; ++s) {
    element_at[s] = recv_displs[s] + owned * header;
    for (std::int64_t k = 0; k < owned; ++k) {
      std::int64_t len = 0;
      std::memcpy(&len, received.data() + recv_displs[s] + k * header, header);
      slice[s * static_cast<std::size_t>(owned) + static_cast<std::size_t>(k)] = len;
      row_lengths[k] += len;
      total += len;
    }
  }
  auto whole = buffer<T>::for_overwrite(total);
  std::vector<std::int64_t> read(element_at);
  for (std::int64_t k = 0, at = 0; k < owned; ++k)
    for (std::size_t s = 0; s < n; ++s) {
      const std::int64_t len = slice[s * static_cast<std::size_t>(owned) + static_cast<std::size_t>(k)];
      if (len > 0) std::memcpy(&whole[at], received.data() + read[s], static_cast<std::size_t>(len * item));
      read[s] += len * item;
      at += len;
    }
  const array<std::int64_t> owned_lengths = std::move(row_lengths).freeze();
  const auto rows_1d = nested<T>::from_local(vseg::nested<T>::from_lengths(owned_lengths, std::move(whole).freeze()),
                                             mesh.comm());
  const auto scanned = scan_s(rows_1d, mon);
  const auto [unused, scanned_data] = nested_access::contiguous(scanned);

  // 3. Each slice back to its block, where the slices went out: the reply to
  // source s has the layout of its message without the lengths.
  for (std::size_t s = 0; s < n; ++s) read[s] = element_at[s];
  std::vector<char> back(static_cast<std::size_t>(recv_total - static_cast<std::int64_t>(n) * owned * header));
  std::vector<std::int64_t> back_counts(n), back_displs(n, 0), home_counts(n), home_displs(n, 0);
  for (std::size_t s = 0; s < n; ++s) {
    back_counts[s] = recv_counts[s] - owned * header;
    home_counts[s] = send_counts[s] - (first[s + 1] - first[s]) * header;
    if (s > 0) {
      back_displs[s] = back_displs[s - 1] + back_counts[s - 1];
      home_displs[s] = home_displs[s - 1] + home_counts[s - 1];
    }
  }
  std::vector<std::int64_t> put(back_displs);
  for (std::int64_t k = 0, at = 0; k < owned; ++k)
    for (std::size_t s = 0; s < n; ++s) {
      const std::int64_t len = slice[s * static_cast<std::size_t>(owned) + static_cast<std::size_t>(k)];
      if (len > 0) std::memcpy(back.data() + put[s], &scanned_data[at], static_cast<std::size_t>(len * item));
      put[s] += len * item;
      at += len;
    }
  auto home = buffer<T>::for_overwrite(data.size());
  alltoallv(back.data(), {back_counts, back_displs}, static_cast<void*>(home.data()), {home_counts, home_displs},
            MPI_BYTE, extent, row_comm);
  return nested_access::make<T>(where, vseg::nested<T>::from_lengths(lengths, std::move(home).freeze()), block);
}

}  // namespace vseg::dist::detail
