// Lifted operations on distributed nested arrays: each rank runs the core
// operation (vseg/nested.hpp) on its pieces, and only what crosses ranks
// communicates.
//
//   map, zip_with         local; zip_with of two arrays on different
//                         placements throws the same std::invalid_argument on
//                         every rank (the placements are identical
//                         everywhere, so no message is needed to agree)
//   fold_s, sum_s         bit for bit the single-node fold (detail/global_fold.hpp);
//                         on a block of a 2D process mesh, continued or
//                         combined across the process row in the block's
//                         mesh_fold order (vseg/dist/mesh.hpp)
//   index_l(replicate(n, x), is)
//                         x replicated: local; x sharded: the needed elements
//                         of x fetched through a gather plan built once per
//                         (indices, placement of x) and cached
//   pack                  local, optionally rebalanced (reshard to balanced);
//                         under split, resharded to split (vseg/dist/pack.hpp)
//
// The lifted operations work on the pieces one to one, so they need arrays
// whose virtual segments are their pieces (no replicate/expand of vsegids),
// except fold_s and sum_s, which fold the pieces and gather per vsegid.
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
// fold_s of an array whose vsegids were replicated or expanded (virtual_fold.hpp).
template <class T, class Monoid>
array<T> fold_virtual(const nested<T>& xs, const Monoid& mon);
// scan_s of a mesh block (mesh_scan.hpp).
template <class T, class Monoid>
nested<T> scan_mesh(const nested<T>& block, const Monoid& mon);

template <class T>
expr<vseg::nested<T>> as_expr(const nested<T>& xs, const char* operation) {
  require_pieces(xs, operation);
  return {nested_access::where(xs), xs.pieces()};
}
template <class E>
const expr<E>& as_expr(const expr<E>& e, const char*) {
  return e;
}

// Throws std::invalid_argument on every rank unless both placements are the same.
inline void require_same_placement(const placement& a, const placement& b, const char* operation) {
  if (same_placement(a, b)) return;
  vseg::detail::throw_invalid(operation, "the operands are placed differently: ", a.where, " (shape hash ",
                              a.shape_hash, ") and ", b.where, " (shape hash ", b.shape_hash, ")");
}

}  // namespace detail

// Local: [[f(x) | x <- xs] | xs <- xss] on every rank's pieces; same
// placement, no message. O(local elements + pieces).
template <class F, class T>
auto map(F f, const nested<T>& xss) {
  detail::require_pieces(xss, "dist::map");
  auto local = vseg::map(std::move(f), xss.pieces());
  using U = typename decltype(local)::value_type;
  return detail::nested_access::make<U>(detail::nested_access::where(xss), std::move(local), xss);
}

// Local: element-wise f over two distributed arrays or expressions on the
// same placement, delayed. O(1) to build; throws std::invalid_argument on
// every rank (no message) if the placements or shapes differ.
template <class F, class A, class B>
auto zip_with(F f, const A& a, const B& b) {
  const auto& ea = detail::as_expr(a, "dist::zip_with");
  const auto& eb = detail::as_expr(b, "dist::zip_with");
  detail::require_same_placement(*ea.where, *eb.where, "dist::zip_with");
  auto local = vseg::zip_with(std::move(f), ea.local, eb.local);
  return expr<decltype(local)>{ea.where, std::move(local)};
}

// Local: the expression evaluated into a distributed array. O(local elements).
template <class E>
nested<typename E::value_type> materialize(const expr<E>& e, const nested<typename E::value_type>& like) {
  return detail::nested_access::make<typename E::value_type>(e.where, vseg::nested<typename E::value_type>(e.local), like);
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
  if constexpr (detail::is_dist_nested<A>)
    if (!a.identity_virtual()) return detail::fold_virtual(a, mon);
  const auto& e = detail::as_expr(a, "dist::fold_s");
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
// mesh block, each row scanned whole at its owner and sent back
// (detail/mesh_scan.hpp). O(local elements + pieces).
template <class T, class Monoid>
nested<T> scan_s(const nested<T>& xs, const Monoid& mon) {
  detail::require_pieces(xs, "dist::scan_s");
  // On mesh blocks (every block has the plan): the rows scanned at their owners (detail/mesh_scan.hpp).
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

// [x, x, ..., x] (n times), x being a whole distributed array's elements:
// names x, copies nothing, sends nothing. O(1).
template <class T>
struct replicated {
  std::int64_t n;
  nested<T> x;
};
template <class T>
replicated<T> replicate(std::int64_t n, const nested<T>& x) {
  if (n < 0) vseg::detail::throw_invalid("dist::replicate", "negative count ", n);
  return {n, x};
}

namespace detail {

// The gather plan of index_l: the distinct global elements of x the local
// indices name, the global_indexer that fetches them, and the indices
// renumbered into that list.
template <class I>
struct gather_plan {
  shard_layout source;
  std::uint64_t source_hash;
  std::optional<global_indexer> fetch;
  array<I> slots;
  // Every slot is in [0, bound): x's local entries (replicated: all of x;
  // sharded: this rank's own, then the fetched ones).
  std::int64_t bound = 0;
};

}  // namespace detail

// [[x[i] | i <- is_k] | k]: lifted indexing into a replicated distributed
// array, delayed. x replicated: local, no message. x sharded (any contiguous
// spec; indices name its global elements): this rank's own x entries are
// copied, and one take fetches the distinct others named here. The plan,
// built once per indices array and placement of x, is cached in `is`; after
// its first product a take sends its MPI_Alltoallv only, no agreement
// message (see take_agreed). The plan checks every index once, so the
// local reads are unchecked (detail/planned_index.hpp). Throws
// std::out_of_range on every rank for an index outside x (when the plan is
// built), std::invalid_argument if n is not is's segment count.
// O(local indices) per call, plus the exchange.
template <class T, class I>
auto index_l(const replicated<T>& r, const nested<I>& is) {
  detail::require_pieces(is, "dist::index_l");
  const auto& where = detail::nested_access::where(is);
  if (r.n != is.global_segments())
    vseg::detail::throw_invalid("dist::index_l", "replicate(", r.n, ", x) against ", is.global_segments(),
                                " segments of indices");
  const auto xw = detail::nested_access::where(r.x);
  const segd shape = is.pieces().shape();
  const bool local_x = xw->where.spec.type() == sharding::kind::replicated;
  if (!local_x && !xw->where.spec.contiguous())
    vseg::detail::throw_invalid("dist::index_l", "x is sharded ", xw->where.spec, ": replicate or reshard it first");
  auto& cache = detail::nested_access::plans(is);
  std::shared_ptr<const detail::gather_plan<I>> plan;
  for (const auto& [name, stored] : cache)
    if (name == "gather") {
      auto candidate = std::static_pointer_cast<const detail::gather_plan<I>>(stored);
      if (candidate->source == xw->where && candidate->source_hash == xw->shape_hash) plan = candidate;
    }
  if (!plan) {
    auto built = std::make_shared<detail::gather_plan<I>>();
    built->source = xw->where;
    built->source_hash = xw->shape_hash;
    const array<I> idx = detail::nested_access::contiguous(is).second;  // the pieces' indices, in order
    if (local_x) {
      // Checked once, on every rank together; later calls send nothing.
      detail::error_collector errs("dist::index_l", where->rank);
      for (std::int64_t k = 0; k < shape.elements(); ++k)
        if (idx[k] < 0 || idx[k] >= xw->where.elements) {
          errs.out_of_range("index ", idx[k], " at position ", k, " outside x's ", xw->where.elements, " elements");
          break;
        }
      detail::agree(where->comm, errs);
      built->slots = idx.slice(0, shape.elements());
      built->bound = xw->where.elements;
    } else {
      // The distinct indices this rank's own x entries do not cover: only
      // those are fetched; an index into the own entries reads them in place
      // (slot = its local position), a fetched one after them.
      const std::int64_t own_first = xw->where.first_element[xw->rank];
      const std::int64_t own_last = xw->where.first_element[xw->rank + 1];
      std::vector<std::int64_t> remote;
      for (std::int64_t k = 0; k < shape.elements(); ++k)
        if (idx[k] < own_first || idx[k] >= own_last) remote.push_back(idx[k]);
      std::sort(remote.begin(), remote.end());
      remote.erase(std::unique(remote.begin(), remote.end()), remote.end());
      built->fetch.emplace(distribution::from_agreed_offsets(xw->where.first_element, xw->rank), remote,
                           where->comm);  // checks every remote index, on every rank together
      const std::int64_t own = own_last - own_first;
      built->bound = own + static_cast<std::int64_t>(remote.size());
      // Slots are below x's element count (own entries and distinct others);
      // only an x longer than I can count needs the slots' bound agreed.
      if (xw->where.elements - 1 > static_cast<std::int64_t>(std::numeric_limits<I>::max())) {
        detail::error_collector errs("dist::index_l", where->rank);
        if (built->bound - 1 > static_cast<std::int64_t>(std::numeric_limits<I>::max()))
          errs.invalid(built->bound, " own and fetched x entries do not fit the indices' type");
        detail::agree(where->comm, errs);
      }
      auto slots = buffer<I>::for_overwrite(shape.elements());
      for (std::int64_t k = 0; k < shape.elements(); ++k) {
        const std::int64_t i = idx[k];
        slots[k] = static_cast<I>(i >= own_first && i < own_last
                                      ? i - own_first
                                      : own + (std::lower_bound(remote.begin(), remote.end(), i) - remote.begin()));
      }
      built->slots = std::move(slots).freeze();
    }
    cache.emplace_back("gather", built);
    plan = built;
  }
  const auto [lengths, data] = detail::nested_access::contiguous(r.x);
  // The slots are read unchecked (detail/planned_index.hpp): the plan checked
  // the indices; here only that the source has the plan's length. O(1).
  const auto planned = [&](array<T> src) {
    if (src.size() != plan->bound)
      throw std::logic_error("vseg::dist::index_l: x's local entries number " + std::to_string(src.size()) +
                             ", the gather plan's " + std::to_string(plan->bound) + " (a placement broke its invariant)");
    detail::planned_index_expr<T, I> local(std::move(src), vseg::nested<I>::from_segd(shape, plan->slots));
    return expr<detail::planned_index_expr<T, I>>{where, std::move(local)};
  };
  if (local_x) return planned(data);
  // This rank's x entries, then the fetched ones, in a buffer of the library's
  // allocator, which reuses freed blocks: no zero fill, no fresh pages.
  auto fetched = buffer<T>::for_overwrite(data.size() + plan->fetch->size());
  // The own entries are copied while the fetched ones are in flight: the
  // copy hides (part of) the wait for a peer that arrives late.
  T* to = fetched.data();
  const auto copy_own = [&data, to] { std::copy(data.begin(), data.end(), to); };
  // No agreement per product: the plan was agreed when built and is
  // immutable, x's placement (the same object on every rank) matched the
  // plan's, so x's local size is the plan's on every rank, and the fetched
  // part has the plan's size by construction. Only the plan's first product
  // makes the checked take (detail/global_indexer_templates.hpp).
  plan->fetch->take_agreed(std::span<const T>(data.begin(), data.end()), fetched.span().subspan(data.size()),
                           copy_own);
  return planned(std::move(fetched).freeze());
}

}  // namespace vseg::dist

#include "vseg/dist/detail/mesh_scan.hpp"
#include "vseg/dist/detail/virtual_fold.hpp"
#include "vseg/dist/pack.hpp"
