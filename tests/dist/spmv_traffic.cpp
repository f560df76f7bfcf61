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

#include <algorithm>
#include <cstdio>
#include <limits>
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

namespace {

// The largest block cost (elements in a column block + row_weight per row)
// of row cuts `first` on column blocks `col_blocks`, by brute force.
std::int64_t largest_block(const vseg::csr_matrix& m, const std::vector<std::int64_t>& first,
                           const std::vector<std::int64_t>& col_blocks, std::int64_t row_weight) {
  const auto pc = static_cast<std::int64_t>(col_blocks.size()) - 1;
  std::int64_t most = 0, e = 0;
  for (std::size_t i = 0; i + 1 < first.size(); ++i) {
    std::vector<std::int64_t> cost(static_cast<std::size_t>(pc), row_weight * (first[i + 1] - first[i]));
    for (std::int64_t r = first[i]; r < first[i + 1]; ++r)
      for (const std::int64_t end = e + m.row_lengths[r]; e < end; ++e)
        ++cost[static_cast<std::size_t>(dist_spmv::column_block_of(col_blocks, m.col_indices[e]))];
    most = std::max(most, *std::max_element(cost.begin(), cost.end()));
  }
  return most;
}

}  // namespace

TEST_CASE("2D row blocks: mesh_rows' cuts have the least largest block cost (brute force), and mesh_row_cuts "
          "equals mesh_rows on every rank") {
  const auto m = dist_spmv::rmat(6, 8);  // 64 rows: every pair of cuts is tried
  for (const std::int64_t pc : {1, 2, 3}) {
    std::vector<std::int64_t> col_blocks;
    for (std::int64_t j = 0; j <= pc; ++j) col_blocks.push_back(m.cols * j / pc);
    for (const std::int64_t weight : {0, 1, 8, 40}) {
      // On the full grid, the cuts are optimal among all cuts into 2 and 3 blocks.
      std::int64_t best2 = std::numeric_limits<std::int64_t>::max(), best3 = best2;
      for (std::int64_t a = 0; a <= m.rows; ++a) {
        best2 = std::min(best2, largest_block(m, {0, a, m.rows}, col_blocks, weight));
        for (std::int64_t b = a; b <= m.rows; ++b)
          best3 = std::min(best3, largest_block(m, {0, a, b, m.rows}, col_blocks, weight));
      }
      const auto two = dist_spmv::mesh_rows(m, 2, col_blocks, weight, m.rows);
      const auto three = dist_spmv::mesh_rows(m, 3, col_blocks, weight, m.rows);
      CHECK(largest_block(m, two, col_blocks, weight) == best2);
      CHECK(largest_block(m, three, col_blocks, weight) == best3);
      CHECK(std::is_sorted(three.begin(), three.end()));
      CHECK((three.front() == 0 && three.back() == m.rows));
      // The distributed cuts, from the 1D rows of every rank, on a coarse grid too.
      const auto [cols, vals] = dist_spmv::rows_1d(m, MPI_COMM_WORLD);
      for (const std::int64_t grid : {std::int64_t{7}, m.rows, std::int64_t{4096}})
        for (const std::int64_t parts : {1, 2, 3, 5})
          CHECK(dist_spmv::mesh_row_cuts(cols, parts, col_blocks, weight, grid) ==
                dist_spmv::mesh_rows(m, parts, col_blocks, weight, grid));
    }
  }
}
