// The 2D process mesh (vseg/dist/mesh.hpp): the spec prints and compares,
// MPI_Dims_create fills free dimensions, the process row and column
// communicators have the mesh's shape, and sum_s on mesh blocks gives every
// row as the left-to-right fold over the column blocks of the single-node
// sums, on random rows with empty ones and long ones.
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "helpers.hpp"
#include "vseg/dist/lifted.hpp"
#include "vseg/dist/mesh.hpp"

using namespace vseg::dist;
using namespace vseg::dist::testing;

TEST_CASE("mesh spec: printable and comparable") {
  CHECK(sharding::mesh(2, 3).to_string() == "mesh{2x3}");
  CHECK(sharding::mesh().to_string() == "mesh{*x*}");
  CHECK(sharding::mesh(0, 4).to_string() == "mesh{*x4}");
  std::ostringstream out;
  out << sharding::mesh(1, 2);
  CHECK(out.str() == "mesh{1x2}");
  CHECK(sharding::mesh(2, 3) == sharding::mesh(2, 3));
  CHECK(sharding::mesh(2, 3) != sharding::mesh(3, 2));
  CHECK(sharding::mesh() != sharding::block());
  CHECK(!sharding::mesh().contiguous());
}

TEST_CASE("process mesh: dimensions, coordinates and the row and column communicators") {
  const int p = nranks();
  for (const auto& spec : {sharding::mesh(), sharding::mesh(1, 0), sharding::mesh(0, 1), sharding::mesh(1, p)}) {
    INFO(spec);
    const process_mesh mesh(spec, MPI_COMM_WORLD);
    CHECK(mesh.rows() * mesh.cols() == p);
    if (spec.mesh_rows() > 0) CHECK(mesh.rows() == spec.mesh_rows());
    if (spec.mesh_cols() > 0) CHECK(mesh.cols() == spec.mesh_cols());
    if (spec == sharding::mesh()) CHECK(mesh.rows() >= mesh.cols());  // MPI_Dims_create's order
    CHECK(mesh.spec() == sharding::mesh(mesh.rows(), mesh.cols()));
    CHECK(mesh.row() * mesh.cols() + mesh.col() == rank());
    int size = 0, at = 0;
    MPI_Comm_size(mesh.row_comm(), &size);
    MPI_Comm_rank(mesh.row_comm(), &at);
    CHECK(size == mesh.cols());
    CHECK(at == mesh.col());
    MPI_Comm_size(mesh.col_comm(), &size);
    MPI_Comm_rank(mesh.col_comm(), &at);
    CHECK(size == mesh.rows());
    CHECK(at == mesh.row());
  }
}

TEST_CASE("sum_s on mesh blocks: per row, the column blocks' single-node sums left to right") {
  const int p = nranks();
  for (const auto& spec : {sharding::mesh(), sharding::mesh(1, p)}) {
    const std::uint64_t seed = 7;
    INFO(spec << ", seed " << seed);
    auto mesh = std::make_shared<const process_mesh>(spec, MPI_COMM_WORLD);
    // Per global block (i, j) the same random rows on every rank: row block i
    // has 5 + 3i rows, lengths 0 (often), small, or one of 20000 (past the
    // fold's block of 16384 steps).
    std::vector<std::vector<std::vector<double>>> blocks;  // [i * cols + j][row] entries
    std::vector<std::int64_t> first_row{0};
    auto rng = rng_for(seed, 0);
    for (int i = 0; i < mesh->rows(); ++i) {
      const std::int64_t rows = 5 + 3 * i;
      first_row.push_back(first_row.back() + rows);
      for (int j = 0; j < mesh->cols(); ++j) {
        std::vector<std::vector<double>> block(static_cast<std::size_t>(rows));
        for (auto& row : block) {
          const auto kind = rng() % 4;
          const std::size_t n = kind == 0 ? 0 : kind == 3 && rng() % 8 == 0 ? 20000 : rng() % 9;
          for (std::size_t k = 0; k < n; ++k) row.push_back(static_cast<double>(rng() >> 11) * 0x1.0p-53 - 0.5);
        }
        blocks.push_back(std::move(block));
      }
    }
    const auto& mine = blocks[static_cast<std::size_t>(rank())];
    std::vector<std::int64_t> lengths;
    std::vector<double> data;
    for (const auto& row : mine) {
      lengths.push_back(static_cast<std::int64_t>(row.size()));
      data.insert(data.end(), row.begin(), row.end());
    }
    const auto xs = mesh_block(vseg::nested<double>::from_lengths(vseg::array<std::int64_t>(std::move(lengths)),
                                                                  vseg::array<double>(std::move(data))),
                               mesh);
    const vseg::array<double> y = sum_s(xs);
    // The reference: per column block j, vseg::sum_s of its rows over all row
    // blocks (one single-node array), then per row left to right over j.
    const std::int64_t rows_total = first_row.back();
    std::vector<double> expected(static_cast<std::size_t>(rows_total), 0.0);
    std::vector<char> seen(expected.size(), 0);
    for (int j = 0; j < mesh->cols(); ++j) {
      std::vector<std::int64_t> column_lengths;
      std::vector<double> column_data;
      for (int i = 0; i < mesh->rows(); ++i)
        for (const auto& row : blocks[static_cast<std::size_t>(i * mesh->cols() + j)]) {
          column_lengths.push_back(static_cast<std::int64_t>(row.size()));
          column_data.insert(column_data.end(), row.begin(), row.end());
        }
      const auto sums = vseg::sum_s(vseg::nested<double>::from_lengths(
          vseg::array<std::int64_t>(column_lengths), vseg::array<double>(std::move(column_data))));
      for (std::size_t r = 0; r < expected.size(); ++r) {
        if (column_lengths[r] == 0) continue;
        expected[r] = seen[r] ? expected[r] + sums[static_cast<std::int64_t>(r)] : sums[static_cast<std::int64_t>(r)];
        seen[r] = 1;
      }
    }
    // This rank owns part col() of its row block cut in cols() equal parts.
    const std::int64_t a = first_row[static_cast<std::size_t>(mesh->row())];
    const std::int64_t n = first_row[static_cast<std::size_t>(mesh->row()) + 1] - a;
    const std::int64_t lo = a + equal_part_start(n, mesh->cols(), mesh->col());
    const std::int64_t hi = a + equal_part_start(n, mesh->cols(), mesh->col() + 1);
    REQUIRE(y.size() == hi - lo);
    for (std::int64_t r = lo; r < hi; ++r) {
      INFO("row " << r);
      const double want = expected[static_cast<std::size_t>(r)];
      CHECK(std::bit_cast<std::uint64_t>(y[r - lo]) == std::bit_cast<std::uint64_t>(want));
    }
    CHECK_THROWS_AS(scan_s(xs, vseg::plus<double>{}), std::invalid_argument);
  }
}
