// scan_s of a mesh row in the single-node order: a chain along the process
// row that passes each row's scan state from process column to process
// column (detail/mesh_chain.hpp does the same for the fold).
//
// The single-node scan_s (detail::scan_segments) cuts a row where its fold
// does (piece_at) and scans each piece left to right, the first from the
// identity and piece i from the left-to-right combination of the grouped
// folds of pieces 0..i-1: the fold chain's `combined` once piece i - 1 is
// finished. So the scan can stop after any element and go on elsewhere
// from {the running value, the fold chain's state}: at a piece's first
// offset the running value is `combined` (or the identity), and in a row's
// last piece no later piece needs the fold. A state crosses the wire as
// 1-5 values (scan_state_width), which both sides compute from the row's
// merge step, length and the offset alone. The rows go in chain_chunks
// chunks, rows needing no state first, as in fold_chain.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/dist/detail/chain_messages.hpp"
#include "vseg/dist/detail/mesh_chain.hpp"

namespace vseg::dist {
class process_mesh;
}

namespace vseg::dist::detail {

// How many values a row's scan state at offset o carries across ranks: the
// fold's state (state_width) at a piece's first offset, else the running
// value, plus the fold's state unless the piece is the row's last; O(1).
inline std::int64_t scan_state_width(std::int64_t step, std::int64_t length, std::int64_t o) {
  const row_piece p = piece_at(step, length, o);
  if (o == p.first) return state_width(step, length, o);
  return 1 + (p.last < length ? state_width(step, length, o) : 0);
}

// The scan of a row stopped at some offset: the fold chain's state and the
// running value.
template <class T>
struct scan_state {
  row_state<T> fold;
  T run;
};

// The state's values at offset o, scan_state_width of them, written from `to`; O(1).
template <class T>
void encode_scan_state(const scan_state<T>& s, std::int64_t step, std::int64_t length, std::int64_t o, T* to) {
  const row_piece p = piece_at(step, length, o);
  if (o > p.first) *to++ = s.run;
  if (o == p.first || p.last < length) encode_state(s.fold, step, length, o, to);
}

// The state at offset o from the values encode_scan_state wrote (the parts
// not on the wire are identities, never read); O(1).
template <class T, class Monoid>
scan_state<T> decode_scan_state(const T* from, std::int64_t step, std::int64_t length, std::int64_t o,
                                const Monoid& mon) {
  const row_piece p = piece_at(step, length, o);
  scan_state<T> s{{mon.identity(), mon.identity(), mon.identity(), mon.identity()}, mon.identity()};
  if (o > p.first) s.run = *from++;
  if (o == p.first || p.last < length) s.fold = decode_state(from, step, length, o, mon);
  return s;
}

// Continues the scan of a row from offset o to q (o <= q <= length):
// put(o', v) receives the exclusive scan v at row offset o', at(o') reads
// the element there; bit for bit the single-node scan_s. O(q - o).
template <class T, class At, class Put, class Monoid>
void continue_scan(scan_state<T>& s, std::int64_t step, std::int64_t length, std::int64_t o, std::int64_t q,
                   const At& at, const Put& put, const Monoid& mon) {
  T run = s.run;
  while (o < q) {
    const row_piece p = piece_at(step, length, o);
    if (o == p.first) run = p.index > 0 ? s.fold.combined : mon.identity();
    const std::int64_t h = std::min(q, p.last);
    for (std::int64_t k = o; k < h; ++k) {
      const T x = at(k);
      put(k, run);
      run = mon(run, x);
    }
    if (p.last < length) continue_row(s.fold, step, length, o, h, at, mon);  // a later piece starts from it
    o = h;
  }
  s.run = run;
}

// The plan of scan_s along a process row for one mesh block
// (plan_scan_chain): per local row where it lies, and where its states sit
// in each chunk's messages.
struct scan_chain_plan {
  // Per local row: the merge step of its first element in the whole
  // matrix, its length over the process row, this rank's offset in it,
  // and the positions of its state in its chunk's received and sent
  // values (-1: none).
  std::vector<std::int64_t> step, length, offset, in_at, out_at;
  // Chunk k is the local rows [chunk_at[k], chunk_at[k + 1]).
  std::vector<std::int64_t> chunk_at;
  // Per chunk: the values received and sent, and whether a row both
  // receives and sends a state (the send then waits for the receive).
  std::vector<int> in_count, out_count;
  std::vector<char> relays;
  int col = 0;
  MPI_Comm row_comm = MPI_COMM_NULL;
};

// Collective over the mesh: the scan chain of a block whose local rows have
// the given lengths (lib/dist/mesh.cpp). Cost: O(rows); one MPI_Allreduce
// and one MPI_Exscan on the process row, one MPI_Exscan on the process
// column.
std::shared_ptr<const scan_chain_plan> plan_scan_chain(const process_mesh& mesh, const array<std::int64_t>& lengths);

// Which rows of a chunk a pass of scan_chain scans: those that receive no
// state, or those that do (once it arrived).
enum class chain_rows { independent, waiting };

// Scans the local rows [first, last) of the given kind into out, row r
// being data[row_start[r], row_start[r + 1]), from their states in
// `received` (waiting rows), and writes the states they pass on into
// `sent`. O(their elements).
template <class T, class Monoid>
void scan_chunk_rows(const scan_chain_plan& c, std::int64_t first, std::int64_t last, chain_rows kind, const T* data,
                     const std::int64_t* row_start, const T* received, T* sent, T* out, const Monoid& mon) {
  vseg::detail::parallel_for(last - first, chain_stretch_rows, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t r = first + lo; r < first + hi; ++r) {
      const auto u = static_cast<std::size_t>(r);
      const bool waits = c.in_at[u] >= 0;
      if (waits != (kind == chain_rows::waiting)) continue;
      const std::int64_t step = c.step[u], length = c.length[u], a = c.offset[u];
      const std::int64_t b = a + row_start[r + 1] - row_start[r];
      const std::int64_t base = row_start[r] - a;  // local element of row offset o: base + o
      scan_state<T> s = waits ? decode_scan_state(received + c.in_at[u], step, length, a, mon)
                                : scan_state<T>{{mon.identity(), mon.identity(), mon.identity(), mon.identity()},
                                                mon.identity()};
      continue_scan(
          s, step, length, a, b, [&](std::int64_t o) { return data[base + o]; },
          [&](std::int64_t o, const T& v) { out[base + o] = v; }, mon);
      if (c.out_at[u] >= 0) encode_scan_state(s, step, length, b, sent + c.out_at[u]);
    }
  });
}

// The exclusive scan of every local row of a mesh block into out (local
// elements), the states passed along the process row: first the rows that
// need no state, chunk by chunk, a chunk's states sent at once unless a
// relayed row holds it back; then, as each chunk's states arrive, the rows
// waiting for them. Collective over the process row: per chunk one
// MPI_Isend to the next process column and one receive from the previous,
// where they carry values. O(local elements + rows).
template <class T, class Monoid>
void scan_chain(const scan_chain_plan& c, const T* data, const std::int64_t* row_start, const Monoid& mon, T* out) {
  const auto chunks = c.chunk_at.size() - 1;
  chain_messages<T> messages(c.in_count, c.out_count, c.col, c.row_comm);
  for (std::size_t k = 0; k < chunks; ++k) {  // the rows that need no state
    scan_chunk_rows<T>(c, c.chunk_at[k], c.chunk_at[k + 1], chain_rows::independent, data, row_start, nullptr,
                    messages.sent(k), out, mon);
    if (!c.relays[k]) messages.send(k);
  }
  for (std::size_t k = 0; k < chunks; ++k) {  // the rows waiting for a state, as the states arrive
    if (c.in_count[k] == 0) continue;
    messages.wait(k);
    scan_chunk_rows<T>(c, c.chunk_at[k], c.chunk_at[k + 1], chain_rows::waiting, data, row_start, messages.received(k),
                    messages.sent(k), out, mon);
    if (c.relays[k]) messages.send(k);
  }
  messages.finish();
}

}  // namespace vseg::dist::detail
