// index_l(replicate(n, x), is) on distributed arrays (vseg/dist/lifted.hpp,
// which includes this header at its end): x replicated or sharded, through
// a gather plan cached in `is`.
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
#include <utility>
#include <vector>

#include "vseg/dist/detail/planned_index.hpp"
#include "vseg/dist/lifted.hpp"

namespace vseg::dist {

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

// The global number of xs's virtual segments: its segments' when they are
// its pieces (no message); else summed over the ranks once (one
// MPI_Allreduce, every rank together) and cached with xs's plans. O(1) once
// cached.
template <class T>
std::int64_t virtual_segment_count(const nested<T>& xs) {
  if (xs.identity_virtual()) return xs.global_segments();
  return *cached_plan<std::int64_t>(nested_access::plans(xs), "virtual segments", [&] {
    std::int64_t local = xs.local_virtual_size(), total = 0;
    check_mpi(MPI_Allreduce(&local, &total, 1, MPI_INT64_T, MPI_SUM, xs.comm()), "MPI_Allreduce");
    return std::make_shared<const std::int64_t>(total);
  });
}

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
// built), std::invalid_argument if n is not is's segment count or x's
// vsegids were replicated or expanded (take_v x's segments first).
// `is` with replicated or expanded vsegids: its physical segments are
// indexed once and the result keeps its vsegids; n is checked against its
// global number of virtual segments, counted once per array (one
// MPI_Allreduce) and cached with its plans.
// O(local indices) per call, plus the exchange.
template <class T, class I>
auto index_l(const replicated<T>& r, const nested<I>& is) {
  detail::require_pieces(r.x, "dist::index_l (of x)");
  const auto& where = detail::nested_access::where(is);
  const std::int64_t segments = detail::virtual_segment_count(is);
  if (r.n != segments)
    vseg::detail::throw_invalid("dist::index_l", "replicate(", r.n, ", x) against ", segments,
                                is.identity_virtual() ? " segments of indices" : " virtual segments of indices");
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
    return expr<detail::planned_index_expr<T, I>>{where, std::move(local), detail::nested_access::virtual_of(is)};
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
