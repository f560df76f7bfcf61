// The communication model of distributed SpMV (notes/distributed.md): for a
// matrix and p ranks, what each rank sends per product, counted from the
// matrix's structure alone (no MPI).
//
//   1D  rows (and x) in p blocks balanced by nonzeros, as sharding::balanced:
//       rank r sends to rank s the distinct x entries it owns that s's rows
//       name. This is what the gather plan of dist::index_l moves; the
//       test spmv_traffic checks the two agree through the PMPI counts.
//   2D  a pr x pc mesh: rows in pr blocks balanced by nonzeros, columns in
//       pc equal blocks; rank (i, j) holds block A_ij, part i of x's column
//       block j and part j of y's row block i. Expand: the distinct x entries
//       of A_ij come from the pr ranks of process column j; fold: the partial
//       sums of A_ij's non-empty rows go to the pc ranks of process row i.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

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

// The block of `first` holding item i; O(log p).
inline std::int64_t block_of(const std::vector<std::int64_t>& first, std::int64_t i) {
  return std::upper_bound(first.begin(), first.end(), i) - first.begin() - 1;
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

// Per rank (i * pc + j), what it sends in one 2D product (expand + fold).
// O(nnz log nnz + p).
inline std::vector<rank_traffic> model_2d(const vseg::csr_matrix& m, std::int64_t pr, std::int64_t pc) {
  const auto row_blocks = balanced_rows(m, pr);
  std::vector<std::int64_t> col_blocks(static_cast<std::size_t>(pc) + 1);
  for (std::int64_t j = 0; j <= pc; ++j) col_blocks[j] = m.cols * j / pc;
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
    std::vector<std::vector<char>> row_hit(static_cast<std::size_t>(pc));
    for (auto& h : row_hit) h.assign(static_cast<std::size_t>(row_blocks[i + 1] - row_blocks[i]), 0);
    for (std::int64_t r = row_blocks[i]; r < row_blocks[i + 1]; ++r)
      for (std::int64_t end = k + m.row_lengths[r]; k < end; ++k) {
        const std::int64_t c = m.col_indices[k], j = block_of(col_blocks, c);
        cells.emplace_back(j, c);
        row_hit[j][r - row_blocks[i]] = 1;
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
