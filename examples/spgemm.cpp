// C = A·A with vseg (examples/spgemm.hpp) for a 2D Poisson matrix and a
// random one (integer values: exact sums), checked against a serial Gustavson loop with a dense
// accumulator. Exits non-zero on a mismatch.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <vector>

#include "spgemm.hpp"

namespace {

// C = A·B, row by row with a dense accumulator, columns sorted.
vseg::csr_matrix spgemm_reference(const vseg::csr_matrix& a, const vseg::csr_matrix& b) {
  std::vector<double> acc(static_cast<std::size_t>(b.cols), 0);
  std::vector<char> used(static_cast<std::size_t>(b.cols), 0);
  std::vector<std::int64_t> lengths, cols, row, a_start(1, 0), b_start(1, 0);
  std::vector<double> vals;
  for (std::int64_t i = 0; i < a.rows; ++i) a_start.push_back(a_start.back() + a.row_lengths[i]);
  for (std::int64_t i = 0; i < b.rows; ++i) b_start.push_back(b_start.back() + b.row_lengths[i]);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    row.clear();
    for (std::int64_t e = a_start[i]; e < a_start[i + 1]; ++e) {
      const std::int64_t k = a.col_indices[e];
      for (std::int64_t f = b_start[k]; f < b_start[k + 1]; ++f) {
        const std::int64_t j = b.col_indices[f];
        if (!used[j]) used[j] = 1, row.push_back(j);
        acc[j] += a.values[e] * b.values[f];
      }
    }
    std::sort(row.begin(), row.end());
    for (std::int64_t j : row) cols.push_back(j), vals.push_back(acc[j]), acc[j] = 0, used[j] = 0;
    lengths.push_back(static_cast<std::int64_t>(row.size()));
  }
  return {a.rows, b.cols, vseg::array<std::int64_t>(lengths), vseg::array<std::int64_t>(cols), vseg::array<double>(vals)};
}

bool check(const char* name, const vseg::csr_matrix& a) {
  const auto c = examples::spgemm(a, a);
  const auto expect = spgemm_reference(a, a);
  const bool ok = c.rows == expect.rows && c.cols == expect.cols && c.row_lengths == expect.row_lengths &&
                  c.col_indices == expect.col_indices && c.values == expect.values;
  std::cout << "A·A for " << name << " (" << a.rows << " rows, " << a.nnz() << " entries): " << c.nnz()
            << " entries, " << (ok ? "ok" : "WRONG") << "\n";
  return ok;
}

}  // namespace

int main() {
  bool ok = check("the 2D Poisson matrix of a 200x200 grid", vseg::stencil_2d(200, 200, 5));
  // Integer values (from -4 to 3), so every sum is exact in any order.
  auto r = vseg::random_matrix(20'000, 20'000, 6, 7);
  r.values = vseg::map([](double v) { return std::floor(4 * v); }, r.values);
  ok = check("a random matrix", r) && ok;
  return ok ? 0 : 1;
}
