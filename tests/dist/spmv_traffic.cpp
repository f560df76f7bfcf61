// The communication model of notes/distributed.md against the MPI traffic of
// the distributed SpMV (examples/dist/dist_spmv.hpp), counted through the
// PMPI layer: once its gather plan is built (and agreed), one 1D product
// sends, per rank, exactly one MPI_Alltoallv carrying exactly the x entries
// the model counts from the matrix's structure, to exactly the ranks it
// names, and no agreement message. A 2D product on a process mesh sends one
// MPI_Alltoallv in its process column (the expand) and one in its process
// row (the fold; none when the row is one rank), together exactly the
// model's 2D count; under mesh_fold::serial the row also carries the
// chain's MPI_Isend per chunk to the next process column, and the model
// counts those too. Prints the per-rank maxima for the notes.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "../../examples/dist/dist_spmv.hpp"
#include "../../examples/dist/spmv_model.hpp"
#include "helpers.hpp"
#include "pmpi_count.hpp"

using namespace vseg::dist::testing;

namespace {

void check_traffic(const char* name, const vseg::csr_matrix& m) {
  const auto s = dist_spmv::distribute(m, vseg::dist::sharding::balanced(), MPI_COMM_WORLD);
  const auto rows = dist_spmv::balanced_rows(m, nranks());
  CHECK(std::vector<std::int64_t>(s.cols.placement().first_segment) == rows);
  (void)dist_spmv::multiply(s);  // builds the gather plan
  reset_traffic();
  (void)dist_spmv::multiply(s);
  auto t = counted_traffic();
  const auto model = dist_spmv::model_1d(m, rows)[static_cast<std::size_t>(rank())];
  // The x exchange, posted nonblocking (the own x copied meanwhile).
  CHECK(t.calls == 1);
  CHECK(t.by_function["MPI_Ialltoallv"].first == 1);
  CHECK(t.by_function["MPI_Ialltoallv"].second == model.bytes);
  CHECK(t.messages == model.messages);
  std::vector<std::int64_t> mine{t.by_function["MPI_Ialltoallv"].second, t.messages, model.bytes, model.messages};
  const auto all = allgather(mine);
  std::int64_t max[4] = {0, 0, 0, 0};
  for (const auto& r : all)
    for (int i = 0; i < 4; ++i) max[i] = std::max(max[i], r[static_cast<std::size_t>(i)]);
  if (rank() == 0)
    std::printf("spmv_traffic %s, %lld rows, %lld nonzeros, p = %d, per product, max over ranks: measured %lld bytes "
                "in %lld messages, model %lld bytes in %lld messages (allreduce bytes: %lld)\n",
                name, static_cast<long long>(m.rows), static_cast<long long>(m.nnz()), nranks(),
                static_cast<long long>(max[0]), static_cast<long long>(max[1]), static_cast<long long>(max[2]),
                static_cast<long long>(max[3]), static_cast<long long>(t.by_function["MPI_Allreduce"].second));
}

// The per-rank maxima of {measured bytes, messages, model bytes, messages}.
void print_maxima(const char* what, const char* name, const vseg::csr_matrix& m, std::int64_t bytes,
                  std::int64_t messages, const dist_spmv::rank_traffic& model, std::int64_t allreduce_bytes) {
  const auto all = allgather(std::vector<std::int64_t>{bytes, messages, model.bytes, model.messages});
  std::int64_t max[4] = {0, 0, 0, 0};
  for (const auto& r : all)
    for (int i = 0; i < 4; ++i) max[i] = std::max(max[i], r[static_cast<std::size_t>(i)]);
  if (rank() == 0)
    std::printf("spmv_traffic %s %s, %lld rows, %lld nonzeros, p = %d, per product, max over ranks: measured %lld "
                "bytes in %lld messages, model %lld bytes in %lld messages (allreduce bytes: %lld)\n",
                what, name, static_cast<long long>(m.rows), static_cast<long long>(m.nnz()), nranks(),
                static_cast<long long>(max[0]), static_cast<long long>(max[1]), static_cast<long long>(max[2]),
                static_cast<long long>(max[3]), static_cast<long long>(allreduce_bytes));
}

void check_traffic_2d(const char* name, const vseg::csr_matrix& m, const vseg::dist::sharding& spec,
                      vseg::dist::mesh_fold order) {
  const auto s = dist_spmv::distribute_2d(m, spec, MPI_COMM_WORLD, order);
  INFO(name << " on " << s.mesh->spec() << ", " << order);
  (void)dist_spmv::multiply(s);  // builds the gather plan
  reset_traffic();
  (void)dist_spmv::multiply(s);
  auto t = counted_traffic();
  const auto model =
      dist_spmv::model_2d(m, s.mesh->rows(), s.mesh->cols(), order)[static_cast<std::size_t>(rank())];
  // The expand within the process column, the fold within the process row
  // (serial: the chain's MPI_Isend per chunk, then the finished rows); a row
  // of one rank (one process column) folds without a call.
  const std::int64_t chain = t.by_function["MPI_Isend"].first;
  if (order == vseg::dist::mesh_fold::column_blocks || s.mesh->cols() == 1) CHECK(chain == 0);
  if (s.mesh->col() + 1 == s.mesh->cols()) CHECK(chain == 0);  // the last process column sends no state
  const std::int64_t calls = (s.mesh->cols() == 1 ? 1 : 2) + chain;
  // The expand is posted nonblocking (the own x copied meanwhile), the fold blocks.
  CHECK(t.calls == calls);
  CHECK(t.by_function["MPI_Ialltoallv"].first == 1);
  CHECK(t.by_function["MPI_Alltoallv"].first == (s.mesh->cols() == 1 ? 0 : 1));
  const std::int64_t exchanged = t.by_function["MPI_Ialltoallv"].second + t.by_function["MPI_Alltoallv"].second +
                                 t.by_function["MPI_Isend"].second;
  CHECK(exchanged == model.bytes);
  CHECK(t.messages == model.messages);
  const std::string what = "2D " + s.mesh->spec().to_string() + " " + to_string(order);
  print_maxima(what.c_str(), name, m, exchanged, t.messages, model,
               t.by_function["MPI_Allreduce"].second);
}

}  // namespace

TEST_CASE("2D SpMV traffic equals the model's count, both fold orders, stencil and R-MAT, on MPI_Dims_create's mesh and one row") {
  for (const auto order : {vseg::dist::mesh_fold::serial, vseg::dist::mesh_fold::column_blocks})
    for (const auto& spec : {vseg::dist::sharding::mesh(), vseg::dist::sharding::mesh(1, nranks())}) {
      check_traffic_2d("stencil27(12)", dist_spmv::stencil(12), spec, order);
      check_traffic_2d("rmat(10)", dist_spmv::rmat(10, 16), spec, order);
    }
}

TEST_CASE("1D SpMV traffic equals the model's count, stencil and R-MAT") {
  check_traffic("stencil27(12)", dist_spmv::stencil(12));
  check_traffic("rmat(10)", dist_spmv::rmat(10, 16));
}
