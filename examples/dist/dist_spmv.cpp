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
// With the mode 2d (or RxC, a mesh of R x C ranks) the matrix lies on a 2D
// process mesh (vseg/dist/mesh.hpp) and the same expression runs on its
// blocks: x is gathered within process columns, and each row's fold runs
// along its process row in the single-node order (mesh_fold::serial), so
// the reference is the plain single-node program on every mesh. (A layout
// in mesh_fold::column_blocks would be checked against the single-node
// program in that order, dist_spmv::multiply_serial_blocks.)
//
//   mpiexec -n 3 ./dist_spmv [stencil n=24] [R-MAT scale=14] [iterations=20] [1d|2d|RxC]
#include "dist_spmv.hpp"

#include "../args.hpp"

#include <cinttypes>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace {

// The 1D system, this rank's first row of y, and how it is laid out.
struct laid_out_1d {
  dist_spmv::system s;
  std::int64_t first_row;
  std::string name = "1D balanced";
  std::int64_t process_cols = 1;
  vseg::dist::mesh_fold order = vseg::dist::mesh_fold::serial;
};
struct laid_out_2d {
  dist_spmv::system_2d s;
  std::int64_t first_row;
  std::string name;
  std::int64_t process_cols;
  vseg::dist::mesh_fold order = vseg::dist::mesh_fold::serial;
};

laid_out_1d lay_out(const vseg::csr_matrix& m, std::nullptr_t, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  auto s = dist_spmv::distribute(m, vseg::dist::sharding::balanced(), comm);
  const std::int64_t first = s.cols.placement().first_segment[static_cast<std::size_t>(rank)];
  return {std::move(s), first};
}
laid_out_2d lay_out(const vseg::csr_matrix& m, const vseg::dist::sharding& mesh, MPI_Comm comm) {
  auto s = dist_spmv::distribute_2d(m, mesh, comm);
  const std::int64_t first = s.first_row, cols = s.mesh->cols();
  std::string name = "2D " + s.mesh->spec().to_string() + ", " + to_string(vseg::dist::mesh_fold::serial);
  return {std::move(s), first, std::move(name), cols};
}

// Runs the product `iterations` times on `m` (1D, or 2D on `mesh`); prints
// and checks the checksum.
template <class Mesh>
bool run(const char* name, const vseg::csr_matrix& m, const Mesh& mesh, int iterations, MPI_Comm comm) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const auto laid = lay_out(m, mesh, comm);
  const auto& s = laid.s;
  MPI_Barrier(comm);
  double start = MPI_Wtime();
  auto y = dist_spmv::multiply(s);  // the first product builds the gather plan
  const double first = MPI_Wtime() - start;
  MPI_Barrier(comm);
  start = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) y = dist_spmv::multiply(s);
  double per_product = (MPI_Wtime() - start) / std::max(iterations, 1);
  MPI_Allreduce(MPI_IN_PLACE, &per_product, 1, MPI_DOUBLE, MPI_MAX, comm);

  std::uint64_t sum = dist_spmv::checksum(y, laid.first_row);
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_UINT64_T, MPI_SUM, comm);
  std::uint64_t serial[2] = {0, 0};  // in the layout's order, and the plain program
  if (rank == 0) {
    serial[1] = dist_spmv::checksum(dist_spmv::multiply_serial(m), 0);
    serial[0] = laid.process_cols == 1 || laid.order == vseg::dist::mesh_fold::serial
                    ? serial[1]
                    : dist_spmv::checksum(dist_spmv::multiply_serial_blocks(m, laid.process_cols), 0);
  }
  MPI_Bcast(serial, 2, MPI_UINT64_T, 0, comm);
  if (rank == 0)
    std::printf("dist_spmv %s: %lld rows, %lld nonzeros, %d ranks (%s): checksum %016" PRIx64
                " (single node in this order %016" PRIx64 ", %s; plain single node %s); first product %.3f ms, "
                "then %.3f ms per product\n",
                name, static_cast<long long>(m.rows), static_cast<long long>(m.nnz()), p, laid.name.c_str(), sum,
                serial[0], sum == serial[0] ? "same bits" : "DIFFERENT",
                sum == serial[1] ? "same bits" : "other bits (other order)", first * 1e3, per_product * 1e3);
  // The serial order must give the plain program's bits, any order its own reference's.
  return sum == serial[0] && (laid.order != vseg::dist::mesh_fold::serial || sum == serial[1]);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  bool ok = true;
  try {
    // Every rank parses the same arguments, so a bad one throws on all of
    // them before any collective.
    const std::int64_t n = examples::integer_arg(argc, argv, 1, "stencil side n", 24, 1, 1 << 12);
    const int scale = static_cast<int>(examples::integer_arg(argc, argv, 2, "R-MAT scale", 14, 1, 30));
    const int iterations =
        static_cast<int>(examples::integer_arg(argc, argv, 3, "iterations", 20, 1, 1 << 20));
    const std::string mode = argc > 4 ? argv[4] : "1d";
    if (mode == "1d") {
      ok = run("stencil27", dist_spmv::stencil(n), nullptr, iterations, MPI_COMM_WORLD) && ok;
      ok = run("rmat", dist_spmv::rmat(scale, 16), nullptr, iterations, MPI_COMM_WORLD) && ok;
    } else {
      int rows = 0, cols = 0, used = 0;
      if (mode != "2d" && (std::sscanf(mode.c_str(), "%dx%d%n", &rows, &cols, &used) != 2 ||
                           used != static_cast<int>(mode.size())))
        throw std::invalid_argument("mode '" + mode + "' is none of 1d, 2d, RxC");
      const auto mesh = vseg::dist::sharding::mesh(rows, cols);
      ok = run("stencil27", dist_spmv::stencil(n), mesh, iterations, MPI_COMM_WORLD) && ok;
      ok = run("rmat", dist_spmv::rmat(scale, 16), mesh, iterations, MPI_COMM_WORLD) && ok;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dist_spmv: %s\n", e.what());
    ok = false;
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
