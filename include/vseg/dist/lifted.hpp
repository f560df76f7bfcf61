// Lifted operations on distributed nested arrays: each rank runs the core
// operation (vseg/nested.hpp) on its pieces, and only what crosses ranks
// communicates.
//
//   map, zip_with         local; zip_with of two arrays on different
//                         placements throws the same std::invalid_argument on
//                         every rank (the placements are identical
//                         everywhere, so no message is needed to agree)
//   scan_s                local unless a segment is split across ranks
//   fold_s, sum_s         bit for bit the single-node fold (detail/global_fold.hpp);
//                         on a block of a 2D process mesh, continued or
//                         combined across the process row in the block's
//                         mesh_fold order (vseg/dist/mesh.hpp)
//   index_l(replicate(n, x), is)
//                         x replicated: local; x sharded: the needed elements
//                         of x fetched through a gather plan built once per
//                         (indices, placement of x) and cached
//   pack                  local, optionally rebalanced (reshard to balanced);
//                         under split, resharded to split; seen through
//                         vsegids, the flagged vsegids kept (vseg/dist/pack.hpp)
//
// The lifted operations work on the pieces one to one. On an array whose
// vsegids were replicated or expanded (virtual segments naming physical
// segments, maybe on other ranks), map, scan_s and index_l work on the
// physical segments only and keep the vsegids (no message, no element
// copied, as DPH), pack keeps the flagged ones and reshard carries them over; zip_with needs both operands' vsegids equal
// (detail/virtual_layout.hpp); fold_s and sum_s fold the pieces and gather
// one value per vsegid (detail/virtual_fold.hpp).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "vseg/dist/detail/global_fold.hpp"
#include "vseg/dist/detail/planned_index.hpp"
#include "vseg/dist/mesh.hpp"
#include "vseg/dist/nested.hpp"
#include "vseg/nested.hpp"

namespace vseg::dist {

// A lifted expression over distributed arrays: a core nested expression on
// this rank's pieces and the placement it lives on.
template <nested_expression E>
struct expr {
  using value_type = typename E::value_type;
  std::shared_ptr<const detail::placement> where;
  E local;
  // Null, or the virtual segments the pieces are seen through.
  std::shared_ptr<const detail::virtual_layout> virt = nullptr;
};

namespace detail {

// Throws std::invalid_argument (on every rank: the flag is the same on all
// for an SPMD program) for arrays whose virtual segments are not their pieces.
template <class T>
void require_pieces(const nested<T>& xs, const char* operation) {
  if (!xs.identity_virtual())
    vseg::detail::throw_invalid(operation, "needs an array whose virtual segments are its pieces (this one was "
                                           "replicated or expanded: take_v its segments first)");
}

// Whether A is a distributed nested array (not a lifted expression).
template <class A>
inline constexpr bool is_dist_nested = false;
template <class T>
inline constexpr bool is_dist_nested<nested<T>> = true;
// fold_s of an array or expression whose vsegids were replicated or expanded (virtual_fold.hpp).
template <class A, class Monoid>
array<typename A::value_type> fold_virtual(const A& a, const Monoid& mon);
// scan_s of a mesh block (mesh_scan.hpp).
template <class T, class Monoid>
nested<T> scan_mesh(const nested<T>& block, const Monoid& mon);

template <class T>
expr<vseg::nested<T>> as_expr(const nested<T>& xs) {
  return {nested_access::where(xs), xs.pieces(), nested_access::virtual_of(xs)};
}
template <class E>
const expr<E>& as_expr(const expr<E>& e) {
  return e;
}

// Throws std::invalid_argument on every rank unless both placements are the same.
inline void require_same_placement(const placement& a, const placement& b, const char* operation) {
  if (same_placement(a, b)) return;
  vseg::detail::throw_invalid(operation, "the operands are placed differently: ", a.where, " (shape hash ",
                              a.shape_hash, ") and ", b.where, " (shape hash ", b.shape_hash, ")");
}

}  // namespace detail

// Local: [[f(x) | x <- xs] | xs <- xss] on every rank's pieces (each
// physical segment once); same placement and vsegids, no message.
// O(local elements + pieces + virtual segments).
template <class F, class T>
auto map(F f, const nested<T>& xss) {
  auto local = vseg::map(std::move(f), xss.pieces());
  using U = typename decltype(local)::value_type;
  return detail::nested_access::make_virtual<U>(detail::nested_access::where(xss), std::move(local), xss,
                                                detail::nested_access::virtual_of(xss));
}

// Local: element-wise f over two distributed arrays or expressions on the
// same placement, delayed. O(1) to build (O(virtual segments) with
// replicated or expanded vsegids); throws std::invalid_argument on every
// rank (no message) if the placements or shapes differ. Operands with
// replicated or expanded vsegids must have the same ones: shared (map of
// one another, copies) is checked with no message, else compared with one
// MPI_Allreduce; different ones throw std::invalid_argument on every rank
// (no take_v is planned: it would copy every virtual segment's elements).
template <class F, class A, class B>
auto zip_with(F f, const A& a, const B& b) {
  const auto& ea = detail::as_expr(a);
  const auto& eb = detail::as_expr(b);
  detail::require_same_placement(*ea.where, *eb.where, "dist::zip_with");
  detail::require_same_virtual(ea.virt.get(), eb.virt.get(), *ea.where, "dist::zip_with");
  auto local = vseg::zip_with(std::move(f), ea.local, eb.local);
  return expr<decltype(local)>{ea.where, std::move(local), ea.virt};
}

// Local: the expression evaluated into a distributed array (on its pieces,
// with its vsegids). O(local elements + virtual segments).
template <class E>
nested<typename E::value_type> materialize(const expr<E>& e, const nested<typename E::value_type>& like) {
  return detail::nested_access::make_virtual<typename E::value_type>(
      e.where, vseg::nested<typename E::value_type>(e.local), like, e.virt);
}

namespace detail {

// fold_s on this rank's pieces: the single-node fold's bits, before any
// combination across a mesh row. O(local elements + pieces).
template <class E, class Monoid>
array<typename E::value_type> fold_pieces(const expr<E>& e, const Monoid& mon) {
  using T = typename E::value_type;
  using access = vseg::detail::expression_access;
  const segd s = e.local.shape();
  const auto starts = [&](std::int64_t j) { return j < s.segments() ? s.start(j) : s.elements(); };
  vseg::detail::first_bad bad;
  array<T> out;
  if constexpr (flat_expression<std::remove_cvref_t<decltype(e.local)>>) {
    if (e.local.flat()) {
      const auto read = access::flat_cursor(e.local, &bad);
      if (consecutive_whole_pieces(*e.where)) {  // SpMV's case: no per-piece placement read
        out = fold_consecutive_flat<T>(*e.where, s, read, mon);
        if (bad.any()) vseg::detail::throw_expression_error(e.local, bad.position());
        return out;
      }
      out = global_fold<T>(
          *e.where, s.segments(), starts,
          [&](std::int64_t, std::int64_t lo, std::int64_t hi) {
            return vseg::detail::fold_range_by<T>(read, lo, hi, mon.identity(), mon);
          },
          mon);
      if (bad.any()) vseg::detail::throw_expression_error(e.local, bad.position());
      return out;
    }
  }
  out = global_fold<T>(
      *e.where, s.segments(), starts,
      [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
        const std::int64_t base = s.start(j);
        const auto c = access::cursor(e.local, j, &bad, base);
        return vseg::detail::fold_range_by<T>([&](std::int64_t k) { return c(k - base); }, lo, hi,
                                              mon.identity(), mon);
      },
      mon);
  if (bad.any()) vseg::detail::throw_expression_error(e.local, bad.position());
  return out;
}

// fold_s on a mesh block, mesh_fold::serial, c > 1: the chain (detail/mesh_chain.hpp), then
// the rows to their owners; a bad read throws after the exchanges. O(local elements + rows).
template <class E, class Monoid>
array<typename E::value_type> fold_mesh_serial(const expr<E>& e, const row_fold& plan, const Monoid& mon) {
  using T = typename E::value_type;
  using access = vseg::detail::expression_access;
  const segd s = e.local.shape();
  const auto starts = [&](std::int64_t r) { return r < s.segments() ? s.start(r) : s.elements(); };
  vseg::detail::first_bad bad;
  array<T> finished;
  if constexpr (flat_expression<std::remove_cvref_t<decltype(e.local)>>) {
    if (e.local.flat()) {
      const auto read = access::flat_cursor(e.local, &bad);
      finished = fold_chain<T>(*plan.chain, starts, [&](std::int64_t) { return read; }, mon);
    }
  }
  if (finished.size() != s.segments())  // not a flat expression: one cursor per row
    finished = fold_chain<T>(
        *plan.chain, starts,
        [&](std::int64_t r) {
          const std::int64_t base = s.start(r);
          return [c = access::cursor(e.local, r, &bad, base), base](std::int64_t k) { return c(k - base); };
        },
        mon);
  array<T> out = fold_across(plan, finished, mon);
  if (bad.any()) vseg::detail::throw_expression_error(e.local, bad.position());
  return out;
}

}  // namespace detail

// Per segment, the fold with the monoid, the same bits as vseg::fold_s on
// the whole array on one node. The result has one element per segment,
// held by the rank that finishes the segment (its pieces' order). Local
// unless the spec is `split` (then one MPI_Allgather and one
// MPI_Allgatherv). On a mesh block (mesh_block) the result holds the rows
// this rank owns: under mesh_fold::serial the single-node bits (a chain of
// MPI_Isend/MPI_Recv per chunk of rows along the process row, then one
// MPI_Alltoallv), under column_blocks the block's row folds combined across
// the process row (one MPI_Alltoallv). On an array whose vsegids were
// replicated or expanded: one value per virtual segment (detail/virtual_fold.hpp).
// O(local elements + pieces).
template <class A, class Monoid>
array<typename A::value_type> fold_s(const A& a, const Monoid& mon) {
  if constexpr (detail::is_dist_nested<A>) {
    if (!a.identity_virtual()) return detail::fold_virtual(a, mon);
  } else if (a.virt) {
    return detail::fold_virtual(a, mon);
  }
  const auto& e = detail::as_expr(a);
  if (e.where->across && e.where->across->chain) return detail::fold_mesh_serial(e, *e.where->across, mon);
  array<typename A::value_type> partials = detail::fold_pieces(e, mon);
  if (e.where->across) return detail::fold_across(*e.where->across, partials, mon);
  return partials;
}

// Per segment, the sum; as fold_s with plus. O(local elements + pieces).
template <class A>
array<typename A::value_type> sum_s(const A& a) {
  return fold_s(a, plus<typename A::value_type>{});
}

// Per segment, the exclusive scan with the monoid, the same bits as
// vseg::scan_s on the whole array on one node; same placement. Local unless
// the spec is `split` (then one MPI_Allgather and one MPI_Allgatherv); on a
// mesh block, each row's scan continued along the process row from the
// state the previous process column passes on (detail/mesh_scan.hpp).
// With replicated or expanded vsegids, each physical segment is scanned
// once and the vsegids kept (DPH's way).
// O(local elements + pieces + virtual segments).
template <class T, class Monoid>
nested<T> scan_s(const nested<T>& xs, const Monoid& mon) {
  if (!xs.identity_virtual()) {
    const auto& where = detail::nested_access::where(xs);
    const nested<T> scanned = scan_s(detail::nested_access::make<T>(where, xs.pieces(), xs), mon);
    return detail::nested_access::make_virtual<T>(detail::nested_access::where(scanned), scanned.pieces(), xs,
                                                  detail::nested_access::virtual_of(xs));
  }
  // On mesh blocks (every block has the plan): the rows' scans chained along the process row (detail/mesh_scan.hpp).
  if (detail::nested_access::where(xs)->across) return detail::scan_mesh(xs, mon);
  const vseg::nested<T>& local = xs.pieces();
  const auto [lengths, data] = detail::nested_access::contiguous(xs);
  const T* d = data.data();
  std::vector<std::int64_t> starts(static_cast<std::size_t>(lengths.size()) + 1, 0);
  for (std::int64_t j = 0; j < lengths.size(); ++j) starts[j + 1] = starts[j] + lengths[j];
  const auto read = [d](std::int64_t k) { return d[k]; };
  auto out = buffer<T>::for_overwrite(data.size());
  detail::global_scan<T>(
      *detail::nested_access::where(xs), local.size(), [&](std::int64_t j) { return starts[j]; },
      [&](std::int64_t, std::int64_t lo, std::int64_t hi) {
        return vseg::detail::fold_range_by<T>(read, lo, hi, mon.identity(), mon);
      },
      read, mon, out.data());
  return detail::nested_access::make<T>(detail::nested_access::where(xs),
                                        vseg::nested<T>::from_lengths(lengths, std::move(out).freeze()), xs);
}

}  // namespace vseg::dist

#include "vseg/dist/detail/mesh_scan.hpp"
#include "vseg/dist/index_l.hpp"
#include "vseg/dist/detail/virtual_fold.hpp"
#include "vseg/dist/pack.hpp"
