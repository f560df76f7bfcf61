// Sparse matrix times sparse matrix (C = A·B), vectorised: Gustavson's
// row-by-row product in the expand–sort–compress form. Shared by
// examples/spgemm.cpp and the benchmark bench/irregular.
//
//   expand    every entry a_ik of A meets row k of B: gather those rows, one
//             per entry of A (virtual: no element copied), and flatten them
//             into the products a_ik·b_kj, each with its key (i, j);
//   sort      the products of each row of C by column, stably (sort_s over
//             the rows of C: small segments, so the sort stays in cache);
//   compress  a run of equal keys is one entry of C: head flags at every
//             new key, a segment per run (segd::from_head_flags), the sum of
//             each run (sum_s), the count of runs per row (count_s).
// The stable sort keeps each column's products in A's order, as the serial
// loop adds them; sum_s may still group a long run's additions differently
// (it balances over blocks), so sums of non-integer products can differ
// from the serial loop's in the last bits, and are the same on any number
// of threads.
#pragma once

#include <cstdint>

#include "vseg/matrix_market.hpp"
#include "vseg/vseg.hpp"

namespace examples {

// One product a_ik·b_kj with its place in C as the key i·cols + j.
struct product {
  std::int64_t key;
  double value;
};

// C = A·B with sorted columns per row. O(products · log(products per row))
// work, products = sum over A's entries a_ik of the length of B's row k.
inline vseg::csr_matrix spgemm(const vseg::csr_matrix& a, const vseg::csr_matrix& b) {
  if (a.cols != b.rows) throw std::invalid_argument("spgemm: A has " + std::to_string(a.cols) + " columns but B has " + std::to_string(b.rows) + " rows");
  const auto b_cols = vseg::nested<std::int64_t>::from_lengths(b.row_lengths, b.col_indices);
  const auto b_vals = vseg::nested<double>::from_lengths(b.row_lengths, b.values);

  // Expand: for each entry of A (row a_row[e], column k, value a_e), B's row k.
  const auto a_row = vseg::segment_ids(a.row_lengths);
  const auto met = vseg::gather(b_cols, a.col_indices);
  const auto met_vals = vseg::gather(b_vals, a.col_indices);
  const auto per_entry = vseg::segd::from_lengths(met.lengths());
  const auto entry = vseg::segment_ids(per_entry);  // the entry of A behind every product
  const auto cols = vseg::concat(met);
  const auto vals = vseg::concat(met_vals);
  const auto products = vseg::tabulate(cols.size(), [&](std::int64_t p) {
    return product{a_row[entry[p]] * b.cols + cols[p], a.values[entry[p]] * vals[p]};
  });

  // Sort each row of C's products by key.
  const auto c_rows = vseg::segd::from_lengths(vseg::sum_s(vseg::segd::from_lengths(a.row_lengths), met.lengths()));
  const auto sorted = vseg::sort_s(c_rows, products, [](const product& x, const product& y) { return x.key < y.key; });

  // Compress: one entry of C per run of equal keys.
  const auto head = vseg::tabulate(sorted.size(), [&](std::int64_t p) { return p == 0 || sorted[p].key != sorted[p - 1].key; });
  const auto runs = vseg::segd::from_head_flags(head);
  vseg::csr_matrix c;
  c.rows = a.rows;
  c.cols = b.cols;
  c.values = vseg::sum_s(runs, vseg::map([](const product& x) { return x.value; }, sorted));
  c.col_indices = vseg::map([&](const product& x) { return x.key % b.cols; }, vseg::pack(sorted, head));
  c.row_lengths = vseg::count_s(c_rows, head);
  return c;
}

}  // namespace examples
