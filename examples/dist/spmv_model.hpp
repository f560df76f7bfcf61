// The communication model of distributed SpMV (notes/distributed.md): for a
// matrix and p ranks, what each rank sends per product, counted from the
// matrix's structure alone (no MPI).
//
//   1D  rows (and x) in p blocks balanced by nonzeros, as sharding::balanced:
//       rank r sends to rank s the distinct x entries it owns that s's rows
//       name. This is what the gather plan of dist::index_l moves; the
//       test spmv_traffic checks the two agree through the PMPI counts.
//   2D  a pr x pc mesh: rows in pr blocks minimising the largest block's
//       elements + row_weight per row (mesh_rows; row_weight < 0: balanced
//       by the rows' nonzeros, balanced_rows), columns in
//       pc equal blocks; rank (i, j) holds block A_ij, part i of x's column
//       block j and part j of y's row block i. Expand: the distinct x entries
//       of A_ij come from the pr ranks of process column j. Fold, by order:
//       mesh_fold::serial (the default) passes, per chunk of rows, the fold
//       states of the rows that go on from (i, j) to (i, j + 1) (state_width
//       values each, one message per chunk that has any), then each
//       non-empty row from the rank finishing it to its owner; column_blocks
//       sends the partial sums of A_ij's non-empty rows to their owners.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "vseg/dist/mesh.hpp"
#include "vseg/matrix_market.hpp"

namespace dist_spmv {

// What one rank sends in one product: bytes and point-to-point messages.
struct rank_traffic {
  std::int64_t bytes = 0;
  std::int64_t messages = 0;
};

__extension__ typedef __int128 wide;

// Row offsets of p blocks balanced by nonzeros (sharding::balanced's cut:
// block t starts at the first row starting at or after t * nnz / p).
inline std::vector<std::int64_t> balanced_rows(const vseg::csr_matrix& m, std::int64_t p) {
  std::vector<std::int64_t> first(static_cast<std::size_t>(p) + 1, m.rows);
  first[0] = 0;
  std::int64_t t = 1, start = 0;
  for (std::int64_t r = 0; r < m.rows && t < p; ++r) {
    while (t < p && start >= static_cast<std::int64_t>(static_cast<wide>(t) * m.nnz() / p)) first[t++] = r;
    start += m.row_lengths[r];
  }
  return first;
}

// Grid position k of g positions over `rows` rows: rows * k / g.
inline std::int64_t grid_row(std::int64_t rows, std::int64_t g, std::int64_t k) {
  return static_cast<std::int64_t>(static_cast<wide>(rows) * k / g);
}

// The default per-row weight of mesh_rows' block cost, in elements: what a
// row costs the fold (its plan and its state) whether it has elements in
// the block or not (notes/distributed.md, "Row cuts": ~10 for the
// serial chain, ~4 for column_blocks, measured on R-MAT's 2x2 blocks).
inline constexpr std::int64_t default_row_weight = 8;

// Row offsets of pr row blocks on a mesh of pc process columns minimising
// the largest block's cost, a block's cost being its elements plus
// row_weight per row of its row block; cuts on the grid of g positions
// (grid_row), counts[k * pc + j] the elements of rows
// [grid_row(k), grid_row(k + 1)) in column block j. Greedy blocks (each the
// longest within a cost bound) under a binary search of the bound;
// O(g pc log(nnz + rows)).
inline std::vector<std::int64_t> min_max_row_cuts(const std::vector<std::int64_t>& counts, std::int64_t rows,
                                                  std::int64_t g, std::int64_t pr, std::int64_t pc,
                                                  std::int64_t row_weight) {
  std::vector<std::int64_t> first(static_cast<std::size_t>(pr) + 1, rows);
  first[0] = 0;
  if (g == 0) return first;
  // f[k * pc + j]: column block j's cost of the rows before grid position k.
  std::vector<std::int64_t> f(static_cast<std::size_t>((g + 1) * pc), 0);
  for (std::int64_t k = 0; k < g; ++k)
    for (std::int64_t j = 0; j < pc; ++j)
      f[(k + 1) * pc + j] =
          f[k * pc + j] + counts[k * pc + j] + row_weight * (grid_row(rows, g, k + 1) - grid_row(rows, g, k));
  const auto cost = [&](std::int64_t a, std::int64_t b) {
    std::int64_t most = 0;
    for (std::int64_t j = 0; j < pc; ++j) most = std::max(most, f[b * pc + j] - f[a * pc + j]);
    return most;
  };
  // The grid ends of pr greedy blocks of cost <= bound; reaches g if feasible.
  const auto greedy = [&](std::int64_t bound, std::vector<std::int64_t>& ends) {
    ends.clear();
    std::int64_t a = 0;
    for (std::int64_t i = 0; i < pr; ++i) {
      std::int64_t b = a;
      while (b < g && cost(a, b + 1) <= bound) ++b;
      ends.push_back(b);
      a = b;
    }
    return a == g;
  };
  std::vector<std::int64_t> ends;
  std::int64_t lo = -1, hi = cost(0, g);  // lo infeasible, hi feasible
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (greedy(mid, ends) ? hi : lo) = mid;
  }
  greedy(hi, ends);
  for (std::int64_t i = 1; i < pr; ++i) first[i] = grid_row(rows, g, ends[i - 1]);
  return first;
}

// The column block of column c for blocks starting at col_blocks; O(log pc).
inline std::int64_t column_block_of(const std::vector<std::int64_t>& col_blocks, std::int64_t c) {
  return std::upper_bound(col_blocks.begin(), col_blocks.end(), c) - col_blocks.begin() - 1;
}

// 2D's row blocks (min_max_row_cuts) of a matrix on a pr x pc mesh with
// column blocks col_blocks, on a grid of at most `grid` positions.
// O(nnz log pc + grid pc log(nnz + rows)).
inline std::vector<std::int64_t> mesh_rows(const vseg::csr_matrix& m, std::int64_t pr,
                                           const std::vector<std::int64_t>& col_blocks,
                                           std::int64_t row_weight = default_row_weight, std::int64_t grid = 4096) {
  const std::int64_t pc = static_cast<std::int64_t>(col_blocks.size()) - 1, g = std::min(m.rows, grid);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(g * pc), 0);
  std::int64_t e = 0, k = 0;
  for (std::int64_t r = 0; r < m.rows; ++r) {
    while (grid_row(m.rows, g, k + 1) <= r) ++k;
    for (const std::int64_t end = e + m.row_lengths[r]; e < end; ++e)
      ++counts[k * pc + column_block_of(col_blocks, m.col_indices[e])];
  }
  return min_max_row_cuts(counts, m.rows, g, pr, pc, row_weight);
}

// The block of `first` holding item i; O(log p).
inline std::int64_t block_of(const std::vector<std::int64_t>& first, std::int64_t i) {
  return std::upper_bound(first.begin(), first.end(), i) - first.begin() - 1;
}

// The part q of n items cut in `parts` equal parts (equal_part_start) holding item i; O(parts).
inline std::int64_t block_of_equal(std::int64_t n, std::int64_t parts, std::int64_t i) {
  std::int64_t q = 0;
  while (i >= vseg::dist::equal_part_start(n, parts, q + 1)) ++q;
  return q;
}

// Per rank, what it sends in one 1D product. O(nnz + rows + p).
inline std::vector<rank_traffic> model_1d(const vseg::csr_matrix& m, const std::vector<std::int64_t>& rows) {
  const auto p = static_cast<std::int64_t>(rows.size()) - 1;
  std::vector<rank_traffic> sent(static_cast<std::size_t>(p));
  std::vector<std::int64_t> seen(static_cast<std::size_t>(m.cols), -1), peer_seen(static_cast<std::size_t>(p), -1);
  std::int64_t k = 0;
  for (std::int64_t s = 0; s < p; ++s) {
    for (std::int64_t r = rows[s]; r < rows[s + 1]; ++r) {
      for (std::int64_t end = k + m.row_lengths[r]; k < end; ++k) {
        const std::int64_t c = m.col_indices[k];
        if (seen[c] == s) continue;
        seen[c] = s;
        const std::int64_t owner = block_of(rows, c);
        if (owner == s) continue;
        sent[owner].bytes += 8;
        if (peer_seen[owner] != s) {
          peer_seen[owner] = s;
          ++sent[owner].messages;
        }
      }
    }
  }
  return sent;
}

// The fold of row block i (rows [first, last), first element k_first) in
// mesh_fold::serial on pc > 1 process columns, added to `sent`: the chain's
// states (detail/mesh_chain.hpp, the same chunks and widths as the plan) and
// each finished non-empty row to its owner. hits[j][r]: row first + r's entries in
// column block j. O(rows * pc).
inline void fold_chain_2d(const vseg::csr_matrix& m, std::int64_t first, std::int64_t last, std::int64_t k_first,
                          const std::vector<std::vector<std::int64_t>>& hits, std::int64_t i, std::int64_t pc,
                          std::vector<rank_traffic>& sent) {
  using namespace vseg::dist;
  const std::int64_t rows = last - first;
  const std::int64_t chunks = std::max<std::int64_t>(1, std::min(rows, detail::chain_chunks));
  std::vector<std::int64_t> offset(static_cast<std::size_t>(rows), 0), step(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0, element = k_first; r < rows; element += m.row_lengths[first + r], ++r)
    step[static_cast<std::size_t>(r)] = element + first + r;
  std::vector<char> done(static_cast<std::size_t>(rows), 0);
  for (std::int64_t j = 0; j < pc; ++j) {
    rank_traffic& me = sent[static_cast<std::size_t>(i * pc + j)];
    std::vector<char> to(static_cast<std::size_t>(pc), 0);
    for (std::int64_t t = 0; t < chunks; ++t) {
      std::int64_t values = 0;
      for (std::int64_t r = equal_part_start(rows, chunks, t); r < equal_part_start(rows, chunks, t + 1); ++r) {
        const auto u = static_cast<std::size_t>(r);
        const std::int64_t len = m.row_lengths[first + r];
        const std::int64_t b = offset[u] + hits[static_cast<std::size_t>(j)][u];
        if (b > 0 && b < len && j + 1 < pc) values += detail::state_width(step[u], len, b);
        // An empty row is the identity at its owner without a message.
        const bool finishes = hits[static_cast<std::size_t>(j)][u] > 0 && b == len;
        offset[u] = b;
        if (!finishes || done[u]) continue;
        done[u] = 1;
        const std::int64_t q = block_of_equal(rows, pc, r);
        if (q == j) continue;
        me.bytes += 8;
        if (!to[static_cast<std::size_t>(q)]) {
          to[static_cast<std::size_t>(q)] = 1;
          ++me.messages;
        }
      }
      if (values > 0) {
        me.bytes += 8 * values;
        ++me.messages;
      }
    }
  }
}

// Per rank (i * pc + j), what it sends in one 2D product (expand + fold in
// `order`), row blocks as distribute_2d's for row_weight. O(nnz log nnz + p + rows * pc).
inline std::vector<rank_traffic> model_2d(const vseg::csr_matrix& m, std::int64_t pr, std::int64_t pc,
                                          vseg::dist::mesh_fold order = vseg::dist::mesh_fold::serial,
                                          std::int64_t row_weight = default_row_weight) {
  std::vector<std::int64_t> col_blocks(static_cast<std::size_t>(pc) + 1);
  for (std::int64_t j = 0; j <= pc; ++j) col_blocks[j] = m.cols * j / pc;
  const auto row_blocks = row_weight < 0 ? balanced_rows(m, pr) : mesh_rows(m, pr, col_blocks, row_weight);
  std::vector<rank_traffic> sent(static_cast<std::size_t>(pr * pc));
  // Part q of a block [lo, hi) split in n equal parts, for item i.
  const auto part = [](std::int64_t lo, std::int64_t hi, std::int64_t n, std::int64_t i) {
    const std::int64_t len = hi - lo;
    for (std::int64_t q = 0; q < n; ++q)
      if (i < lo + len * (q + 1) / n) return q;
    return n - 1;
  };
  std::int64_t k = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> cells;  // (j, column) of row block i
  for (std::int64_t i = 0; i < pr; ++i) {
    cells.clear();
    const std::int64_t k_first = k;  // row block i's first element
    // row_hit[j][r]: row r's entries in column block j.
    std::vector<std::vector<std::int64_t>> row_hit(static_cast<std::size_t>(pc));
    for (auto& h : row_hit) h.assign(static_cast<std::size_t>(row_blocks[i + 1] - row_blocks[i]), 0);
    for (std::int64_t r = row_blocks[i]; r < row_blocks[i + 1]; ++r)
      for (std::int64_t end = k + m.row_lengths[r]; k < end; ++k) {
        const std::int64_t c = m.col_indices[k], j = block_of(col_blocks, c);
        cells.emplace_back(j, c);
        ++row_hit[j][r - row_blocks[i]];
      }
    std::sort(cells.begin(), cells.end());
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    // Expand: column c of A_ij is owned by rank (part of c in column block j, j).
    std::vector<char> talks(static_cast<std::size_t>(pr * pc * pc), 0);  // [owner][j]
    for (const auto& [j, c] : cells) {
      const std::int64_t owner = part(col_blocks[j], col_blocks[j + 1], pr, c) * pc + j, me = i * pc + j;
      if (owner == me) continue;
      sent[owner].bytes += 8;
      if (!talks[static_cast<std::size_t>(owner * pc + j)]) {
        talks[static_cast<std::size_t>(owner * pc + j)] = 1;
        ++sent[owner].messages;
      }
    }
    if (order == vseg::dist::mesh_fold::serial && pc > 1) {
      fold_chain_2d(m, row_blocks[i], row_blocks[i + 1], k_first, row_hit, i, pc, sent);
      continue;
    }
    // Fold: row r's partial sum of A_ij goes to rank (i, part of r in row block i).
    for (std::int64_t j = 0; j < pc; ++j) {
      const std::int64_t me = i * pc + j;
      std::vector<char> to(static_cast<std::size_t>(pc), 0);
      for (std::int64_t r = row_blocks[i]; r < row_blocks[i + 1]; ++r) {
        if (!row_hit[j][r - row_blocks[i]]) continue;
        const std::int64_t q = part(row_blocks[i], row_blocks[i + 1], pc, r);
        if (q == j) continue;
        sent[me].bytes += 8;
        if (!to[q]) {
          to[q] = 1;
          ++sent[me].messages;
        }
      }
    }
  }
  return sent;
}

}  // namespace dist_spmv
