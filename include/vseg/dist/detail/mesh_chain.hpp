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
// (rank (i, 0) for an empty row) finishes it. The rows go in chain_chunks
// chunks, so that the process columns work at the same time: a chunk's
// states leave as soon as it is folded, and a rank folds the rows that need
// no state first (fold_chain). For rows spanning all c process columns the
// latency is about (K + c - 1) / K of one block's fold with K chunks.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/fold_range.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/dist/datatype.hpp"
#include "vseg/dist/detail/chain_messages.hpp"
#include "vseg/dist/detail/exchange.hpp"
#include "vseg/tuning.hpp"

namespace vseg::dist::detail {

// How many chunks of rows the chain is cut into (fewer for fewer rows), and
// the most rows of a stretch (chain_stretch, the unit of parallel work).
inline constexpr std::int64_t chain_chunks = 8;
inline constexpr std::int64_t chain_stretch_rows = 256;

// A piece of a row between two cuts of the single-node fold: its index in
// the row and its offsets [first, last).
struct row_piece {
  std::int64_t index, first, last;
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

// The state of a row's fold (see the top of the file); all identities at 0.
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
// search for cuts. acc, pair and third are the state (see row_state), in
// locals while folding (as in continue_row); at(o') reads the element at
// row offset o'. O(q - o).
template <class T, class At, class Monoid>
void continue_grouped(T& state_acc, T& state_pair, T& state_third, std::int64_t length, std::int64_t o,
                      std::int64_t q, const At& at, const Monoid& mon) {
  T acc = state_acc, pair = state_pair, third = state_third;
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
  state_acc = acc, state_pair = pair, state_third = third;
}

// How many elements of an unfinished group an uncut grouped row's state
// holds at offset o (pending_in_group for its one piece); O(1).
inline std::int64_t grouped_pending(std::int64_t length, std::int64_t o) { return o < length / 4 * 4 ? o % 4 : 0; }

// How fold_chain treats a local row. The common cases read no more of the
// plan: `whole`, all here in one piece of the single-node fold (one
// fold_range_by); `absent`, no element here, no state out (the identity);
// `head`, a short row of one plain piece (most of R-MAT's) begun here and
// going on (its accumulator is sent); `tail`, such a row waiting for it and
// finished here. `independent` (no state in) and `waiting` read a row_span.
enum class row_kind : std::uint8_t { whole, absent, head, tail, independent, waiting };

// A row of kind independent or waiting: the merge step of its first element
// in the whole matrix, its length over the process row, this rank's offset
// in it and elements of it, its state's values received and sent (0: none),
// whether the single-node fold takes it as one plain piece (1: uncut, below
// tuning::fold_group_min: the state is the accumulator), one grouped piece
// (2: no cut to look for) or cuts it (0), and whether this rank finishes it.
struct row_span {
  std::int64_t step, length, offset, mine;
  std::int32_t in_width, out_width;
  std::uint8_t plain, finishes;
};

// A run of chain_stretch_rows consecutive local rows in one chunk (fewer at
// its end): its first row and that row's positions in the chunk's received
// and sent buffers and in row_chain::spans; the later rows' follow from the
// kinds (head sends 1 value, tail receives 1, a span says its widths).
struct chain_stretch {
  std::int64_t first, in_at, out_at, span_at;
  bool waits;  // some row of the stretch receives a state
};

// The chain's plan for one mesh block (plan_row_fold): one byte per row.
struct row_chain {
  std::vector<row_kind> kind;  // per local row
  std::vector<row_span> spans;  // the independent and waiting rows, in order
  // The stretches, in row order, then one whose `first` is the row count;
  // chunk k is the stretches [chunk_at[k], chunk_at[k + 1]).
  std::vector<chain_stretch> stretches;
  std::vector<std::int64_t> chunk_at;
  // Per chunk: the values received and sent, and whether a row both
  // receives and sends a state (the send then waits for the receive).
  std::vector<int> in_count, out_count;
  std::vector<char> relays;
  // Per local row: whether this rank finishes it (holds its last element)
  // and sends its fold to its owner; an empty row is the identity at the
  // owner without a message. Read by the plan only.
  std::vector<char> sends;
  int col = 0, cols = 1;
  MPI_Comm row_comm = MPI_COMM_NULL;
};

// acc combined with read(k) for k in [e, end), left to right; O(end - e).
template <class T, class Read, class Monoid>
T fold_plain(T acc, const Read& read, std::int64_t e, std::int64_t end, const Monoid& mon) {
  for (; e < end; ++e) acc = mon(acc, read(e));
  return acc;
}

// Folds the elements [e, end) of a row of kind independent or waiting (span
// s) from the state at `from` (none if s.in_width is 0), writes its state at
// `to` if it goes on, and returns its fold if this rank finishes it (else the
// identity); read(k) reads local element k. O(end - e).
template <class T, class Read, class Monoid>
T fold_span(const row_span& s, std::int64_t e, std::int64_t end, const T* from, T* to, const Read& read,
            const Monoid& mon) {
  const std::int64_t length = s.length, a = s.offset, b = a + s.mine;
  if (s.plain == 1) {  // a short row in one piece: the state is the accumulator
    const T acc = fold_plain(s.in_width > 0 ? *from : mon.identity(), read, e, end, mon);
    if (s.out_width > 0) *to = acc;
    return s.finishes ? acc : mon.identity();
  }
  const std::int64_t base = e - a;  // local element of row offset o: base + o
  const auto at = [&](std::int64_t o) { return read(base + o); };
  if (s.plain == 2) {  // one grouped piece: no cut to look for
    T acc = mon.identity(), pair = mon.identity(), third = mon.identity();
    if (s.in_width > 0) {  // begun before: a > 0, so the accumulator is on the wire
      acc = *from++;
      const std::int64_t pending = grouped_pending(length, a);
      if (pending >= 1) pair = *from++;
      if (pending == 3) third = *from;
    }
    if (b > a) continue_grouped(acc, pair, third, length, a, b, at, mon);
    if (s.out_width > 0) {  // goes on: b > 0
      *to++ = acc;
      const std::int64_t pending = grouped_pending(length, b);
      if (pending >= 1) *to++ = pair;
      if (pending == 3) *to = third;
    }
    return s.finishes ? acc : mon.identity();
  }
  row_state<T> st = s.in_width > 0 ? decode_state(from, s.step, length, a, mon)
                                   : row_state<T>{mon.identity(), mon.identity(), mon.identity(), mon.identity()};
  if (b > a) continue_row(st, s.step, length, a, b, at, mon);
  if (s.out_width > 0) encode_state(st, s.step, length, b, to);
  return s.finishes ? finish_row(st, s.step, length, mon) : mon.identity();
}

// Per local row, its fold in the single-node order where this rank
// finishes it (the identity elsewhere), the states passed along the process
// row. row_at(r) reads local row r (a callable on local element k);
// starts(r) is its first local element, starts(rows) the element count.
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
  const auto rows = static_cast<std::int64_t>(c.kind.size());
  auto out = buffer<T>::for_overwrite(rows);
  T* o = out.data();
  const auto chunks = c.chunk_at.size() - 1;
  chain_messages<T> messages(c.in_count, c.out_count, c.col, c.row_comm);
  const chain_stretch* stretches = c.stretches.data();
  const row_kind* kinds = c.kind.data();
  const row_span* spans = c.spans.data();
  for (std::size_t k = 0; k < chunks; ++k) {  // the rows that need no state
    T* const sent_k = messages.sent(k);
    const std::int64_t first = c.chunk_at[k];
    vseg::detail::parallel_for(c.chunk_at[k + 1] - first, 1, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t t = first + lo; t < first + hi; ++t) {
        const chain_stretch& st = stretches[t];
        T* to = sent_k + st.out_at;
        const row_span* s = spans + st.span_at;
        std::int64_t e = starts(st.first);
        for (std::int64_t r = st.first, last = stretches[t + 1].first; r < last; ++r) {
          const row_kind kind = kinds[r];
          if (kind == row_kind::absent) {  // no element here: its end is e
            o[r] = mon.identity();
            continue;
          }
          const std::int64_t end = starts(r + 1);
          switch (kind) {
            case row_kind::whole:  // all here, one piece: one grouped fold
              o[r] = vseg::detail::fold_range_by<T>(row_at(r), e, end, mon.identity(), mon);
              break;
            case row_kind::head:  // a short row begun here: its accumulator goes on
              *to++ = fold_plain(mon.identity(), row_at(r), e, end, mon);
              o[r] = mon.identity();
              break;
            case row_kind::tail: break;
            case row_kind::independent: o[r] = fold_span<T>(*s, e, end, nullptr, to, row_at(r), mon); [[fallthrough]];
            default: to += s->out_width, ++s;  // waiting
          }
          e = end;
        }
      }
    });
    if (!c.relays[k]) messages.send(k);
  }
  for (std::size_t k = 0; k < chunks; ++k) {  // the rows waiting for a state, as the states arrive
    if (c.in_count[k] == 0) continue;
    messages.wait(k);
    const T* const received_k = messages.received(k);
    T* const sent_k = messages.sent(k);
    const std::int64_t first = c.chunk_at[k];
    vseg::detail::parallel_for(c.chunk_at[k + 1] - first, 1, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t t = first + lo; t < first + hi; ++t) {
        const chain_stretch& st = stretches[t];
        if (!st.waits) continue;
        const T* from = received_k + st.in_at;
        T* to = sent_k + st.out_at;
        const row_span* s = spans + st.span_at;
        for (std::int64_t r = st.first, last = stretches[t + 1].first; r < last; ++r) {
          switch (kinds[r]) {
            case row_kind::head: ++to; break;
            case row_kind::tail:  // a short row finished here
              o[r] = fold_plain(*from++, row_at(r), starts(r), starts(r + 1), mon);
              break;
            case row_kind::waiting:
              o[r] = fold_span<T>(*s, starts(r), starts(r + 1), from, to, row_at(r), mon);
              from += s->in_width;
              [[fallthrough]];
            case row_kind::independent: to += s->out_width; ++s; break;
            default: break;  // whole, absent
          }
        }
      }
    });
    if (c.relays[k]) messages.send(k);
  }
  messages.finish();
  return std::move(out).freeze();
}

}  // namespace vseg::dist::detail
