// The fold of a mesh row in the plain single-node order (mesh_fold::serial):
// a chain along the process row that continues each row exactly where the
// previous process column stopped.
//
// The single-node fold (vseg::sum_s, detail::fold_flat) of global row R,
// whose first element is step `step` of the merge of elements and segment
// ends (its global element plus R), cuts the row at the offsets o in
// [0, length] where step + o is a positive multiple of
// tuning::segmented_block. Between cuts lie the pieces (the first or the
// last may be empty); each piece is folded from the identity by
// detail::fold_range_by (left to right below tuning::fold_group_min
// elements, else groups of 4 from the piece's start, each a tree
// ((a + b) + (c + d)), then the 0-3 left plain), and the pieces are combined
// left to right: ((p0 + p1) + p2) + ...
//
// That fold can stop after any element and go on elsewhere: its state at
// offset o is {the combined finished pieces, the current piece's
// accumulator, the 0-3 elements of an unfinished group (kept as a + b and
// c)}. Which of those values carry information follows from o and the row's
// step and length alone, so a state crosses the wire as 1-4 values and both
// sides know how many (state_width). Rank (i, j) takes the states of its
// block's rows at its slices' starts from (i, j - 1), folds its slices and
// passes the states on to (i, j + 1); the rank holding a row's last element
// (rank (i, 0) for an empty row) finishes it. The rows go in
// chain_chunks chunks, so that the process columns work at the same time:
// a chunk's states leave as soon as it is folded, and a rank folds the rows
// that need no state first (fold_chain). For rows spanning all c process
// columns the latency is about (K + c - 1) / K of one block's fold with K
// chunks; for a banded matrix, about one block's fold.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/fold_range.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/dist/datatype.hpp"
#include "vseg/dist/detail/exchange.hpp"
#include "vseg/tuning.hpp"

namespace vseg::dist::detail {

// How many chunks of rows the chain is cut into (fewer for fewer rows).
inline constexpr std::int64_t chain_chunks = 8;

// A piece of a row between two cuts of the single-node fold: its index in
// the row and its offsets [first, last).
struct row_piece {
  std::int64_t index;
  std::int64_t first;
  std::int64_t last;
};

// The piece the fold of a row (first element at merge step `step`, `length`
// elements) is in at offset o <= length, once every piece ending at o is
// finished; O(1).
inline row_piece piece_at(std::int64_t step, std::int64_t length, std::int64_t o) {
  constexpr std::int64_t block = tuning::segmented_block;
  const std::int64_t phase = step % block;
  const std::int64_t first_cut = phase != 0 ? block - phase : step == 0 ? block : 0;
  if (o < first_cut) return {0, 0, std::min(first_cut, length)};
  const std::int64_t index = 1 + (o - first_cut) / block;
  const std::int64_t first = first_cut + (index - 1) * block;
  return {index, first, std::min(first + block, length)};
}

// Whether the single-node fold cuts a row nowhere (no cut in [0, length]):
// then its fold is one fold_range_by from the identity; O(1).
inline bool uncut(std::int64_t step, std::int64_t length) {
  const row_piece p = piece_at(step, length, 0);
  return p.index == 0 && p.last == length && piece_at(step, length, length).index == 0;
}

// How many elements of an unfinished group of 4 the fold holds at offset o
// of piece p (0 where the piece is folded plainly or past its groups); O(1).
inline std::int64_t pending_in_group(const row_piece& p, std::int64_t o) {
  static_assert(tuning::fold_group == 4, "the chain's state keeps groups of 4");
  const std::int64_t n = p.last - p.first;
  if (n < tuning::fold_group_min || o >= p.first + n / 4 * 4) return 0;
  return (o - p.first) % 4;
}

// How many values the fold's state at offset o of a row carries across
// ranks: the combined pieces (past the first piece), the accumulator (past
// the piece's start), a + b or a (1-3 pending), c (3 pending); O(1).
inline std::int64_t state_width(std::int64_t step, std::int64_t length, std::int64_t o) {
  const row_piece p = piece_at(step, length, o);
  const std::int64_t pending = pending_in_group(p, o);
  return (p.index > 0 ? 1 : 0) + (o > p.first ? 1 : 0) + (pending >= 1 ? 1 : 0) + (pending == 3 ? 1 : 0);
}

// The state of a row's fold (see the top of the file). All identities is
// the state at offset 0 of every row.
template <class T>
struct row_state {
  T combined;
  T acc;
  T pair;   // a, then a + b, of the unfinished group
  T third;  // c of the unfinished group
};

// The state's values at offset o, state_width of them, written from `to`; O(1).
template <class T>
void encode_state(const row_state<T>& s, std::int64_t step, std::int64_t length, std::int64_t o, T* to) {
  const row_piece p = piece_at(step, length, o);
  const std::int64_t pending = pending_in_group(p, o);
  if (p.index > 0) *to++ = s.combined;
  if (o > p.first) *to++ = s.acc;
  if (pending >= 1) *to++ = s.pair;
  if (pending == 3) *to = s.third;
}

// The state at offset o from the values encode_state wrote; O(1).
template <class T, class Monoid>
row_state<T> decode_state(const T* from, std::int64_t step, std::int64_t length, std::int64_t o, const Monoid& mon) {
  const row_piece p = piece_at(step, length, o);
  const std::int64_t pending = pending_in_group(p, o);
  row_state<T> s{mon.identity(), mon.identity(), mon.identity(), mon.identity()};
  if (p.index > 0) s.combined = *from++;
  if (o > p.first) s.acc = *from++;
  if (pending >= 1) s.pair = *from++;
  if (pending == 3) s.third = *from;
  return s;
}

// Continues the fold of a row from offset o to offset q (o <= q <= length),
// at(o') being the element at row offset o'; bit for bit what the
// single-node fold does with those elements. The state lives in locals
// while folding: through the reference, every combine would be a store the
// element reads might alias. O(q - o).
template <class T, class At, class Monoid>
void continue_row(row_state<T>& state, std::int64_t step, std::int64_t length, std::int64_t o, std::int64_t q,
                  const At& at, const Monoid& mon) {
  T combined = state.combined, acc = state.acc, pair = state.pair, third = state.third;
  while (o < q) {
    const row_piece p = piece_at(step, length, o);
    const std::int64_t h = std::min(q, p.last);
    if (p.last - p.first >= tuning::fold_group_min) {
      const std::int64_t groups_end = std::min(h, p.first + (p.last - p.first) / 4 * 4);
      const auto take = [&](std::int64_t k) {  // element k joins its unfinished group
        switch ((k - p.first) % 4) {
          case 0: pair = at(k); break;
          case 1: pair = mon(pair, at(k)); break;
          case 2: third = at(k); break;
          default: acc = mon(acc, mon(pair, mon(third, at(k))));
        }
      };
      for (; o < groups_end && (o - p.first) % 4 != 0; ++o) take(o);
      for (; o + 4 <= groups_end; o += 4) acc = mon(acc, mon(mon(at(o), at(o + 1)), mon(at(o + 2), at(o + 3))));
      for (; o < groups_end; ++o) take(o);
    }
    for (; o < h; ++o) acc = mon(acc, at(o));
    // A cut at o: the piece is finished, the next starts from the identity.
    if (o == p.last && piece_at(step, length, o).index != p.index) {
      combined = p.index == 0 ? acc : mon(combined, acc);
      acc = mon.identity();
    }
  }
  state = {combined, acc, pair, third};
}

// The fold of a row whose state reached its end (offset length); O(1).
template <class T, class Monoid>
T finish_row(const row_state<T>& s, std::int64_t step, std::int64_t length, const Monoid& mon) {
  return piece_at(step, length, length).index > 0 ? mon(s.combined, s.acc) : s.acc;
}

// Continues the fold of an uncut row of `length` >= tuning::fold_group_min
// elements (one grouped piece) from offset o to q: continue_row without the
// search for cuts. acc, pair and third are the state (see row_state);
// at(o') reads the element at row offset o'. O(q - o).
template <class T, class At, class Monoid>
void continue_grouped(T& acc, T& pair, T& third, std::int64_t length, std::int64_t o, std::int64_t q, const At& at,
                      const Monoid& mon) {
  const std::int64_t groups_end = std::min(q, length / 4 * 4);
  const auto take = [&](std::int64_t k) {  // element k joins its unfinished group
    switch (k % 4) {
      case 0: pair = at(k); break;
      case 1: pair = mon(pair, at(k)); break;
      case 2: third = at(k); break;
      default: acc = mon(acc, mon(pair, mon(third, at(k))));
    }
  };
  for (; o < groups_end && o % 4 != 0; ++o) take(o);
  for (; o + 4 <= groups_end; o += 4) acc = mon(acc, mon(mon(at(o), at(o + 1)), mon(at(o + 2), at(o + 3))));
  for (; o < groups_end; ++o) take(o);
  for (; o < q; ++o) acc = mon(acc, at(o));
}

// How many elements of an unfinished group an uncut grouped row's state
// holds at offset o (pending_in_group for its one piece); O(1).
inline std::int64_t grouped_pending(std::int64_t length, std::int64_t o) { return o < length / 4 * 4 ? o % 4 : 0; }

// How fold_chain treats a local row: all here in one piece of the
// single-node fold (one fold_range_by, the common case), none of it here
// and nothing to pass on or finish (the identity), folded here from offset
// 0 or from where it begins here (no state needed), or waiting for a state
// from the previous process column. Two kinds of the short rows of one
// plain piece (most of R-MAT's rows), whose state is the accumulator alone,
// read nothing else of the plan: `head`, begun here and going on (its
// accumulator is sent), and `tail`, waiting for the accumulator and
// finished here.
enum class row_kind : std::uint8_t { whole, absent, independent, waiting, head, tail };

// The chain's plan for one mesh block (built by plan_row_fold).
struct row_chain {
  // Per local row, its kind: one byte, so that the common case reads
  // nothing else of the plan.
  std::vector<row_kind> kind;
  // Per local row: 1 if the single-node fold takes it as one plain piece
  // (uncut, below tuning::fold_group_min elements), so that its state is
  // its accumulator alone: one value wherever it stops past its start; 2 if
  // it takes it as one grouped piece (uncut, longer), so that no merge-block
  // cut needs looking for (continue_grouped); 0 otherwise.
  std::vector<std::uint8_t> plain;
  // Per local row: the merge step of its first element in the whole matrix,
  // its length over all column blocks, this rank's offset in it, and this
  // rank's number of elements of it.
  std::vector<std::int64_t> step, length, offset, mine;
  // Chunk k is the local rows [chunks[k], chunks[k + 1]).
  std::vector<std::int64_t> chunks;
  // Per local row: where its state starts in its chunk's buffer from the
  // previous process column and in the one to the next (-1: none).
  std::vector<std::int64_t> in_at, out_at;
  // Per chunk: the values received from the previous and sent to the next.
  std::vector<int> in_count, out_count;
  // The rows that receive a state, in order; chunk k's are
  // waiting[waiting_at[k], waiting_at[k + 1]).
  std::vector<std::int64_t> waiting, waiting_at;
  // Per chunk: whether a row both receives and sends a state (the chunk's
  // send then waits for the chunk's receive).
  std::vector<char> relays;
  int col = 0, cols = 1;
  MPI_Comm row_comm = MPI_COMM_NULL;
};

// Whether this rank finishes local row r (holds its last element; rank 0
// for a row empty everywhere); O(1).
inline bool finishes_here(const row_chain& c, std::int64_t r) {
  const auto u = static_cast<std::size_t>(r);
  return c.mine[u] > 0 ? c.offset[u] + c.mine[u] == c.length[u] : c.length[u] == 0 && c.col == 0;
}

// Per local row, its fold in the single-node order where this rank
// finishes it (finishes_here; the identity elsewhere), the states of the
// others passed along the process row. row_at(r) gives the reader of local
// row r: a callable on local element k; starts(r) its first local element,
// starts(rows) the local element count.
// The schedule: first every row that needs no state from the previous
// process column, chunk by chunk, a chunk's states sent at once unless a
// relayed row (one that both receives and sends a state) holds it back;
// then, chunk by chunk as the states arrive, the rows waiting for them, and
// the held-back sends. So a process column waits only once its own
// independent work is done (a banded matrix: barely at all), and the
// columns of a matrix whose rows span them all work in a pipeline.
// Collective over the process row: per chunk one MPI_Recv from the previous
// column and one MPI_Isend to the next, where they carry values.
// O(local elements + rows).
template <class T, class Monoid, class Starts, class RowAt>
array<T> fold_chain(const row_chain& c, const Starts& starts, const RowAt& row_at, const Monoid& mon) {
  const auto rows = static_cast<std::int64_t>(c.step.size());
  auto out = buffer<T>::for_overwrite(rows);
  T* o = out.data();
  const auto chunks = static_cast<std::size_t>(c.chunks.size() - 1);
  std::vector<std::vector<T>> sent(chunks);
  std::vector<MPI_Request> requests;
  // Every chunk's receive is posted first, so a state that arrives while
  // this rank folds its independent rows is taken in without waiting for
  // this rank to enter MPI.
  std::vector<std::vector<T>> received(chunks);
  std::vector<MPI_Request> arriving(chunks, MPI_REQUEST_NULL);
  for (std::size_t k = 0; k < chunks; ++k) {
    if (c.in_count[k] == 0) continue;
    received[k].resize(static_cast<std::size_t>(c.in_count[k]));
    check_mpi(MPI_Irecv(received[k].data(), c.in_count[k], datatype<T>(), c.col - 1, static_cast<int>(k),
                        c.row_comm, &arriving[k]),
              "MPI_Irecv");
  }
  // Folds local row r's slice from the state in `from` (or offset 0) and
  // passes it to `to` or finishes it.
  const auto fold_row = [&](std::int64_t r, const T* from, T* to) {
    const auto u = static_cast<std::size_t>(r);
    if (c.plain[u] == 1) {  // a short row in one piece (most of R-MAT's): the state is the accumulator
      T acc = c.in_at[u] >= 0 ? from[c.in_at[u]] : mon.identity();
      const auto read = row_at(r);
      for (std::int64_t k = starts(r), end = starts(r + 1); k < end; ++k) acc = mon(acc, read(k));
      if (c.out_at[u] >= 0) to[c.out_at[u]] = acc;
      o[r] = finishes_here(c, r) ? acc : mon.identity();
      return;
    }
    if (c.plain[u] == 2) {  // one grouped piece: no cut to look for
      const std::int64_t length = c.length[u], a = c.offset[u], b = a + c.mine[u];
      T acc = mon.identity(), pair = mon.identity(), third = mon.identity();
      if (c.in_at[u] >= 0) {  // begun before: a > 0, so the accumulator is on the wire
        const T* f = from + c.in_at[u];
        acc = *f++;
        const std::int64_t pending = grouped_pending(length, a);
        if (pending >= 1) pair = *f++;
        if (pending == 3) third = *f;
      }
      if (b > a) {
        const auto read = row_at(r);
        const std::int64_t base = starts(r) - a;  // local element of row offset o: base + o
        continue_grouped(acc, pair, third, length, a, b, [&](std::int64_t at) { return read(base + at); }, mon);
      }
      if (c.out_at[u] >= 0) {  // goes on: b > 0
        T* t = to + c.out_at[u];
        *t++ = acc;
        const std::int64_t pending = grouped_pending(length, b);
        if (pending >= 1) *t++ = pair;
        if (pending == 3) *t = third;
      }
      o[r] = b > a && b == length ? acc : mon.identity();  // finishes_here: the last element is here
      return;
    }
    const std::int64_t step = c.step[u], length = c.length[u], a = c.offset[u], b = a + c.mine[u];
    row_state<T> s = c.in_at[u] >= 0 ? decode_state(from + c.in_at[u], step, length, a, mon)
                                     : row_state<T>{mon.identity(), mon.identity(), mon.identity(), mon.identity()};
    if (b > a) {
      const auto read = row_at(r);
      const std::int64_t base = starts(r) - a;  // local element of row offset o: base + o
      continue_row(s, step, length, a, b, [&](std::int64_t at) { return read(base + at); }, mon);
    }
    if (c.out_at[u] >= 0) encode_state(s, step, length, b, to + c.out_at[u]);
    o[r] = finishes_here(c, r) ? finish_row(s, step, length, mon) : mon.identity();
  };
  const auto send = [&](std::size_t k) {
    if (c.out_count[k] == 0) return;
    requests.emplace_back();
    check_mpi(MPI_Isend(sent[k].data(), c.out_count[k], datatype<T>(), c.col + 1, static_cast<int>(k), c.row_comm,
                        &requests.back()),
              "MPI_Isend");
  };
  for (std::size_t k = 0; k < chunks; ++k) {  // the rows that need no state
    sent[k].resize(static_cast<std::size_t>(c.out_count[k]));
    T* to = sent[k].data();
    const std::int64_t first = c.chunks[k];
    vseg::detail::parallel_for(c.chunks[k + 1] - first, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t r = first + lo; r < first + hi; ++r) {
        const row_kind kind = c.kind[static_cast<std::size_t>(r)];
        if (kind == row_kind::whole) {  // all here, one piece: one grouped fold
          o[r] = vseg::detail::fold_range_by<T>(row_at(r), starts(r), starts(r + 1), mon.identity(), mon);
        } else if (kind == row_kind::absent) {
          o[r] = mon.identity();
        } else if (kind == row_kind::head) {  // a short row begun here: its accumulator goes on
          T acc = mon.identity();
          const auto read = row_at(r);
          for (std::int64_t k = starts(r), end = starts(r + 1); k < end; ++k) acc = mon(acc, read(k));
          to[c.out_at[static_cast<std::size_t>(r)]] = acc;
          o[r] = mon.identity();
        } else if (kind == row_kind::independent) {
          fold_row(r, nullptr, to);
        }
      }
    });
    if (!c.relays[k]) send(k);
  }
  for (std::size_t k = 0; k < chunks; ++k) {  // the rows waiting for a state, as the states arrive
    if (c.in_count[k] == 0) continue;
    check_mpi(MPI_Wait(&arriving[k], MPI_STATUS_IGNORE), "MPI_Wait");
    const std::int64_t* waiting = c.waiting.data() + c.waiting_at[k];
    vseg::detail::parallel_for(c.waiting_at[k + 1] - c.waiting_at[k], [&](std::int64_t lo, std::int64_t hi) {
      const T* from = received[k].data();
      for (std::int64_t w = lo; w < hi; ++w) {
        const std::int64_t r = waiting[w];
        if (c.kind[static_cast<std::size_t>(r)] == row_kind::tail) {  // a short row finished here
          T acc = from[c.in_at[static_cast<std::size_t>(r)]];
          const auto read = row_at(r);
          for (std::int64_t e = starts(r), end = starts(r + 1); e < end; ++e) acc = mon(acc, read(e));
          o[r] = acc;
        } else {
          fold_row(r, from, sent[k].data());
        }
      }
    });
    if (c.relays[k]) send(k);
  }
  check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  return std::move(out).freeze();
}

}  // namespace vseg::dist::detail
