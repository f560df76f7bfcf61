// The distributed SpMV of examples/dist/dist_spmv.cpp and
// bench/dist/spmv_petsc.cpp: the single-node vectorised program
//
//   y = sum_s(zip_with(multiplies, vals, index_l(replicate(rows, x), cols)))
//
// on distributed arrays (vseg/dist/lifted.hpp), with its matrices (the
// 27-point stencil and an R-MAT graph) and the bitwise checksum of y.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "spmv_model.hpp"
#include "vseg/dist/lifted.hpp"
#include "vseg/dist/mesh.hpp"
#include "vseg/dist/mesh_blocks.hpp"
#include "vseg/matrix_market.hpp"
#include "vseg/nested.hpp"

namespace dist_spmv {

inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A value in [-1, 1) with a full mantissa, from a hash of i.
inline double unit(std::uint64_t i) { return static_cast<double>(mix(i) >> 11) * 0x1.0p-52 - 1.0; }

// An R-MAT graph (a, b, c, d = 0.57, 0.19, 0.19, 0.05) with 2^scale vertices
// and edge_factor * 2^scale edges before duplicates are merged, as a CSR
// matrix with values in [-1, 1); the same on every rank. O(edges log edges).
inline vseg::csr_matrix rmat(int scale, int edge_factor) {
  const std::int64_t n = std::int64_t{1} << scale, edges = n * edge_factor;
  std::vector<std::pair<std::int64_t, std::int64_t>> e(static_cast<std::size_t>(edges));
  for (std::int64_t k = 0; k < edges; ++k) {
    std::int64_t row = 0, col = 0;
    std::uint64_t h = static_cast<std::uint64_t>(k) * 0x100000001b3ULL;
    for (int level = 0; level < scale; ++level) {
      h = mix(h);
      const double u = static_cast<double>(h >> 11) * 0x1.0p-53;
      const int quadrant = u < 0.57 ? 0 : u < 0.76 ? 1 : u < 0.95 ? 2 : 3;
      row = 2 * row + (quadrant >> 1);
      col = 2 * col + (quadrant & 1);
    }
    e[static_cast<std::size_t>(k)] = {row, col};
  }
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(n), 0), cols;
  std::vector<double> vals;
  for (const auto& [r, c] : e) {
    ++lengths[static_cast<std::size_t>(r)];
    cols.push_back(c);
    vals.push_back(unit(static_cast<std::uint64_t>(r * n + c)));
  }
  return {n, n, vseg::array<std::int64_t>(std::move(lengths)), vseg::array<std::int64_t>(std::move(cols)),
          vseg::array<double>(std::move(vals))};
}

// The 27-point stencil with values in [-1, 1) (its own are -1 and 26, which
// would make every sum exact and the bitwise check blind).
inline vseg::csr_matrix stencil(std::int64_t n) {
  vseg::csr_matrix m = vseg::stencil_27(n);
  std::vector<double> vals(static_cast<std::size_t>(m.nnz()));
  for (std::int64_t k = 0; k < m.nnz(); ++k) vals[static_cast<std::size_t>(k)] = unit(static_cast<std::uint64_t>(k) + 17);
  m.values = vseg::array<double>(std::move(vals));
  return m;
}

// x_i, in [-1, 1) with full mantissas.
inline double x_value(std::int64_t i) { return unit(static_cast<std::uint64_t>(i) * 3 + 1); }

// The matrix's rows [first, last) as this rank's part, and x's entries of
// those rows, as distributed arrays (cols as 32-bit indices), resharded to
// `spec` (balanced by nonzeros for 1D).
struct system {
  vseg::dist::nested<std::int32_t> cols;
  vseg::dist::nested<double> vals;
  vseg::dist::nested<double> x;
};

// The matrix's rows [rows * rank / p, rows * (rank + 1) / p) as this
// rank's part of the 1D arrays cols (32-bit) and vals: the only rows this
// rank reads. O(those rows' entries + rows before them).
inline std::pair<vseg::dist::nested<std::int32_t>, vseg::dist::nested<double>> rows_1d(const vseg::csr_matrix& m,
                                                                                      MPI_Comm comm) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const std::int64_t first = m.rows * rank / p, last = m.rows * (rank + 1) / p;
  std::int64_t begin = 0;
  for (std::int64_t r = 0; r < first; ++r) begin += m.row_lengths[r];
  std::int64_t end = begin;
  for (std::int64_t r = first; r < last; ++r) end += m.row_lengths[r];
  const auto lengths = m.row_lengths.slice(first, last - first);
  std::vector<std::int32_t> cols(static_cast<std::size_t>(end - begin));
  for (std::int64_t k = begin; k < end; ++k) cols[static_cast<std::size_t>(k - begin)] = static_cast<std::int32_t>(m.col_indices[k]);
  using vseg::dist::nested;
  return {nested<std::int32_t>::from_local(
              vseg::nested<std::int32_t>::from_lengths(lengths, vseg::array<std::int32_t>(std::move(cols))), comm),
          nested<double>::from_local(vseg::nested<double>::from_lengths(lengths, m.values.slice(begin, end - begin)),
                                     comm)};
}

inline system distribute(const vseg::csr_matrix& m, const vseg::dist::sharding& spec, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  using vseg::dist::nested;
  auto [c, v] = rows_1d(m, comm);
  c = c.reshard(spec);
  v = v.reshard(spec);
  // x: one piece per rank, its elements the rows this rank now holds.
  const auto& rows = c.placement();
  const std::int64_t x_first = rows.first_segment[rank], x_last = rows.first_segment[rank + 1];
  std::vector<double> xs(static_cast<std::size_t>(x_last - x_first));
  for (std::int64_t i = x_first; i < x_last; ++i) xs[static_cast<std::size_t>(i - x_first)] = x_value(i);
  auto x = nested<double>::from_local(
      vseg::nested<double>::from_lengths(vseg::array<std::int64_t>{x_last - x_first}, vseg::array<double>(std::move(xs))),
      comm);
  return {std::move(c), std::move(v), std::move(x)};
}

// The matrix on a 2D process mesh (notes/distributed.md, "2D SpMV"): rows in
// mesh.rows() blocks of balanced block cost (mesh_rows), columns in mesh.cols() equal
// blocks. Rank (i, j) holds A_ij as a mesh block folding in `order` (one
// segment per row of row block i, cols renumbered from its column block's
// start), and part i of x's column block j cut in mesh.rows() equal parts;
// y's rows come out on the rank owning them, from first_row on.
struct system_2d {
  std::shared_ptr<const vseg::dist::process_mesh> mesh;
  vseg::dist::nested<std::int32_t> cols;
  vseg::dist::nested<double> vals;
  vseg::dist::nested<double> x;
  std::int64_t first_row = 0;
};

// The column blocks of a matrix with `cols` columns on `parts` process columns.
inline std::int64_t column_block_start(std::int64_t cols, std::int64_t parts, std::int64_t j) {
  return vseg::dist::equal_part_start(cols, parts, j);
}

// Collective: balanced_rows(m, parts) (spmv_model.hpp) from the row
// lengths of a 1D array: row block t starts at the first row with at least
// t * nnz / parts entries before it. One MPI_Exscan and two MPI_Allreduce;
// O(local rows + parts).
inline std::vector<std::int64_t> balanced_row_cuts(const vseg::dist::nested<std::int32_t>& cols, std::int64_t parts) {
  const MPI_Comm comm = cols.comm();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const auto lengths = cols.pieces().physical_lengths();
  const auto ids = cols.piece_ids();
  std::int64_t local = 0, before = 0, nnz = 0;
  for (std::int64_t k = 0; k < lengths.size(); ++k) local += lengths[k];
  MPI_Exscan(&local, &before, 1, MPI_INT64_T, MPI_SUM, comm);
  if (rank == 0) before = 0;  // MPI_Exscan leaves rank 0's result undefined
  MPI_Allreduce(&local, &nnz, 1, MPI_INT64_T, MPI_SUM, comm);
  // Each rank proposes its first row past each target; the smallest wins.
  std::vector<std::int64_t> first(static_cast<std::size_t>(parts) + 1, cols.global_segments());
  first[0] = 0;
  std::int64_t t = 1, start = before;
  for (std::int64_t k = 0; k < lengths.size() && t < parts; ++k) {
    while (t < parts && start >= static_cast<std::int64_t>(static_cast<wide>(t) * nnz / parts)) first[t++] = ids[k];
    start += lengths[k];
  }
  MPI_Allreduce(MPI_IN_PLACE, first.data(), static_cast<int>(first.size()), MPI_INT64_T, MPI_MIN, comm);
  return first;
}

// Collective: mesh_rows(m, parts, col_blocks, row_weight, grid)
// (spmv_model.hpp) from the rows of a 1D array: the elements per grid
// bucket and column block counted where the rows are, summed by one
// MPI_Allreduce. O(local entries log pc + grid pc log(nnz + rows)).
inline std::vector<std::int64_t> mesh_row_cuts(const vseg::dist::nested<std::int32_t>& cols, std::int64_t parts,
                                               const std::vector<std::int64_t>& col_blocks,
                                               std::int64_t row_weight = default_row_weight,
                                               std::int64_t grid = 4096) {
  const std::int64_t rows = cols.global_segments(), g = std::min(rows, grid);
  const std::int64_t pc = static_cast<std::int64_t>(col_blocks.size()) - 1;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(g * pc), 0);
  const auto lengths = cols.pieces().physical_lengths();
  const auto ids = cols.piece_ids();  // increasing: the 1D rows are contiguous
  std::int64_t k = 0;
  for (std::int64_t q = 0; q < lengths.size(); ++q) {
    while (grid_row(rows, g, k + 1) <= ids[q]) ++k;
    for (const std::int32_t c : cols.pieces()[q])
      ++counts[static_cast<std::size_t>(k * pc + column_block_of(col_blocks, c))];
  }
  MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()), MPI_INT64_T, MPI_SUM, cols.comm());
  return min_max_row_cuts(counts, rows, g, parts, pc, row_weight);
}

// Collective: the 2D system, built from the 1D rows each rank reads
// (rows_1d) by to_mesh_blocks' one exchange; no rank reads other rows. Row
// blocks by mesh_row_cuts (the largest block's elements + row_weight per
// row, least), or, for row_weight < 0, balanced by the rows' nonzeros over
// the whole matrix row (balanced_row_cuts: the earlier cuts, kept for A/B).
inline system_2d distribute_2d(const vseg::csr_matrix& m, const vseg::dist::sharding& spec, MPI_Comm comm,
                               vseg::dist::mesh_fold order = vseg::dist::mesh_fold::serial,
                               std::int64_t row_weight = default_row_weight) {
  auto mesh = std::make_shared<const vseg::dist::process_mesh>(spec, comm);
  const int i = mesh->row(), j = mesh->col();
  const auto [cols_1d, vals_1d] = rows_1d(m, comm);
  std::vector<std::int64_t> column_blocks;
  for (std::int64_t t = 0; t <= mesh->cols(); ++t) column_blocks.push_back(column_block_start(m.cols, mesh->cols(), t));
  const auto row_blocks = row_weight < 0 ? balanced_row_cuts(cols_1d, mesh->rows())
                                        : mesh_row_cuts(cols_1d, mesh->rows(), column_blocks, row_weight);
  // The blocks come in the library's allocator (huge pages), not in the C
  // heap: every product streams the values, and from the heap's 4 KiB pages
  // 1D ran 6-14 % slower (notes/distributed.md, "The values' memory").
  auto [c, v] = vseg::dist::to_mesh_blocks(cols_1d, vals_1d, mesh, row_blocks, column_blocks, order);
  const std::int64_t lo = column_blocks[static_cast<std::size_t>(j)];
  const std::int64_t hi = column_blocks[static_cast<std::size_t>(j) + 1];
  const std::int64_t first = row_blocks[static_cast<std::size_t>(i)];
  const std::int64_t last = row_blocks[static_cast<std::size_t>(i) + 1];
  // x: part i of column block j, one piece on the process column.
  const std::int64_t x_first = lo + vseg::dist::equal_part_start(hi - lo, mesh->rows(), i);
  const std::int64_t x_last = lo + vseg::dist::equal_part_start(hi - lo, mesh->rows(), i + 1);
  std::vector<double> xs(static_cast<std::size_t>(x_last - x_first));
  for (std::int64_t t = x_first; t < x_last; ++t) xs[static_cast<std::size_t>(t - x_first)] = x_value(t);
  auto x = vseg::dist::nested<double>::from_local(
      vseg::nested<double>::from_lengths(vseg::array<std::int64_t>{x_last - x_first},
                                         vseg::array<double>(std::move(xs))),
      mesh->col_comm());
  const std::int64_t first_row = first + vseg::dist::equal_part_start(last - first, mesh->cols(), j);
  return {std::move(mesh), std::move(c), std::move(v), std::move(x), first_row};
}

// y = A x, the vectorised program on distributed arrays (1D system or 2D
// system_2d: the same expression); y holds the rows this rank owns.
template <class System>
vseg::array<double> multiply(const System& s) {
  using namespace vseg::dist;
  return sum_s(zip_with(std::multiplies<>{}, s.vals, index_l(replicate(s.cols.global_segments(), s.x), s.cols)));
}

// The same program on one node.
inline vseg::array<double> multiply_serial(const vseg::csr_matrix& m) {
  std::vector<std::int32_t> cols(m.col_indices.begin(), m.col_indices.end());
  const auto c = vseg::nested<std::int32_t>::from_lengths(m.row_lengths, vseg::array<std::int32_t>(std::move(cols)));
  const auto v = vseg::nested<double>::from_lengths(m.row_lengths, m.values);
  std::vector<double> xs(static_cast<std::size_t>(m.cols));
  for (std::int64_t i = 0; i < m.cols; ++i) xs[static_cast<std::size_t>(i)] = x_value(i);
  return vseg::sum_s(vseg::zip_with(std::multiplies<>{}, v, vseg::index_l(vseg::replicate(m.rows, vseg::array<double>(std::move(xs))), c)));
}

// The single-node program in mesh_fold::column_blocks' order on `parts`
// process columns: per column block, the same program on the columns of that block
// (vseg::sum_s of the sub-matrix), then per row the block sums where the row
// is non-empty, combined left to right. parts = 1 is multiply_serial.
inline vseg::array<double> multiply_serial_blocks(const vseg::csr_matrix& m, std::int64_t parts) {
  std::vector<double> y(static_cast<std::size_t>(m.rows), 0.0);
  std::vector<char> seen(static_cast<std::size_t>(m.rows), 0);
  for (std::int64_t j = 0; j < parts; ++j) {
    const std::int64_t lo = column_block_start(m.cols, parts, j), hi = column_block_start(m.cols, parts, j + 1);
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(m.rows), 0);
    std::vector<std::int32_t> cols;
    std::vector<double> vals;
    std::int64_t k = 0;
    for (std::int64_t r = 0; r < m.rows; ++r)
      for (const std::int64_t end = k + m.row_lengths[r]; k < end; ++k)
        if (m.col_indices[k] >= lo && m.col_indices[k] < hi) {
          ++lengths[static_cast<std::size_t>(r)];
          cols.push_back(static_cast<std::int32_t>(m.col_indices[k] - lo));
          vals.push_back(m.values[k]);
        }
    const vseg::array<std::int64_t> row_lengths(std::move(lengths));
    const auto c = vseg::nested<std::int32_t>::from_lengths(row_lengths, vseg::array<std::int32_t>(std::move(cols)));
    const auto v = vseg::nested<double>::from_lengths(row_lengths, vseg::array<double>(std::move(vals)));
    std::vector<double> xs(static_cast<std::size_t>(hi - lo));
    for (std::int64_t t = lo; t < hi; ++t) xs[static_cast<std::size_t>(t - lo)] = x_value(t);
    const auto part = vseg::sum_s(vseg::zip_with(
        std::multiplies<>{}, v, vseg::index_l(vseg::replicate(m.rows, vseg::array<double>(std::move(xs))), c)));
    for (std::int64_t r = 0; r < m.rows; ++r) {
      const auto u = static_cast<std::size_t>(r);
      if (row_lengths[r] == 0) continue;
      y[u] = seen[u] ? y[u] + part[r] : part[r];
      seen[u] = 1;
    }
  }
  return vseg::array<double>(std::move(y));
}

// A checksum of y's bits by global row, independent of how y is split:
// the sum over rows of mix(row, bits(y_row)). O(rows).
inline std::uint64_t checksum(const vseg::array<double>& y, std::int64_t first_row) {
  std::uint64_t sum = 0;
  for (std::int64_t i = 0; i < y.size(); ++i)
    sum += mix(static_cast<std::uint64_t>(first_row + i) ^ mix(std::bit_cast<std::uint64_t>(y[i])));
  return sum;
}

}  // namespace dist_spmv
