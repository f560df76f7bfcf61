// Distributed SpMV: vseg's vectorised program on distributed arrays against
// PETSc's MatMult (MPIAIJ), on the same matrix, rows and rank count. A plain
// timed MPI program: each round times one vseg product and one PETSc
// product, a barrier before each, so both see the same machine load; medians
// and minima over the rounds are reported, with the ratio of the same run.
//
//   vseg   y = sum_s(zip_with(multiplies, vals, index_l(replicate(rows, x), cols)))
//          (examples/dist/dist_spmv.hpp): rows resharded to `balanced` (1D,
//          about nnz / p nonzeros per rank), 32-bit column indices, the
//          gather plan of x built by the first product and reused.
//   vseg 2D  the same expression on a 2D process mesh (MPI_Dims_create's,
//          or the one given as RxC, dist_spmv::distribute_2d): x gathered
//          within process columns, each row folded along its process row in
//          the single-node order (mesh_fold::serial: the plain program's
//          bits); "2D cb" the same with mesh_fold::column_blocks (per block,
//          then the partials combined at the owner: bits of the column order).
//   PETSc  MatCreateMPIAIJWithArrays on the same local rows (PETSc splits
//          them into the diagonal and off-diagonal blocks and overlaps the
//          scatter of x with the diagonal block's product), MatMult.
//
// Matrices: the 27-point stencil on an n^3 grid and an R-MAT graph of
// 2^scale vertices and edge factor 16.
//
// Threads: PETSc runs one thread per rank. vseg's TBB would start as many
// threads as the rank's CPU mask allows; with more ranks than cores
// (oversubscribed, Open MPI then binds nothing) that is every core per rank.
// Each rank is therefore limited to its share of the node's cores (at least
// one), so that neither contender runs more threads than the machine has
// cores: bound to a core each (2 ranks on 2 cores) that is TBB's default.
//
//   mpiexec -n 2 ./spmv_petsc [n=64] [scale=18] [rounds=30] [mesh RxC, default MPI_Dims_create's, or -]
//                             [2D row weight, default dist_spmv::default_row_weight; < 0: the
//                              row blocks balanced by nonzeros, as before dist11]
#include <mpi.h>
#include <petscmat.h>
#include <tbb/global_control.h>
#include <tbb/info.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "../../examples/dist/dist_spmv.hpp"

namespace {

void check_petsc(PetscErrorCode code, const char* what) {
  if (code == 0) return;
  std::fprintf(stderr, "spmv_petsc: %s failed with PETSc error %d\n", what, static_cast<int>(code));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

struct summary {
  double median = 0, min = 0, max = 0;
};

summary summarise(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  return {times[times.size() / 2], times.front(), times.back()};
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


// One matrix: both products, interleaved; prints one block of results.
void compare(const char* name, const vseg::csr_matrix& a, int rounds, const vseg::dist::sharding& mesh_spec,
             std::int64_t row_weight) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (a.rows > std::numeric_limits<PetscInt>::max() || a.nnz() > std::numeric_limits<PetscInt>::max()) {
    if (rank == 0) std::fprintf(stderr, "spmv_petsc: matrix too large for this PETSc's indices\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  // ---- vseg: the program on distributed arrays.
  std::optional<dist_spmv::system> built;
  const double vseg_build =
      timed([&] { built.emplace(dist_spmv::distribute(a, vseg::dist::sharding::balanced(), MPI_COMM_WORLD)); });
  const dist_spmv::system& s = *built;
  vseg::array<double> y_vseg;
  const double vseg_first = timed([&] { y_vseg = dist_spmv::multiply(s); });
  std::optional<dist_spmv::system_2d> built_2d;
  const double mesh_build =
      timed([&] { built_2d.emplace(
        dist_spmv::distribute_2d(a, mesh_spec, MPI_COMM_WORLD, vseg::dist::mesh_fold::serial, row_weight)); });
  const dist_spmv::system_2d& s2 = *built_2d;
  vseg::array<double> y_2d;
  const double mesh_first = timed([&] { y_2d = dist_spmv::multiply(s2); });
  const dist_spmv::system_2d s2cb =
      dist_spmv::distribute_2d(a, mesh_spec, MPI_COMM_WORLD, vseg::dist::mesh_fold::column_blocks, row_weight);
  vseg::array<double> y_2dcb = dist_spmv::multiply(s2cb);

  // ---- PETSc: the same local rows as an MPIAIJ matrix (PETSc copies the arrays).
  const std::int64_t first = s.cols.placement().first_segment[rank];
  const std::int64_t m = s.cols.placement().first_segment[rank + 1] - first;
  std::vector<PetscInt> starts{0}, columns;
  std::int64_t entry = 0;
  for (std::int64_t i = 0; i < first; ++i) entry += a.row_lengths[i];
  for (std::int64_t i = 0; i < m; ++i) starts.push_back(starts.back() + static_cast<PetscInt>(a.row_lengths[first + i]));
  for (PetscInt k = 0; k < starts.back(); ++k) columns.push_back(static_cast<PetscInt>(a.col_indices[entry + k]));
  std::vector<double> values(a.values.data() + entry, a.values.data() + entry + starts.back());
  Mat matrix = nullptr;
  Vec px = nullptr, py = nullptr;
  const double petsc_build = timed([&] {
    check_petsc(MatCreateMPIAIJWithArrays(PETSC_COMM_WORLD, static_cast<PetscInt>(m), static_cast<PetscInt>(m),
                                          static_cast<PetscInt>(a.rows), static_cast<PetscInt>(a.rows), starts.data(),
                                          columns.data(), values.data(), &matrix),
                "MatCreateMPIAIJWithArrays");
  });
  check_petsc(MatCreateVecs(matrix, &px, &py), "MatCreateVecs");
  {
    PetscScalar* xa = nullptr;
    check_petsc(VecGetArray(px, &xa), "VecGetArray");
    for (std::int64_t i = 0; i < m; ++i) xa[i] = dist_spmv::x_value(first + i);
    check_petsc(VecRestoreArray(px, &xa), "VecRestoreArray");
  }
  const double petsc_first = timed([&] { check_petsc(MatMult(matrix, px, py), "MatMult"); });

  std::vector<double> vseg_times, mesh_times, cb_times, petsc_times;
  for (int r = 0; r < rounds; ++r) {
    vseg_times.push_back(timed([&] { y_vseg = dist_spmv::multiply(s); }));
    mesh_times.push_back(timed([&] { y_2d = dist_spmv::multiply(s2); }));
    cb_times.push_back(timed([&] { y_2dcb = dist_spmv::multiply(s2cb); }));
    petsc_times.push_back(timed([&] { check_petsc(MatMult(matrix, px, py), "MatMult"); }));
  }
  // 1D and 2D serial give the plain program's bits: the same checksum of y.
  std::uint64_t bits[2] = {dist_spmv::checksum(y_vseg, first), dist_spmv::checksum(y_2d, s2.first_row)};
  MPI_Allreduce(MPI_IN_PLACE, bits, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  // 2D's rows lie elsewhere: compare the sums of y over all rows (1D vs 2D).
  double sums[2] = {0, 0};
  for (std::int64_t i = 0; i < y_vseg.size(); ++i) sums[0] += y_vseg[i];
  for (std::int64_t i = 0; i < y_2d.size(); ++i) sums[1] += y_2d[i];
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

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

  const summary v = summarise(vseg_times), p = summarise(petsc_times), v2 = summarise(mesh_times),
                cb = summarise(cb_times);
  if (rank == 0) {
    std::printf("spmv_petsc %s: %lld rows, %lld nonzeros, %d ranks (1D balanced), %d rounds\n", name,
                static_cast<long long>(a.rows), static_cast<long long>(a.nnz()), nranks, rounds);
    std::printf("  setup:   vseg distribute %.3f ms (first product, plan included, %.3f ms) | PETSc "
                "MatCreateMPIAIJWithArrays %.3f ms (first MatMult %.3f ms)\n",
                vseg_build * 1e3, vseg_first * 1e3, petsc_build * 1e3, petsc_first * 1e3);
    std::printf("  product: vseg median %.3f ms (min %.3f, max %.3f) | PETSc median %.3f ms (min %.3f, max %.3f) | "
                "vseg/PETSc %.2f (median), %.2f (min)\n",
                v.median * 1e3, v.min * 1e3, v.max * 1e3, p.median * 1e3, p.min * 1e3, p.max * 1e3,
                v.median / p.median, v.min / p.min);
    std::printf("  2D %s, row weight %lld: setup %.3f ms (first product %.3f ms); product median %.3f ms "
                "(min %.3f, max %.3f) | "
                "vseg 2D/PETSc %.2f (median), %.2f (min) | 2D/1D %.2f (median)\n",
                s2.mesh->spec().to_string().c_str(), static_cast<long long>(row_weight), mesh_build * 1e3,
                mesh_first * 1e3, v2.median * 1e3,
                v2.min * 1e3, v2.max * 1e3, v2.median / p.median, v2.min / p.min, v2.median / v.median);
    std::printf("  2D cb (mesh_fold::column_blocks): product median %.3f ms (min %.3f, max %.3f) | "
                "vseg 2D cb/PETSc %.2f (median), %.2f (min) | 2D/2D cb %.2f (median); 2D bits %s 1D's\n",
                cb.median * 1e3, cb.min * 1e3, cb.max * 1e3, cb.median / p.median, cb.min / p.min,
                v2.median / cb.median, bits[0] == bits[1] ? "=" : "DIFFERENT from");
    std::printf("  max |y_vseg - y_petsc| = %.3g (max |y| = %.3g); sum of y 1D %.17g, 2D %.17g\n", max_difference,
                max_value, sums[0], sums[1]);
  }
  check_petsc(VecDestroy(&px), "VecDestroy");
  check_petsc(VecDestroy(&py), "VecDestroy");
  check_petsc(MatDestroy(&matrix), "MatDestroy");
  if (max_difference > 1e-9 * std::max(1.0, max_value)) MPI_Abort(MPI_COMM_WORLD, 1);
  if (std::abs(sums[0] - sums[1]) > 1e-9 * std::max(1.0, std::abs(sums[0])) * static_cast<double>(a.rows))
    MPI_Abort(MPI_COMM_WORLD, 1);
  if (bits[0] != bits[1]) MPI_Abort(MPI_COMM_WORLD, 1);
}

}  // namespace

int main(int argc, char** argv) {
  // PETSc would read the program's arguments as options: give it none.
  int petsc_argc = 1;
  char** petsc_argv = argv;
  check_petsc(PetscInitialize(&petsc_argc, &petsc_argv, nullptr, nullptr), "PetscInitialize");
  // This rank's share of the node's cores (see the top of the file).
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int on_node = 1;
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = std::max(1, std::min(tbb::info::default_concurrency(), cores / on_node));
  const auto limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                           static_cast<std::size_t>(threads));
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    std::printf("spmv_petsc: %d ranks on this node, %d cores: %d TBB thread(s) per rank for vseg, 1 for PETSc\n",
                on_node, cores, threads);
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 64;
  const int scale = argc > 2 ? std::atoi(argv[2]) : 18;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 30;
  int mesh_rows = 0, mesh_cols = 0;
  if (argc > 4 && std::string_view(argv[4]) != "-" && std::sscanf(argv[4], "%dx%d", &mesh_rows, &mesh_cols) != 2) {
    if (rank == 0) std::fprintf(stderr, "spmv_petsc: mesh '%s' is not RxC\n", argv[4]);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const auto mesh = vseg::dist::sharding::mesh(mesh_rows, mesh_cols);
  const std::int64_t row_weight = argc > 5 ? std::atoll(argv[5]) : dist_spmv::default_row_weight;
  compare("stencil27", dist_spmv::stencil(n), rounds, mesh, row_weight);
  compare("rmat", dist_spmv::rmat(scale, 16), rounds, mesh, row_weight);
  PetscFinalize();
  return 0;
}
