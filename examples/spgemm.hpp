// Sparse matrix times sparse matrix (C = A·B), vectorised: Gustavson's
// row-by-row product in the expand–sort–compress form. Shared by
// examples/spgemm.cpp and the benchmark bench/irregular.
//
//   expand    every entry a_ik of A meets row k of B: the lengths of those
//             rows (a gather) describe a segment of products per entry of
//             A, and tabulate_s computes every product a_ik·b_kj and its
//             column j from its entry and its place in B's row;
//   sort and  reduce_by_key_s over the rows of C: each row's products
//   compress  sorted by column (stably; small segments, so the sort stays
//             in cache, by insertion up to 32 products), and every run of
//             equal columns summed into one entry of C.
// The stable sort keeps each column's products in A's order and the run is
// summed left to right, as the serial loop adds them, so the sums are the
// serial loop's bit for bit, on any number of threads.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "vseg/matrix_market.hpp"
#include "vseg/vseg.hpp"

namespace examples {

// C = A·B for the rows of A in [first_row, first_row + rows) (its entries
// from first_entry on), B's rows described by b_rows: one batch of the
// product below.
inline vseg::csr_matrix spgemm_rows(const vseg::csr_matrix& a, const vseg::csr_matrix& b, const vseg::segd& b_rows,
                                    std::int64_t first_row, std::int64_t rows, std::int64_t first_entry) {
  const auto row_lengths = a.row_lengths.slice(first_row, rows);
  const auto a_segd = vseg::segd::from_lengths(row_lengths);
  const auto a_cols = a.col_indices.slice(first_entry, a_segd.elements());
  const auto a_vals = a.values.slice(first_entry, a_segd.elements());

  // Expand: entry e of A (row a_row[e], column k = a_cols[e]) meets row k of
  // B, one product per entry of that row: a segment of products per entry
  // of A (the checked gather rejects a column of A outside B's rows).
  const auto met = vseg::segd::from_lengths(vseg::gather(b.row_lengths, a_cols));
  const auto c_rows = vseg::segd::from_lengths(vseg::sum_s(a_segd, met.lengths()));
  // tabulate_s hands every product its entry e of A: no per-product array
  // of entries, columns or values of B is built. The keys are C's columns
  // (the rows of C are the segments), the values the products.
  auto b_entry = [&](std::int64_t e, std::int64_t p) { return b_rows.start(a_cols[e]) + (p - met.start(e)); };
  const auto columns = vseg::tabulate_s(met, [&](std::int64_t e, std::int64_t p) { return b.col_indices[b_entry(e, p)]; });
  const auto products = vseg::tabulate_s(met, [&](std::int64_t e, std::int64_t p) { return a_vals[e] * b.values[b_entry(e, p)]; });

  // Sort and compress in one operation: within each row of C, one entry per
  // distinct column, the sum of its products in A's order.
  auto [shape, c_cols, c_vals] = vseg::reduce_by_key_s(c_rows, columns, products);
  vseg::csr_matrix c;
  c.rows = rows;
  c.cols = b.cols;
  c.row_lengths = shape.lengths();
  c.col_indices = std::move(c_cols);
  c.values = std::move(c_vals);
  return c;
}

// The arrays one after another (each copied once).
template <class T>
vseg::array<T> concat_all(const std::vector<vseg::array<T>>& pieces) {
  std::vector<std::int64_t> lengths;
  for (const auto& p : pieces) lengths.push_back(p.size());
  std::vector<vseg::array<T>> blocks(pieces.begin(), pieces.end());
  const auto sources = vseg::iota<std::int64_t>(static_cast<std::int64_t>(pieces.size()));
  return vseg::concat(vseg::nested<T>::from_descriptors(blocks, sources, vseg::fill<std::int64_t>(sources.size(), 0),
                                                        vseg::array<std::int64_t>(lengths), sources));
}

// C = A·B with sorted columns per row. O(products · log(products per row))
// work, products = sum over A's entries a_ik of the length of B's row k.
// The rows go in batches of about 2^20 products, so the expanded products
// (16 bytes each, sorted in place of a dense accumulator) and their sorted
// and compressed copies take bounded memory whatever the size of C: at 2^22
// a batch's working set was most of the peak (R-MAT 2^16: 702 MB, 1.54x
// ParlayLib's; 2^20: 596 MB; 2^18: 527 MB with 4x the batches).
inline vseg::csr_matrix spgemm(const vseg::csr_matrix& a, const vseg::csr_matrix& b) {
  if (a.cols != b.rows) throw std::invalid_argument("spgemm: A has " + std::to_string(a.cols) + " columns but B has " + std::to_string(b.rows) + " rows");
  // Products per row of C, to cut the rows into batches.
  const auto per_row = vseg::sum_s(vseg::segd::from_lengths(a.row_lengths),
                                   vseg::gather(b.row_lengths, a.col_indices));
  const std::int64_t budget = std::int64_t{1} << 20;
  const auto b_rows = vseg::segd::from_lengths(b.row_lengths);
  std::vector<vseg::csr_matrix> parts;
  for (std::int64_t row = 0, entry = 0; row < a.rows;) {
    std::int64_t end = row, products = 0;
    while (end < a.rows && (end == row || products + per_row[end] <= budget)) products += per_row[end++];
    parts.push_back(spgemm_rows(a, b, b_rows, row, end - row, entry));
    for (; row < end; ++row) entry += a.row_lengths[row];
  }
  auto all = [&](auto field) {
    std::vector<std::remove_cvref_t<decltype(field(parts[0]))>> pieces;
    for (const auto& p : parts) pieces.push_back(field(p));
    return concat_all(pieces);
  };
  vseg::csr_matrix c;
  c.rows = a.rows;
  c.cols = b.cols;
  if (parts.empty()) return c;
  c.row_lengths = all([](const vseg::csr_matrix& p) { return p.row_lengths; });
  c.col_indices = all([](const vseg::csr_matrix& p) { return p.col_indices; });
  c.values = all([](const vseg::csr_matrix& p) { return p.values; });
  return c;
}

}  // namespace examples
