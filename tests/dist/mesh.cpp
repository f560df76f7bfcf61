// The 2D process mesh (vseg/dist/mesh.hpp): the spec prints and compares,
// MPI_Dims_create fills free dimensions, the process row and column
// communicators have the mesh's shape; sum_s on mesh blocks gives, under
// mesh_fold::serial, the bits of vseg::sum_s on the whole array (rows
// spanning the fold's merge blocks, split mid-group between column blocks,
// empty everywhere or in some blocks, -0.0 rows on a block cut), and under
// mesh_fold::column_blocks every row as the left-to-right fold over the
// column blocks of the single-node sums.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
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

TEST_CASE("mesh_fold: printable, and the same order on every rank") {
  CHECK(to_string(mesh_fold::serial) == "mesh_fold::serial");
  std::ostringstream out;
  out << mesh_fold::column_blocks;
  CHECK(out.str() == "mesh_fold::column_blocks");
  auto mesh = std::make_shared<const process_mesh>(sharding::mesh(), MPI_COMM_WORLD);
  const auto block = vseg::nested<double>::from_lengths(vseg::array<std::int64_t>{1, 0}, vseg::array<double>{1.0});
  if (nranks() > 1) {
    // One rank asks for the other order: the same exception everywhere, no hang.
    const mesh_fold order = rank() == 1 ? mesh_fold::column_blocks : mesh_fold::serial;
    CHECK_THROWS_AS(mesh_block(block, mesh, order), std::invalid_argument);
  }
  CHECK_THROWS_AS(mesh_block(block, mesh, static_cast<mesh_fold>(7)), std::invalid_argument);
}

TEST_CASE("sum_s on mesh blocks, mesh_fold::serial: the bits of vseg::sum_s on the whole array, any mesh") {
  const int p = nranks();
  constexpr std::int64_t cut = vseg::tuning::segmented_block;
  for (const auto& spec : {sharding::mesh(), sharding::mesh(1, p), sharding::mesh(p, 1)}) {
    const std::uint64_t seed = 11;
    INFO(spec << ", seed " << seed);
    auto mesh = std::make_shared<const process_mesh>(spec, MPI_COMM_WORLD);
    const int rows_blocks = mesh->rows(), cols = mesh->cols();
    // The whole array, the same on every rank: row block i has 40 + 5i rows.
    // Rows 0 and 1 put row 1 (-0.0 only) on a cut of the fold's merge blocks
    // (its first element is step 16384); row 2 (-0.0 only) spans a cut; the
    // others are empty (often), short, or 20000 long.
    auto rng = rng_for(seed, 0);
    std::vector<std::vector<double>> rows;
    std::vector<std::int64_t> first_row{0};
    for (int i = 0; i < rows_blocks; ++i) {
      const std::int64_t n = 40 + 5 * i;
      first_row.push_back(first_row.back() + n);
      for (std::int64_t r = 0; r < n; ++r) {
        const auto at = rows.size();
        const auto kind = rng() % 5;
        const std::size_t len = at == 0 ? cut - 1 : at == 1 ? 7 : at == 2 ? cut + 40
                              : kind == 0 ? 0 : kind == 4 && rng() % 6 == 0 ? 20000 : rng() % 40;
        std::vector<double> row(len, -0.0);
        if (at > 2)
          for (auto& v : row) v = static_cast<double>(rng() >> 11) * 0x1.0p-53 - 0.5;
        rows.push_back(std::move(row));
      }
    }
    // Each row cut into `cols` slices at random points (mid-group, empty slices).
    std::vector<std::vector<std::size_t>> cuts;
    for (const auto& row : rows) {
      std::vector<std::size_t> at{0, row.size()};
      for (int j = 1; j < cols; ++j) at.push_back(static_cast<std::size_t>(rng() % (row.size() + 1)));
      std::sort(at.begin(), at.end());
      cuts.push_back(std::move(at));
    }
    std::vector<std::int64_t> lengths, whole_lengths;
    std::vector<double> data, whole;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      whole_lengths.push_back(static_cast<std::int64_t>(rows[r].size()));
      whole.insert(whole.end(), rows[r].begin(), rows[r].end());
      if (static_cast<std::int64_t>(r) < first_row[static_cast<std::size_t>(mesh->row())] ||
          static_cast<std::int64_t>(r) >= first_row[static_cast<std::size_t>(mesh->row()) + 1])
        continue;
      const auto j = static_cast<std::size_t>(mesh->col());
      const auto a = static_cast<std::ptrdiff_t>(cuts[r][j]), b = static_cast<std::ptrdiff_t>(cuts[r][j + 1]);
      lengths.push_back(b - a);
      data.insert(data.end(), rows[r].begin() + a, rows[r].begin() + b);
    }
    const auto xs = mesh_block(vseg::nested<double>::from_lengths(vseg::array<std::int64_t>(std::move(lengths)),
                                                                  vseg::array<double>(std::move(data))),
                               mesh);
    const auto all = vseg::nested<double>::from_lengths(vseg::array<std::int64_t>(std::move(whole_lengths)),
                                                        vseg::array<double>(std::move(whole)));
    const vseg::array<double> expected = vseg::sum_s(all);
    const vseg::array<double> squares = vseg::sum_s(vseg::zip_with(std::multiplies<>{}, all, all));
    // This rank owns part col() of its row block cut in cols() equal parts.
    const std::int64_t a = first_row[static_cast<std::size_t>(mesh->row())];
    const std::int64_t n = first_row[static_cast<std::size_t>(mesh->row()) + 1] - a;
    const std::int64_t lo = a + equal_part_start(n, cols, mesh->col());
    const std::int64_t hi = a + equal_part_start(n, cols, mesh->col() + 1);
    for (int round = 0; round < 2; ++round) {  // the plan is reused
      const vseg::array<double> y = sum_s(xs);
      const vseg::array<double> y2 = sum_s(zip_with(std::multiplies<>{}, xs, xs));
      REQUIRE(y.size() == hi - lo);
      REQUIRE(y2.size() == hi - lo);
      for (std::int64_t r = lo; r < hi; ++r) {
        INFO("row " << r << ", round " << round);
        CHECK(std::bit_cast<std::uint64_t>(y[r - lo]) == std::bit_cast<std::uint64_t>(expected[r]));
        CHECK(std::bit_cast<std::uint64_t>(y2[r - lo]) == std::bit_cast<std::uint64_t>(squares[r]));
      }
    }
  }
}

TEST_CASE("sum_s on mesh blocks, mesh_fold::column_blocks: per row, the column blocks' single-node sums left to right") {
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
                               mesh, mesh_fold::column_blocks);
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
    // scan_s on mesh blocks: tests/dist/mesh_blocks.cpp.
  }
}

TEST_CASE("fold_s on mesh blocks, mesh_fold::serial: a row empty everywhere is the monoid's identity at its owner") {
  // The rank finishing a row sends only non-empty rows; the owner fills the
  // others with the identity. With maximum (identity -inf, not zero bits) a
  // missing fill shows. One row in three is empty, the others short and cut
  // at random points between the process columns.
  const int p = nranks();
  for (const auto& spec : {sharding::mesh(), sharding::mesh(1, p)}) {
    INFO(spec);
    auto mesh = std::make_shared<const process_mesh>(spec, MPI_COMM_WORLD);
    const int cols = mesh->cols();
    const std::int64_t rows_per_block = 30;
    auto rng = rng_for(5, 0);
    std::vector<std::int64_t> lengths, whole_lengths;
    std::vector<double> data, whole;
    for (std::int64_t r = 0; r < rows_per_block * mesh->rows(); ++r) {
      const std::size_t len = r % 3 == 0 ? 0 : 1 + rng() % 12;
      std::vector<double> row(len);
      for (auto& v : row) v = static_cast<double>(rng() % 1000) - 500.0;
      std::vector<std::size_t> at{0, len};
      for (int j = 1; j < cols; ++j) at.push_back(static_cast<std::size_t>(rng() % (len + 1)));
      std::sort(at.begin(), at.end());
      whole_lengths.push_back(static_cast<std::int64_t>(len));
      whole.insert(whole.end(), row.begin(), row.end());
      if (r / rows_per_block != mesh->row()) continue;
      const auto j = static_cast<std::size_t>(mesh->col());
      lengths.push_back(static_cast<std::int64_t>(at[j + 1] - at[j]));
      data.insert(data.end(), row.begin() + static_cast<std::ptrdiff_t>(at[j]),
                  row.begin() + static_cast<std::ptrdiff_t>(at[j + 1]));
    }
    const auto xs = mesh_block(vseg::nested<double>::from_lengths(vseg::array<std::int64_t>(std::move(lengths)),
                                                                  vseg::array<double>(std::move(data))),
                               mesh);
    const auto all = vseg::nested<double>::from_lengths(vseg::array<std::int64_t>(std::move(whole_lengths)),
                                                        vseg::array<double>(std::move(whole)));
    const vseg::array<double> expected = vseg::fold_s(all, vseg::maximum<double>{});
    const std::int64_t lo = mesh->row() * rows_per_block + equal_part_start(rows_per_block, cols, mesh->col());
    const std::int64_t hi = mesh->row() * rows_per_block + equal_part_start(rows_per_block, cols, mesh->col() + 1);
    for (int round = 0; round < 2; ++round) {  // the plan is reused
      const vseg::array<double> y = fold_s(xs, vseg::maximum<double>{});
      REQUIRE(y.size() == hi - lo);
      for (std::int64_t r = lo; r < hi; ++r) {
        INFO("row " << r << ", round " << round);
        CHECK(std::bit_cast<std::uint64_t>(y[r - lo]) == std::bit_cast<std::uint64_t>(expected[r]));
      }
    }
  }
}
