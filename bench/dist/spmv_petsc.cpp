// Distributed SpMV: vseg's global indexer against PETSc's MatMult (MPIAIJ),
// on the same matrix, row distribution and rank count. A plain timed MPI
// program: each round times one vseg product and one PETSc product, a
// barrier before each, so both see the same machine load; medians and minima
// over the rounds are reported.
//
//   vseg   rows block-distributed (distribution::uniform); the distinct
//          columns of the local rows are fetched with one global_indexer
//          built once (take of one double each, the local ones included),
//          then a CSR loop over the fetched entries (32-bit slots).
//   PETSc  MatCreateMPIAIJWithArrays on the same local rows (PETSc splits
//          them into the diagonal and off-diagonal blocks and overlaps the
//          scatter of x with the diagonal block's product), MatMult.
//
// The matrix is vseg::stencil_27(n): n^3 rows, up to 27 entries each.
//
//   mpiexec -n 2 ./spmv_petsc [n=64] [rounds=50]
#include <mpi.h>
#include <petscmat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "vseg/dist.hpp"
#include "vseg/matrix_market.hpp"

namespace {

void check_petsc(PetscErrorCode code, const char* what) {
  if (code == 0) return;
  std::fprintf(stderr, "spmv_petsc: %s failed with PETSc error %d\n", what, static_cast<int>(code));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

struct summary {
  double median = 0, min = 0;
};

summary summarise(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  return {times[times.size() / 2], times.front()};
}

// The time of f() on the slowest rank, after a barrier.
template <class F>
double timed(F&& f) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  f();
  double t = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return t;
}

double x_value(std::int64_t i) { return 1.0 + static_cast<double>(i % 13) * 0.25; }

}  // namespace

int main(int argc, char** argv) {
  // PETSc would read the program's arguments as options: give it none.
  int petsc_argc = 1;
  char** petsc_argv = argv;
  check_petsc(PetscInitialize(&petsc_argc, &petsc_argv, nullptr, nullptr), "PetscInitialize");
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 64;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 50;

  // The whole matrix on every rank (deterministic), then this rank's rows.
  const vseg::csr_matrix a = vseg::stencil_27(n);
  const std::int64_t n_rows = a.rows;
  if (n_rows > std::numeric_limits<PetscInt>::max() || a.nnz() > std::numeric_limits<PetscInt>::max()) {
    if (rank == 0) std::fprintf(stderr, "spmv_petsc: matrix too large for this PETSc's %zu-byte indices\n", sizeof(PetscInt));
    PetscFinalize();
    return 1;
  }
  using namespace vseg::dist;
  const auto rows = distribution::uniform(n_rows, MPI_COMM_WORLD);
  const std::int64_t first = rows.local_begin(), m = rows.local_size();
  std::int64_t entry_begin = 0;
  for (std::int64_t i = 0; i < first; ++i) entry_begin += a.row_lengths[i];
  std::vector<std::int64_t> row_starts(static_cast<std::size_t>(m) + 1, 0);
  for (std::int64_t i = 0; i < m; ++i) row_starts[i + 1] = row_starts[i] + a.row_lengths[first + i];
  const std::int64_t local_nnz = row_starts.back();
  std::vector<std::int64_t> columns(a.col_indices.data() + entry_begin, a.col_indices.data() + entry_begin + local_nnz);
  std::vector<double> values(a.values.data() + entry_begin, a.values.data() + entry_begin + local_nnz);

  std::vector<double> x(static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) x[i] = x_value(first + i);

  // ---- vseg: the needed columns, their slots, the indexer built once.
  std::vector<std::int64_t> needed = columns;
  std::sort(needed.begin(), needed.end());
  needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
  // 32-bit slots, as PETSc's 32-bit local column indices: the product is
  // memory-bound, and the index width is the user's choice, not the plan's.
  std::vector<std::uint32_t> slot(columns.size());
  for (std::size_t k = 0; k < columns.size(); ++k)
    slot[k] = static_cast<std::uint32_t>(std::lower_bound(needed.begin(), needed.end(), columns[k]) - needed.begin());
  std::vector<double> x_needed(needed.size()), y_vseg(static_cast<std::size_t>(m));
  std::vector<global_indexer> plan;  // built inside timed()
  const double vseg_build = timed([&] { plan.emplace_back(rows, needed, MPI_COMM_WORLD); });
  const global_indexer& fetch = plan.front();
  auto vseg_spmv = [&] {
    fetch.take(x, x_needed);
    for (std::int64_t i = 0; i < m; ++i) {
      double sum = 0;
      for (std::int64_t k = row_starts[i]; k < row_starts[i + 1]; ++k) sum += values[k] * x_needed[slot[k]];
      y_vseg[i] = sum;
    }
  };

  // ---- PETSc: the same rows as an MPIAIJ matrix (PETSc copies the arrays).
  std::vector<PetscInt> petsc_starts(row_starts.begin(), row_starts.end());
  std::vector<PetscInt> petsc_columns(columns.begin(), columns.end());
  Mat matrix = nullptr;
  Vec px = nullptr, py = nullptr;
  const double petsc_build = timed([&] {
    check_petsc(MatCreateMPIAIJWithArrays(PETSC_COMM_WORLD, static_cast<PetscInt>(m), static_cast<PetscInt>(m),
                                          static_cast<PetscInt>(n_rows), static_cast<PetscInt>(n_rows),
                                          petsc_starts.data(), petsc_columns.data(), values.data(), &matrix),
                "MatCreateMPIAIJWithArrays");
  });
  check_petsc(MatCreateVecs(matrix, &px, &py), "MatCreateVecs");
  {
    PetscScalar* xa = nullptr;
    check_petsc(VecGetArray(px, &xa), "VecGetArray");
    std::copy(x.begin(), x.end(), xa);
    check_petsc(VecRestoreArray(px, &xa), "VecRestoreArray");
  }
  // The first MatMult sets up PETSc's scatter (its counterpart of the plan).
  const double petsc_first = timed([&] { check_petsc(MatMult(matrix, px, py), "MatMult"); });
  const double vseg_first = timed(vseg_spmv);

  std::vector<double> vseg_times, petsc_times, take_times;
  for (int r = 0; r < rounds; ++r) {
    vseg_times.push_back(timed(vseg_spmv));
    petsc_times.push_back(timed([&] { check_petsc(MatMult(matrix, px, py), "MatMult"); }));
    take_times.push_back(timed([&] { fetch.take(x, x_needed); }));
  }

  // Same matrix, same x: the products agree up to summation order.
  double max_difference = 0, max_value = 0;
  {
    const PetscScalar* ya = nullptr;
    check_petsc(VecGetArrayRead(py, &ya), "VecGetArrayRead");
    for (std::int64_t i = 0; i < m; ++i) {
      max_difference = std::max(max_difference, std::abs(ya[i] - y_vseg[i]));
      max_value = std::max(max_value, std::abs(ya[i]));
    }
    check_petsc(VecRestoreArrayRead(py, &ya), "VecRestoreArrayRead");
  }
  MPI_Allreduce(MPI_IN_PLACE, &max_difference, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &max_value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  std::int64_t fetched = static_cast<std::int64_t>(needed.size()) - m;  // entries owned elsewhere (at least)
  MPI_Allreduce(MPI_IN_PLACE, &fetched, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);

  const summary v = summarise(vseg_times), p = summarise(petsc_times), t = summarise(take_times);
  if (rank == 0) {
    std::printf("spmv_petsc: stencil_27(%lld): %lld rows, %lld nonzeros, %d ranks, %d rounds, "
                "<= %lld remote x entries per rank\n",
                static_cast<long long>(n), static_cast<long long>(n_rows), static_cast<long long>(a.nnz()), nranks,
                rounds, static_cast<long long>(fetched));
    std::printf("  setup:   vseg global_indexer %.3f ms (first product %.3f ms) | PETSc MatCreateMPIAIJWithArrays "
                "%.3f ms (first MatMult %.3f ms)\n",
                vseg_build * 1e3, vseg_first * 1e3, petsc_build * 1e3, petsc_first * 1e3);
    std::printf("  product: vseg median %.3f ms (min %.3f) | PETSc MatMult median %.3f ms (min %.3f) | "
                "vseg/PETSc %.2f (median), %.2f (min)\n",
                v.median * 1e3, v.min * 1e3, p.median * 1e3, p.min * 1e3, v.median / p.median, v.min / p.min);
    std::printf("  of which vseg's take of x: median %.3f ms (min %.3f)\n", t.median * 1e3, t.min * 1e3);
    std::printf("  max |y_vseg - y_petsc| = %.3g (max |y| = %.3g)\n", max_difference, max_value);
  }
  check_petsc(VecDestroy(&px), "VecDestroy");
  check_petsc(VecDestroy(&py), "VecDestroy");
  check_petsc(MatDestroy(&matrix), "MatDestroy");
  plan.clear();
  PetscFinalize();
  return max_difference <= 1e-9 * std::max(1.0, max_value) ? 0 : 1;
}
