// Sparse matrices in compressed-row form: a Matrix Market reader and the
// generated matrices used by the tests, examples and benchmarks.
//
// csr_matrix holds its rows as segments: row r has row_lengths[r] entries,
// stored one row after another in col_indices / values, each row sorted by
// column. That is exactly the shape nested<T>::from_lengths takes, so
//
//   auto cols = nested<std::int64_t>::from_lengths(m.row_lengths, m.col_indices);
//   auto vals = nested<double>::from_lengths(m.row_lengths, m.values);
//
// are the matrix's rows as nested arrays.
//
// The reader accepts the Matrix Market exchange format
// (https://math.nist.gov/MatrixMarket/formats.html), object `matrix`, format
// `coordinate`, fields `real`, `integer` and `pattern`, symmetries `general`,
// `symmetric` and `skew-symmetric`:
//
//   symmetric       an off-diagonal entry (i, j, v) also gives (j, i, v);
//   skew-symmetric  an off-diagonal entry (i, j, v) also gives (j, i, -v),
//                   and diagonal entries are an error (they must be zero);
//   pattern         every entry has value 1.0.
//
// (The format stores only the lower triangle of a symmetric matrix; an entry
// above the diagonal is mirrored the same way.)
//
// Entries are sorted by (row, column). Duplicate entries are KEPT, in file
// order, not summed: the matrix they describe is the sum of the duplicates,
// which is what SpMV over the CSR arrays computes.
//
// Anything else — a bad banner, an unsupported format (`array`) or field
// (`complex`), a malformed size line, an index out of range, too few or too
// many entries, a field that is not a number — throws vseg::parse_error,
// whose message names the file, the line and the problem.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>

#include "vseg/array.hpp"

namespace vseg {

// A sparse rows × cols matrix in compressed-row form (see the header comment).
struct csr_matrix {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  array<std::int64_t> row_lengths;  // rows entries: the number of entries of each row
  array<std::int64_t> col_indices;  // nnz entries, 0-based, sorted within each row
  array<double> values;             // nnz entries, parallel to col_indices

  // The number of stored entries. O(1).
  std::int64_t nnz() const noexcept { return col_indices.size(); }
};

// A malformed Matrix Market input: the file (or stream name), the 1-based
// line and the problem, all in what() as "vseg::read_matrix_market: file:line: problem".
class parse_error : public std::runtime_error {
 public:
  parse_error(std::string file, std::int64_t line, const std::string& problem);

  // The file or stream name the error was found in.
  const std::string& file() const noexcept { return file_; }
  // The 1-based line number of the error.
  std::int64_t line() const noexcept { return line_; }
  // The problem alone, without file and line.
  const std::string& problem() const noexcept { return problem_; }

 private:
  std::string file_;
  std::int64_t line_;
  std::string problem_;
};

// The matrix in the Matrix Market file at path. O(nnz · log(longest row)).
// Throws std::runtime_error if the file cannot be opened, parse_error if it is malformed.
csr_matrix read_matrix_market(const std::string& path);

// The matrix in a Matrix Market stream; `name` is used in error messages.
// O(nnz · log(longest row)).
csr_matrix read_matrix_market(std::istream& in, std::string_view name);

// The 7-point Laplacian stencil on an n×n×n grid: n³ rows, diagonal 6,
// -1 for each face neighbour inside the grid. O(n³).
csr_matrix stencil_7(std::int64_t n);

// The 27-point stencil on an n×n×n grid: n³ rows, diagonal 26, -1 for each
// of the up to 26 neighbours (faces, edges, corners) inside the grid. O(n³).
csr_matrix stencil_27(std::int64_t n);

// The 2D stencil on an nx × ny grid (row x·ny + y is point (x, y)): points
// 5 gives the Laplacian (diagonal 4, -1 for each edge neighbour), points 9
// adds the diagonal neighbours (diagonal 8, -1 for each of up to 8
// neighbours); only neighbours inside the grid. O(nx · ny). Throws
// std::invalid_argument naming stencil_2d for a negative size or points
// other than 5 and 9.
csr_matrix stencil_2d(std::int64_t nx, std::int64_t ny, int points);

// A rows × cols matrix whose row lengths are uniform on 0..2·avg_nnz_per_row
// (capped at cols), with distinct sorted columns and values uniform in
// [-1, 1); the same seed gives the same matrix on every platform and thread
// count. O(rows + nnz · log avg_nnz_per_row).
csr_matrix random_matrix(std::int64_t rows, std::int64_t cols, double avg_nnz_per_row,
                         std::uint64_t seed);

}  // namespace vseg
