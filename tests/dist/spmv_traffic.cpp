// The communication model of notes/distributed.md against the MPI traffic of
// the distributed SpMV (examples/dist/dist_spmv.hpp), counted through the
// PMPI layer: once its gather plan is built, one 1D product sends, per rank,
// one MPI_Allreduce (the collective check) and one MPI_Alltoallv carrying
// exactly the x entries the model counts from the matrix's structure, to
// exactly the ranks it names. Prints the per-rank maxima for the notes.
#include <doctest/doctest.h>

#include <cstdio>

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
  CHECK(t.calls == 2);
  CHECK(t.by_function["MPI_Allreduce"].first == 1);
  CHECK(t.by_function["MPI_Alltoallv"].second == model.bytes);
  CHECK(t.messages == model.messages);
  std::vector<std::int64_t> mine{t.by_function["MPI_Alltoallv"].second, t.messages, model.bytes, model.messages};
  const auto all = allgather(mine);
  std::int64_t max[4] = {0, 0, 0, 0};
  for (const auto& r : all)
    for (int i = 0; i < 4; ++i) max[i] = std::max(max[i], r[static_cast<std::size_t>(i)]);
  if (rank() == 0)
    std::printf("spmv_traffic %s, %lld rows, %lld nonzeros, p = %d, per product, max over ranks: measured %lld bytes "
                "in %lld messages, model %lld bytes in %lld messages (plus one allreduce of %lld bytes)\n",
                name, static_cast<long long>(m.rows), static_cast<long long>(m.nnz()), nranks(),
                static_cast<long long>(max[0]), static_cast<long long>(max[1]), static_cast<long long>(max[2]),
                static_cast<long long>(max[3]), static_cast<long long>(t.by_function["MPI_Allreduce"].second));
}

}  // namespace

TEST_CASE("1D SpMV traffic equals the model's count, stencil and R-MAT") {
  check_traffic("stencil27(12)", dist_spmv::stencil(12));
  check_traffic("rmat(10)", dist_spmv::rmat(10, 16));
}
