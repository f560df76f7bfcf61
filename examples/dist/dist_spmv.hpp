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
#include <utility>
#include <vector>

#include "vseg/dist/lifted.hpp"
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

inline system distribute(const vseg::csr_matrix& m, const vseg::dist::sharding& spec, MPI_Comm comm) {
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
  auto c = nested<std::int32_t>::from_local(
      vseg::nested<std::int32_t>::from_lengths(lengths, vseg::array<std::int32_t>(std::move(cols))), comm);
  auto v = nested<double>::from_local(vseg::nested<double>::from_lengths(lengths, m.values.slice(begin, end - begin)),
                                      comm);
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

// y = A x, the vectorised program on distributed arrays; y holds this rank's rows.
inline vseg::array<double> multiply(const system& s) {
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

// A checksum of y's bits by global row, independent of how y is split:
// the sum over rows of mix(row, bits(y_row)). O(rows).
inline std::uint64_t checksum(const vseg::array<double>& y, std::int64_t first_row) {
  std::uint64_t sum = 0;
  for (std::int64_t i = 0; i < y.size(); ++i)
    sum += mix(static_cast<std::uint64_t>(first_row + i) ^ mix(std::bit_cast<std::uint64_t>(y[i])));
  return sum;
}

}  // namespace dist_spmv
