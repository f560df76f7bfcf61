// Distributed sparse matrix-vector product, written as the single-node
// vectorised program (examples/smvm.cpp):
//
//   y = sum_s(zip_with(multiplies, vals, index_l(replicate(rows, x), cols)))
//
// on distributed nested arrays: the rows are resharded to `balanced` (1D,
// about nnz / p nonzeros per rank), index_l fetches the entries of x the
// local rows name through a gather plan built on the first product and
// reused, and sum_s folds each row exactly as the single-node fold does. For
// the 27-point stencil and an R-MAT graph it prints a checksum of y's bits,
// the same on any number of ranks, and the single-node program's checksum
// (computed on rank 0); the run fails if they differ.
//
//   mpiexec -n 3 ./dist_spmv [stencil n=24] [R-MAT scale=14] [iterations=20]
#include "dist_spmv.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace {

// Runs the product `iterations` times on `m`; prints and checks the checksum.
bool run(const char* name, const vseg::csr_matrix& m, int iterations, MPI_Comm comm) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const auto s = dist_spmv::distribute(m, vseg::dist::sharding::balanced(), comm);
  MPI_Barrier(comm);
  double start = MPI_Wtime();
  auto y = dist_spmv::multiply(s);  // the first product builds the gather plan
  const double first = MPI_Wtime() - start;
  MPI_Barrier(comm);
  start = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) y = dist_spmv::multiply(s);
  double per_product = (MPI_Wtime() - start) / std::max(iterations, 1);
  MPI_Allreduce(MPI_IN_PLACE, &per_product, 1, MPI_DOUBLE, MPI_MAX, comm);

  std::uint64_t sum = dist_spmv::checksum(y, s.cols.placement().first_segment[rank]);
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_UINT64_T, MPI_SUM, comm);
  std::uint64_t serial = 0;
  if (rank == 0) serial = dist_spmv::checksum(dist_spmv::multiply_serial(m), 0);
  MPI_Bcast(&serial, 1, MPI_UINT64_T, 0, comm);
  if (rank == 0)
    std::printf("dist_spmv %s: %lld rows, %lld nonzeros, %d ranks (1D balanced): checksum %016" PRIx64
                " (single node %016" PRIx64 ", %s); first product %.3f ms, then %.3f ms per product\n",
                name, static_cast<long long>(m.rows), static_cast<long long>(m.nnz()), p, sum, serial,
                sum == serial ? "same bits" : "DIFFERENT", first * 1e3, per_product * 1e3);
  return sum == serial;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 24;
  const int scale = argc > 2 ? std::atoi(argv[2]) : 14;
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 20;
  bool ok = true;
  try {
    ok = run("stencil27", dist_spmv::stencil(n), iterations, MPI_COMM_WORLD) && ok;
    ok = run("rmat", dist_spmv::rmat(scale, 16), iterations, MPI_COMM_WORLD) && ok;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dist_spmv: %s\n", e.what());
    ok = false;
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
