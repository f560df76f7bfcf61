// to_mesh_blocks (vseg/dist/mesh_blocks.hpp): from a matrix distributed 1D
// by rows, each rank's mesh block equals, element for element, the block cut
// from the whole matrix, on every mesh of 1-4 ranks (1x1, 2x1, 1x2, 3x1,
// 1x3, 2x2, 4x1, 1x4), with empty rows, an empty row block and a column
// block with no entries, from several 1D layouts and with 32- and 64-bit
// columns; sum_s on the blocks gives the single-node bits; the exchange
// sends the bytes notes/distributed.md gives; bad input throws the same
// exception on every rank. from_mesh_blocks (vseg/dist/mesh_rows.hpp) gives
// the rows back on their owners, row for row.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "helpers.hpp"
#include "pmpi_count.hpp"
#include "vseg/dist/lifted.hpp"
#include "vseg/dist/mesh_blocks.hpp"
#include "vseg/dist/mesh_rows.hpp"

using namespace vseg::dist;
using namespace vseg::dist::testing;

namespace {

// A small sparse matrix, the same on every rank: every fourth row empty
// (rows 0, 4, ...), others of 0-8 entries in sorted columns, no entry in the columns [avoid_lo, avoid_hi).
struct whole_matrix {
  std::int64_t columns = 0;
  std::vector<std::vector<std::int64_t>> cols;
  std::vector<std::vector<double>> vals;
};

whole_matrix make_matrix(std::int64_t rows, std::int64_t columns, std::int64_t avoid_lo, std::int64_t avoid_hi) {
  auto rng = rng_for(5, 0);
  whole_matrix m{columns, {}, {}};
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t n = r % 4 == 0 ? 0 : static_cast<std::int64_t>(rng() % 9);
    std::vector<std::int64_t> cs;
    std::vector<double> vs;
    while (static_cast<std::int64_t>(cs.size()) < n) {
      const auto col = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(columns));
      if (col >= avoid_lo && col < avoid_hi) continue;
      cs.push_back(col);  // repeats allowed: their order is kept
    }
    std::sort(cs.begin(), cs.end());  // a CSR row (the serial mesh fold's order is the row's)
    for (std::int64_t k = 0; k < n; ++k) vs.push_back(static_cast<double>(rng() >> 11) * 0x1.0p-53 - 0.5);
    m.cols.push_back(std::move(cs));
    m.vals.push_back(std::move(vs));
  }
  return m;
}

// This rank's rows [rows * rank / p, rows * (rank + 1) / p) as 1D arrays.
template <class I>
std::pair<nested<I>, nested<double>> rows_1d(const whole_matrix& m) {
  const auto rows = static_cast<std::int64_t>(m.cols.size());
  const std::int64_t first = rows * rank() / nranks(), last = rows * (rank() + 1) / nranks();
  std::vector<std::int64_t> lengths;
  std::vector<I> cs;
  std::vector<double> vs;
  for (std::int64_t r = first; r < last; ++r) {
    const auto u = static_cast<std::size_t>(r);
    lengths.push_back(static_cast<std::int64_t>(m.cols[u].size()));
    for (const std::int64_t col : m.cols[u]) cs.push_back(static_cast<I>(col));
    vs.insert(vs.end(), m.vals[u].begin(), m.vals[u].end());
  }
  const vseg::array<std::int64_t> ls(std::move(lengths));
  return {nested<I>::from_local(vseg::nested<I>::from_lengths(ls, vseg::array<I>(std::move(cs))), MPI_COMM_WORLD),
          nested<double>::from_local(vseg::nested<double>::from_lengths(ls, vseg::array<double>(std::move(vs))),
                                     MPI_COMM_WORLD)};
}

// The cuts of n into `parts` blocks of (nearly) equal size: n * t / parts, t = 0..parts.
std::vector<std::int64_t> even_cuts(std::int64_t n, std::int64_t parts) {
  std::vector<std::int64_t> cuts;
  for (std::int64_t t = 0; t <= parts; ++t) cuts.push_back(n * t / parts);
  return cuts;
}

// Row cuts that are not the even ones: every inner cut one row later, and
// row block 1 empty when there are three or more.
std::vector<std::int64_t> uneven_row_cuts(std::int64_t n, std::int64_t parts) {
  std::vector<std::int64_t> cuts;
  for (std::int64_t t = 0; t <= parts; ++t) cuts.push_back(n * t / parts + (t > 0 && t < parts ? 1 : 0));
  if (parts >= 3) cuts[2] = cuts[1];
  return cuts;
}

template <class I>
void check_blocks(const sharding& spec, const sharding* layout_1d) {
  auto mesh = std::make_shared<const process_mesh>(spec, MPI_COMM_WORLD);
  const std::int64_t r = mesh->rows(), c = mesh->cols(), rows = 23, columns = 30;
  const std::vector<std::int64_t> row_cuts = uneven_row_cuts(rows, r);  // row block 1 empty with 3+
  const std::vector<std::int64_t> column_cuts = even_cuts(columns, c);
  // Column block 1 (with two or more) gets no entry.
  const whole_matrix m = c >= 2 ? make_matrix(rows, columns, column_cuts[1], column_cuts[2])
                                : make_matrix(rows, columns, 0, 0);
  auto [cols, vals] = rows_1d<I>(m);
  if (layout_1d) {  // else the layout rows_1d made
    cols = cols.reshard(*layout_1d);
    vals = vals.reshard(*layout_1d);
  }
  const auto blocks = to_mesh_blocks(cols, vals, mesh, row_cuts, column_cuts);

  // The block cut from the whole matrix.
  const auto i = static_cast<std::size_t>(mesh->row()), j = static_cast<std::size_t>(mesh->col());
  const std::int64_t lo = column_cuts[j], hi = column_cuts[j + 1];
  std::vector<std::int64_t> lengths;
  std::vector<I> expected_cols;
  std::vector<double> expected_vals;
  for (std::int64_t row = row_cuts[i]; row < row_cuts[i + 1]; ++row) {
    const auto u = static_cast<std::size_t>(row);
    std::int64_t n = 0;
    for (std::size_t k = 0; k < m.cols[u].size(); ++k)
      if (m.cols[u][k] >= lo && m.cols[u][k] < hi) {
        expected_cols.push_back(static_cast<I>(m.cols[u][k] - lo));
        expected_vals.push_back(m.vals[u][k]);
        ++n;
      }
    lengths.push_back(n);
  }
  const auto& got_cols = blocks.cols.pieces();
  const auto& got_vals = blocks.vals.pieces();
  REQUIRE(got_cols.size() == static_cast<std::int64_t>(lengths.size()));
  REQUIRE(got_vals.size() == static_cast<std::int64_t>(lengths.size()));
  CHECK(blocks.cols.global_segments() == rows);  // the row blocks, over the process column
  if (c >= 2 && j == 1) CHECK(expected_cols.empty());
  std::size_t e = 0;
  for (std::int64_t k = 0; k < got_cols.size(); ++k) {
    INFO("row " << row_cuts[i] + k);
    REQUIRE(got_cols[k].size() == lengths[static_cast<std::size_t>(k)]);
    REQUIRE(got_vals[k].size() == lengths[static_cast<std::size_t>(k)]);
    for (std::int64_t t = 0; t < lengths[static_cast<std::size_t>(k)]; ++t, ++e) {
      CHECK(got_cols[k][t] == expected_cols[e]);
      CHECK(std::bit_cast<std::uint64_t>(got_vals[k][t]) == std::bit_cast<std::uint64_t>(expected_vals[e]));
    }
  }
  CHECK(e == expected_cols.size());

  // The blocks fold like any mesh block: sum_s has the single-node bits.
  const vseg::array<double> y = sum_s(blocks.vals);
  const std::int64_t a = row_cuts[i], n = row_cuts[i + 1] - a;
  const std::int64_t first = a + equal_part_start(n, c, mesh->col());
  const std::int64_t last = a + equal_part_start(n, c, mesh->col() + 1);
  REQUIRE(y.size() == last - first);
  std::vector<std::int64_t> whole_lengths;
  std::vector<double> whole_vals;
  for (const auto& vs : m.vals) {
    whole_lengths.push_back(static_cast<std::int64_t>(vs.size()));
    whole_vals.insert(whole_vals.end(), vs.begin(), vs.end());
  }
  const vseg::array<double> expected = vseg::sum_s(vseg::nested<double>::from_lengths(
      vseg::array<std::int64_t>(std::move(whole_lengths)), vseg::array<double>(std::move(whole_vals))));
  for (std::int64_t row = first; row < last; ++row)
    CHECK(std::bit_cast<std::uint64_t>(y[row - first]) == std::bit_cast<std::uint64_t>(expected[row]));
}

}  // namespace

TEST_CASE("to_mesh_blocks: the blocks cut from the whole matrix, on every mesh and from several 1D layouts") {
  const int p = nranks();
  const sharding balanced = sharding::balanced(), block = sharding::block();
  for (const auto& spec : {sharding::mesh(), sharding::mesh(1, p), sharding::mesh(p, 1)})
    for (const sharding* layout : {&balanced, &block, static_cast<const sharding*>(nullptr)}) {
      INFO(spec << " from " << (layout ? layout->to_string() : "the rows as read"));
      check_blocks<std::int32_t>(spec, layout);
      check_blocks<std::int64_t>(spec, layout);
    }
}

TEST_CASE("to_mesh_blocks: one exchange of 8 bytes a row and column block plus the entries") {
  const int p = nranks();
  for (const auto& spec : {sharding::mesh(), sharding::mesh(1, p), sharding::mesh(p, 1)}) {
    INFO(spec);
    auto mesh = std::make_shared<const process_mesh>(spec, MPI_COMM_WORLD);
    const std::int64_t r = mesh->rows(), c = mesh->cols(), rows = 23, columns = 30;
    const std::vector<std::int64_t> row_cuts = even_cuts(rows, r), column_cuts = even_cuts(columns, c);
    const whole_matrix m = make_matrix(rows, columns, 0, 0);
    const auto [cols, vals] = rows_1d<std::int32_t>(m);
    // What this rank sends to the others: per row of its 1D part and column
    // block, 8 bytes and the row's entries there (4 + 8 bytes each).
    std::int64_t expected = 0;
    for (std::int64_t row = rows * rank() / p; row < rows * (rank() + 1) / p; ++row) {
      const std::int64_t i = std::upper_bound(row_cuts.begin(), row_cuts.end(), row) - row_cuts.begin() - 1;
      for (std::int64_t j = 0; j < c; ++j) {
        if (i * c + j == rank()) continue;
        expected += 8;
        const std::int64_t lo = column_cuts[static_cast<std::size_t>(j)];
        const std::int64_t hi = column_cuts[static_cast<std::size_t>(j) + 1];
        for (const std::int64_t col : m.cols[static_cast<std::size_t>(row)]) expected += 12 * (col >= lo && col < hi);
      }
    }
    reset_traffic();
    const auto blocks = to_mesh_blocks(cols, vals, mesh, row_cuts, column_cuts);
    auto all = counted_traffic();
    // Less what mesh_block itself sends (the row-fold plan), the same for
    // the same blocks.
    reset_traffic();
    (void)mesh_block(blocks.cols.pieces(), mesh);
    (void)mesh_block(blocks.vals.pieces(), mesh);
    auto plans = counted_traffic();
    CHECK(all.by_function["MPI_Alltoallv"].second - plans.by_function["MPI_Alltoallv"].second == expected);
    CHECK(all.by_function["MPI_Alltoallv"].first - plans.by_function["MPI_Alltoallv"].first == 1);
    CHECK(all.by_function["MPI_Alltoall"].first - plans.by_function["MPI_Alltoall"].first == 1);
  }
}

TEST_CASE("to_mesh_blocks: bad input throws the same exception on every rank, no hang") {
  const int p = nranks();
  auto mesh = std::make_shared<const process_mesh>(sharding::mesh(), MPI_COMM_WORLD);
  const std::int64_t r = mesh->rows(), c = mesh->cols(), rows = 12, columns = 10;
  const std::vector<std::int64_t> row_cuts = even_cuts(rows, r), column_cuts = even_cuts(columns, c);
  const whole_matrix m = make_matrix(rows, columns, 0, 0);
  const auto [cols, vals] = rows_1d<std::int32_t>(m);
  REQUIRE_NOTHROW(to_mesh_blocks(cols, vals, mesh, row_cuts, column_cuts));

  // Cuts not covering the rows or the columns, or of the wrong size.
  auto short_rows = row_cuts;
  short_rows.back() = rows - 1;
  CHECK_THROWS_AS(to_mesh_blocks(cols, vals, mesh, short_rows, column_cuts), std::invalid_argument);
  if (c >= 2) {
    auto decreasing = column_cuts;
    decreasing[1] = -1;
    CHECK_THROWS_AS(to_mesh_blocks(cols, vals, mesh, row_cuts, decreasing), std::invalid_argument);
  }
  if (r >= 2) {
    auto decreasing = row_cuts;
    decreasing[1] = rows + 1;
    CHECK_THROWS_AS(to_mesh_blocks(cols, vals, mesh, decreasing, column_cuts), std::invalid_argument);
  }
  // One rank's cuts of the wrong size, or different from the others'.
  if (p > 1) {
    auto odd = row_cuts;
    if (rank() == p - 1) odd.push_back(rows);
    CHECK_THROWS_AS(to_mesh_blocks(cols, vals, mesh, odd, column_cuts), std::invalid_argument);
    auto other = column_cuts;
    if (rank() == 1) other.back() = columns + 3;
    CHECK_THROWS_AS(to_mesh_blocks(cols, vals, mesh, row_cuts, other), std::invalid_argument);
    const mesh_fold order = rank() == 0 ? mesh_fold::column_blocks : mesh_fold::serial;
    CHECK_THROWS_AS(to_mesh_blocks(cols, vals, mesh, row_cuts, column_cuts, order), std::invalid_argument);
  }
  // A column out of range on the last rank only (its last row gets one more entry).
  {
    auto [cs, ls] = std::pair{cols.local_segments(), vals.local_segments()};
    if (rank() == p - 1) {
      cs.counts.back() += 1;
      cs.data.push_back(static_cast<std::int32_t>(columns));
      ls.counts.back() += 1;
      ls.data.push_back(1.0);
    }
    const auto bad_cols = nested<std::int32_t>::from_segments(std::move(cs), MPI_COMM_WORLD);
    const auto bad_vals = nested<double>::from_segments(std::move(ls), MPI_COMM_WORLD);
    CHECK_THROWS_AS(to_mesh_blocks(bad_cols, bad_vals, mesh, row_cuts, column_cuts), std::out_of_range);
    // cols and vals of different shapes on one rank.
    CHECK_THROWS_AS(to_mesh_blocks(bad_cols, vals, mesh, row_cuts, column_cuts), std::invalid_argument);
  }
  // A cyclic 1D layout: not rows in contiguous blocks.
  CHECK_THROWS_AS(to_mesh_blocks(cols.reshard(sharding::cyclic()), vals.reshard(sharding::cyclic()), mesh, row_cuts,
                                 column_cuts),
                  std::invalid_argument);
}

// from_mesh_blocks (vseg/dist/mesh_rows.hpp): the rows again, on the rank
// owning each row in the blocks' folds, every entry in its place; rows whose
// columns are not sorted come back stably partitioned by column block.
template <class I>
void check_rows_back(const sharding& spec, bool descending) {
  auto mesh = std::make_shared<const process_mesh>(spec, MPI_COMM_WORLD);
  const std::int64_t r = mesh->rows(), c = mesh->cols(), rows = 23, columns = 30;
  const std::vector<std::int64_t> row_cuts = uneven_row_cuts(rows, r);  // row block 1 empty with 3+
  const std::vector<std::int64_t> column_cuts = even_cuts(columns, c);
  whole_matrix m = make_matrix(rows, columns, 0, 0);
  if (descending)
    for (std::size_t k = 0; k < m.cols.size(); ++k) {
      std::reverse(m.cols[k].begin(), m.cols[k].end());
      std::reverse(m.vals[k].begin(), m.vals[k].end());
    }
  const auto [cols, vals] = rows_1d<I>(m);
  const auto blocks = to_mesh_blocks(cols, vals, mesh, row_cuts, column_cuts);
  const auto back = from_mesh_blocks(blocks.cols, blocks.vals, column_cuts, MPI_COMM_WORLD);

  // The rows sum_s on the blocks returns here, in order.
  const auto i = static_cast<std::size_t>(mesh->row());
  const std::int64_t a = row_cuts[i], n = row_cuts[i + 1] - a;
  const std::int64_t first = a + equal_part_start(n, c, mesh->col());
  const std::int64_t last = a + equal_part_start(n, c, mesh->col() + 1);
  REQUIRE(back.cols.pieces().size() == last - first);
  REQUIRE(back.vals.pieces().size() == last - first);
  CHECK(back.cols.global_segments() == rows);
  CHECK(sum_s(blocks.vals).size() == last - first);
  for (std::int64_t row = first; row < last; ++row) {
    INFO("row " << row);
    const auto u = static_cast<std::size_t>(row);
    CHECK(back.cols.piece_ids()[row - first] == row);
    // The row's entries, stably partitioned by column block.
    std::vector<I> expected_cols;
    std::vector<double> expected_vals;
    for (std::int64_t j = 0; j < c; ++j)
      for (std::size_t k = 0; k < m.cols[u].size(); ++k)
        if (m.cols[u][k] >= column_cuts[static_cast<std::size_t>(j)] &&
            m.cols[u][k] < column_cuts[static_cast<std::size_t>(j) + 1]) {
          expected_cols.push_back(static_cast<I>(m.cols[u][k]));
          expected_vals.push_back(m.vals[u][k]);
        }
    if (!descending) CHECK(expected_vals == m.vals[u]);  // sorted rows: the row itself
    const auto got_cols = back.cols.pieces()[row - first];
    const auto got_vals = back.vals.pieces()[row - first];
    CHECK(std::vector<I>(got_cols.begin(), got_cols.end()) == expected_cols);
    REQUIRE(got_vals.size() == static_cast<std::int64_t>(expected_vals.size()));
    for (std::size_t k = 0; k < expected_vals.size(); ++k)
      CHECK(std::bit_cast<std::uint64_t>(got_vals[static_cast<std::int64_t>(k)]) ==
            std::bit_cast<std::uint64_t>(expected_vals[k]));
  }
}

TEST_CASE("from_mesh_blocks: the 1D rows back on their owners, on every mesh; round trip row for row") {
  const int p = nranks();
  for (const auto& spec : {sharding::mesh(), sharding::mesh(1, p), sharding::mesh(p, 1)})
    for (const bool descending : {false, true}) {
      INFO(spec << (descending ? ", columns descending" : ", columns sorted"));
      check_rows_back<std::int32_t>(spec, descending);
      check_rows_back<std::int64_t>(spec, descending);
    }
}

TEST_CASE("from_mesh_blocks: one exchange within the process row, 8 bytes a row plus the entries") {
  auto mesh = std::make_shared<const process_mesh>(sharding::mesh(1, nranks()), MPI_COMM_WORLD);
  const std::int64_t c = mesh->cols(), rows = 23, columns = 30;
  const std::vector<std::int64_t> row_cuts{0, rows};
  const std::vector<std::int64_t> column_cuts = even_cuts(columns, c);
  const whole_matrix m = make_matrix(rows, columns, 0, 0);
  const auto [cols, vals] = rows_1d<std::int32_t>(m);
  const auto blocks = to_mesh_blocks(cols, vals, mesh, row_cuts, column_cuts);
  // This rank's block holds every row's slice in its column block; the rows
  // owned by the other ranks of the row leave: 8 bytes a row, 12 an entry.
  const std::int64_t lo = column_cuts[static_cast<std::size_t>(mesh->col())];
  const std::int64_t hi = column_cuts[static_cast<std::size_t>(mesh->col()) + 1];
  std::int64_t expected = 0;
  for (std::int64_t row = 0; row < rows; ++row) {
    if (row >= equal_part_start(rows, c, mesh->col()) && row < equal_part_start(rows, c, mesh->col() + 1)) continue;
    expected += 8;
    for (const std::int64_t col : m.cols[static_cast<std::size_t>(row)]) expected += 12 * (col >= lo && col < hi);
  }
  reset_traffic();
  (void)from_mesh_blocks(blocks.cols, blocks.vals, column_cuts, MPI_COMM_WORLD);
  auto t = counted_traffic();
  CHECK(t.by_function["MPI_Alltoallv"].first == 1);
  CHECK(t.by_function["MPI_Alltoallv"].second == expected);
  CHECK(t.by_function["MPI_Alltoall"].first == 1);
}

TEST_CASE("from_mesh_blocks: bad input throws the same exception on every rank, no hang") {
  const int p = nranks();
  auto mesh = std::make_shared<const process_mesh>(sharding::mesh(), MPI_COMM_WORLD);
  const std::int64_t r = mesh->rows(), c = mesh->cols(), rows = 12, columns = 10;
  const std::vector<std::int64_t> row_cuts = even_cuts(rows, r), column_cuts = even_cuts(columns, c);
  const whole_matrix m = make_matrix(rows, columns, 0, 0);
  const auto [cols, vals] = rows_1d<std::int32_t>(m);
  const auto blocks = to_mesh_blocks(cols, vals, mesh, row_cuts, column_cuts);
  REQUIRE_NOTHROW(from_mesh_blocks(blocks.cols, blocks.vals, column_cuts, MPI_COMM_WORLD));
  // 1D arrays are no mesh blocks; cols and vals of two different meshes' blocks.
  CHECK_THROWS_WITH_AS(from_mesh_blocks(cols, vals, column_cuts, MPI_COMM_WORLD),
                       doctest::Contains("blocks of one process mesh"), std::invalid_argument);
  auto other = std::make_shared<const process_mesh>(sharding::mesh(), MPI_COMM_WORLD);
  const auto other_blocks = to_mesh_blocks(cols, vals, other, row_cuts, column_cuts);
  CHECK_THROWS_AS(from_mesh_blocks(blocks.cols, other_blocks.vals, column_cuts, MPI_COMM_WORLD),
                  std::invalid_argument);
  // One rank's column cuts of the wrong size, or different from the others'.
  auto longer = column_cuts;
  if (rank() == p - 1) longer.push_back(columns);
  CHECK_THROWS_AS(from_mesh_blocks(blocks.cols, blocks.vals, longer, MPI_COMM_WORLD), std::invalid_argument);
  if (p > 1) {
    auto wider = column_cuts;
    if (rank() == 1) wider.back() = columns + 3;
    CHECK_THROWS_AS(from_mesh_blocks(blocks.cols, blocks.vals, wider, MPI_COMM_WORLD), std::invalid_argument);
  }
  // A local column outside its column block, on the last rank only.
  std::vector<std::vector<std::int32_t>> bad = vseg::to_vectors(blocks.cols.pieces());
  if (rank() == p - 1 && !bad.empty()) bad.back().push_back(static_cast<std::int32_t>(columns));
  std::vector<std::vector<double>> bad_vals = vseg::to_vectors(blocks.vals.pieces());
  if (rank() == p - 1 && !bad_vals.empty()) bad_vals.back().push_back(1.0);
  const auto bad_cols = mesh_block(vseg::nested<std::int32_t>::from(bad), mesh);
  const auto bad_v = mesh_block(vseg::nested<double>::from(bad_vals), mesh);
  std::int64_t any = rank() == p - 1 && !bad.empty(), some = 0;
  MPI_Allreduce(&any, &some, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (some > 0)
    CHECK_THROWS_WITH_AS(from_mesh_blocks(bad_cols, bad_v, column_cuts, MPI_COMM_WORLD),
                         doctest::Contains("outside column block"), std::out_of_range);
}

// Row `row` of m made n entries long (values as make_matrix's), its first
// `head` entries in column 0 and the others cycling over the columns
// [from, m.columns) outside [avoid_lo, avoid_hi).
void make_long_row(whole_matrix& m, std::int64_t row, std::int64_t n, std::int64_t head, std::int64_t from,
                   std::int64_t avoid_lo, std::int64_t avoid_hi, std::mt19937_64& rng) {
  std::vector<std::int64_t> allowed;
  for (std::int64_t col = from; col < m.columns; ++col)
    if (col < avoid_lo || col >= avoid_hi) allowed.push_back(col);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto& cols = m.cols[static_cast<std::size_t>(row)];
  auto& vals = m.vals[static_cast<std::size_t>(row)];
  cols.clear();
  vals.clear();
  for (std::int64_t k = 0; k < n; ++k) {
    cols.push_back(k < head ? 0 : allowed[static_cast<std::size_t>(k) % allowed.size()]);
    vals.push_back(u(rng) * std::ldexp(1.0, static_cast<int>(rng() % 20)));
  }
  std::sort(cols.begin(), cols.end());
}

// scan_s on mesh blocks: each block's slices of the rows carry the
// single-node vseg::scan_s of the whole matrix, bit for bit, on every mesh
// and both fold orders (the scan does not depend on the fold order). The
// rows that span process columns pass their scan state along the process
// row: a planned scan sends 1-5 values per row and process-column
// boundary it crosses, nothing else (PMPI-counted).
TEST_CASE("scan_s on mesh blocks: the single-node scan_s bits of the whole matrix, every mesh") {
  const int p = nranks();
  for (const auto& spec : {sharding::mesh(), sharding::mesh(1, p), sharding::mesh(p, 1)})
    for (const mesh_fold order : {mesh_fold::serial, mesh_fold::column_blocks}) {
      INFO(spec << ", " << order);
      auto mesh = std::make_shared<const process_mesh>(spec, MPI_COMM_WORLD);
      const std::int64_t r = mesh->rows(), c = mesh->cols(), rows = 23, columns = 30;
      const std::vector<std::int64_t> row_cuts = uneven_row_cuts(rows, r);  // row block 1 empty with 3+
      const std::vector<std::int64_t> column_cuts = even_cuts(columns, c);
      // With 3+ process columns, column block 1 holds nothing: the states pass through it.
      const std::int64_t avoid_lo = c >= 3 ? column_cuts[1] : 0, avoid_hi = c >= 3 ? column_cuts[2] : 0;
      whole_matrix m = make_matrix(rows, columns, avoid_lo, avoid_hi);
      // Values that round differently in another order, and rows the
      // single-node scan cuts (tuning::segmented_block) or folds in groups
      // (tuning::fold_group_min), crossing the process columns at various
      // offsets: a plain left-to-right scan of the rows fails this test.
      // Row 5 spans three of the scan's blocks, its first cut exactly where
      // column block 0 ends (a state at a piece's first offset).
      constexpr std::int64_t block = vseg::tuning::segmented_block;
      auto rng = rng_for(9, 0);
      std::int64_t step = 5;  // row 5's first element's merge step: its global element + 5
      for (std::int64_t row = 0; row < 5; ++row) step += static_cast<std::int64_t>(m.cols[static_cast<std::size_t>(row)].size());
      const std::int64_t first_cut = block - step % block;
      const std::int64_t from = c >= 2 ? column_cuts[1] : 0;
      make_long_row(m, 5, 3 * block + 300, c >= 2 ? first_cut : 0, from, avoid_lo, avoid_hi, rng);
      const std::int64_t lengths[] = {16, 17, 19, 45, block - 3, block + 9, 2 * block + 1};
      const std::int64_t at[] = {7, 9, 10, 11, 13, 14, 15};
      for (std::size_t k = 0; k < std::size(at); ++k) make_long_row(m, at[k], lengths[k], 0, 0, avoid_lo, avoid_hi, rng);
      const auto [cols, vals] = rows_1d<std::int32_t>(m);
      const auto blocks = to_mesh_blocks(cols, vals, mesh, row_cuts, column_cuts, order);
      const auto scanned = scan_s(blocks.vals, vseg::plus<double>{});
      CHECK(scanned.placement() == blocks.vals.placement());

      std::vector<std::int64_t> whole_lengths;
      std::vector<double> whole_vals;
      for (const auto& vs : m.vals) {
        whole_lengths.push_back(static_cast<std::int64_t>(vs.size()));
        whole_vals.insert(whole_vals.end(), vs.begin(), vs.end());
      }
      const auto expected = vseg::scan_s(vseg::nested<double>::from_lengths(
          vseg::array<std::int64_t>(std::move(whole_lengths)), vseg::array<double>(std::move(whole_vals))));
      const auto i = static_cast<std::size_t>(mesh->row()), j = static_cast<std::size_t>(mesh->col());
      REQUIRE(scanned.pieces().size() == row_cuts[i + 1] - row_cuts[i]);
      std::int64_t differ = 0, compared = 0;
      for (std::int64_t row = row_cuts[i]; row < row_cuts[i + 1]; ++row) {
        const auto u = static_cast<std::size_t>(row);
        const auto got = scanned.pieces()[row - row_cuts[i]];
        std::int64_t t = 0;
        for (std::size_t k = 0; k < m.cols[u].size(); ++k)
          if (m.cols[u][k] >= column_cuts[j] && m.cols[u][k] < column_cuts[j + 1]) {
            const bool inside = t < static_cast<std::int64_t>(got.size());
            differ += !inside || std::bit_cast<std::uint64_t>(got[t]) !=
                                     std::bit_cast<std::uint64_t>(expected[row][static_cast<std::int64_t>(k)]);
            ++t;
            ++compared;
          }
        CHECK(t == static_cast<std::int64_t>(got.size()));
      }
      CHECK(differ == 0);
      std::int64_t all = 0;
      MPI_Allreduce(&compared, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      CHECK(all > 3 * vseg::tuning::segmented_block);

      // Planned, the scan sends only the states: per row and process-column
      // boundary it crosses (elements on both sides), 1-5 doubles.
      std::int64_t crossings = 0;
      for (const auto& row_cols : m.cols)
        for (std::int64_t q = 1; q < c; ++q) {
          const auto before = std::lower_bound(row_cols.begin(), row_cols.end(), column_cuts[static_cast<std::size_t>(q)]);
          crossings += before != row_cols.begin() && before != row_cols.end();
        }
      reset_traffic();
      const auto again = scan_s(blocks.vals, vseg::plus<double>{});
      auto traffic = counted_traffic();
      CHECK(traffic.calls == traffic.by_function["MPI_Isend"].first);
      std::int64_t bytes = traffic.bytes;
      MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      CHECK(bytes >= 8 * crossings);
      CHECK(bytes <= 40 * crossings);
      std::int64_t same = 1;
      for (std::int64_t k = 0; k < again.pieces().size(); ++k)
        for (std::size_t e = 0; e < again.pieces()[k].size(); ++e)
          same &= std::bit_cast<std::uint64_t>(again.pieces()[k][e]) == std::bit_cast<std::uint64_t>(scanned.pieces()[k][e]);
      CHECK(same == 1);
    }
}
