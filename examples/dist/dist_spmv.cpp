// Distributed sparse matrix-vector product with the global indexer.
//
// Rows of a sparse matrix are block-distributed over the ranks, and so is the
// vector. Each rank needs the vector entries its rows' columns name: those are
// fetched with one global_indexer, built once and reused for every iteration
// of x <- A x. The result is checked against the serial product computed on
// every rank.
//
//   mpiexec -n 3 ./dist_spmv [rows] [iterations]
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "vseg/dist.hpp"

namespace {

// A row-stochastic sparse matrix (rows sum to 1, so x stays bounded under
// iteration): row i has a diagonal entry and up to 8 pseudo-random columns.
struct csr {
  std::vector<std::int64_t> row_starts{0};
  std::vector<std::int64_t> columns;
  std::vector<double> values;
};

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

// Rows [first, last) of the n x n matrix; the same on every rank that asks.
csr make_rows(std::int64_t n, std::int64_t first, std::int64_t last) {
  csr m;
  for (std::int64_t i = first; i < last; ++i) {
    const auto u = static_cast<std::uint64_t>(i);
    const int extra = static_cast<int>(mix(u) % 9);
    std::vector<std::int64_t> cols = {i};
    for (int k = 0; k < extra; ++k) {
      // Mostly near the diagonal, sometimes anywhere.
      const std::uint64_t h = mix(u * 16 + static_cast<std::uint64_t>(k) + 1);
      const std::int64_t near = i + static_cast<std::int64_t>(h % 64) - 32;
      cols.push_back(h % 5 == 0 ? static_cast<std::int64_t>(h % static_cast<std::uint64_t>(n)) : (near % n + n) % n);
    }
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    double total = 0;
    std::vector<double> weights;
    for (std::int64_t c : cols) {
      weights.push_back(1.0 + static_cast<double>(mix(u ^ static_cast<std::uint64_t>(c) * 7919) % 100));
      total += weights.back();
    }
    for (std::size_t k = 0; k < cols.size(); ++k) {
      m.columns.push_back(cols[k]);
      m.values.push_back(weights[k] / total);
    }
    m.row_starts.push_back(static_cast<std::int64_t>(m.columns.size()));
  }
  return m;
}

// y = A x over the given rows, with column c read from x[column_slot[k]].
void multiply(const csr& a, const std::vector<std::int64_t>& column_slot, const std::vector<double>& x,
              std::vector<double>& y) {
  for (std::size_t i = 0; i + 1 < a.row_starts.size(); ++i) {
    double sum = 0;
    for (std::int64_t k = a.row_starts[i]; k < a.row_starts[i + 1]; ++k) sum += a.values[k] * x[column_slot[k]];
    y[i] = sum;
  }
}

double initial_x(std::int64_t i) { return 1.0 + static_cast<double>(i % 17); }

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 20000;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 100;

  using namespace vseg::dist;
  auto rows = distribution::uniform(n, MPI_COMM_WORLD);
  csr a = make_rows(n, rows.local_begin(), rows.local_end());

  // The distinct columns this rank's rows touch: the entries of x it needs.
  std::vector<std::int64_t> needed = a.columns;
  std::sort(needed.begin(), needed.end());
  needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
  std::vector<std::int64_t> slot(a.columns.size());
  for (std::size_t k = 0; k < a.columns.size(); ++k)
    slot[k] = std::lower_bound(needed.begin(), needed.end(), a.columns[k]) - needed.begin();

  MPI_Barrier(MPI_COMM_WORLD);
  const double build_start = MPI_Wtime();
  global_indexer fetch(rows, needed, MPI_COMM_WORLD);  // built once
  const double build_time = MPI_Wtime() - build_start;

  std::vector<double> x(static_cast<std::size_t>(rows.local_size())), y(x.size());
  for (std::int64_t i = 0; i < rows.local_size(); ++i) x[i] = initial_x(rows.local_begin() + i);
  std::vector<double> x_needed(needed.size());
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) {
    fetch.take(x, x_needed);  // reused plan: one exchange per iteration
    multiply(a, slot, x_needed, y);
    std::swap(x, y);
  }
  const double elapsed = MPI_Wtime() - start;

  // Serial reference on every rank: the whole matrix, the same row order.
  csr whole = make_rows(n, 0, n);
  std::vector<double> xs(static_cast<std::size_t>(n)), ys(xs.size());
  for (std::int64_t i = 0; i < n; ++i) xs[i] = initial_x(i);
  for (int it = 0; it < iterations; ++it) {
    multiply(whole, whole.columns, xs, ys);
    std::swap(xs, ys);
  }
  double max_error = 0;
  for (std::int64_t i = 0; i < rows.local_size(); ++i)
    max_error = std::max(max_error, std::abs(x[i] - xs[rows.local_begin() + i]));
  MPI_Allreduce(MPI_IN_PLACE, &max_error, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  std::int64_t nnz = static_cast<std::int64_t>(a.columns.size());
  MPI_Allreduce(MPI_IN_PLACE, &nnz, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);

  if (rank == 0)
    std::printf("dist_spmv: %lld rows, %lld nonzeros, %d ranks, %d iterations: plan build %.3f ms, "
                "%.3f ms per iteration; max |distributed - serial| = %.3g\n",
                static_cast<long long>(n), static_cast<long long>(nnz), nranks, iterations, build_time * 1e3,
                elapsed / iterations * 1e3, max_error);
  MPI_Finalize();
  // Same per-row summation order in both: the results must agree exactly.
  return max_error <= 1e-12 ? 0 : 1;
}
