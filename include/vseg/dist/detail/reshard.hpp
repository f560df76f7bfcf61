// dist::nested::reshard: the plan (target layout, pieces, an element-level
// global_indexer) built once per spec and reused.
//
// Planning, for rank t of a contiguous, cyclic or replicated source:
//   1. the target layout (sharding.hpp's plan_layout, one allreduce);
//   2. the segments t needs (its block, J = t mod p, or all), and their
//      start and end, fetched from the ranks that finish them (one
//      global_indexer over the source's finishing distribution, one take);
//   3. its pieces [max(start, E_t), min(end, E_{t+1})) and the global
//      elements they hold, requested through a global_indexer over the
//      source's element distribution: every later reshard is one take.
// An array seen through vsegids keeps them: they name global segments,
// which every spec numbers alike, so the virtual segments stay the same.
// A cyclic source holds segment j on rank j mod p, as its (j / p)-th piece,
// so its elements are not in global order across ranks. Step 2 then reads
// from the owner, besides the end of j, where j's first element sits in the
// ranks' concatenated local data (the owner's local offset plus the element
// counts of the ranks before it: one MPI_Allgather), and step 3 requests
// element e of j at that position plus e - start(j).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "vseg/dist/detail/collective_check.hpp"
#include "vseg/dist/detail/placement.hpp"
#include "vseg/dist/global_indexer.hpp"

namespace vseg::dist::detail {

template <class T>
struct reshard_plan {
  std::shared_ptr<const placement> target;
  distribution physical;
  array<std::int64_t> lengths;
  std::vector<std::int64_t> vsegids;
  // Element requests over the source; for a replicated source, the local
  // element ranges instead (no communication).
  std::optional<global_indexer> elements;
  std::vector<std::int64_t> local_ranges;
};

// What rank `t` of `p` must hold under `target` (its segments, for cyclic and
// replicated), and which segment ends that needs.
inline std::vector<std::int64_t> needed_segments(const shard_layout& target, int t, int p) {
  std::vector<std::int64_t> result;
  const std::int64_t m = target.segments;
  if (target.spec.type() == sharding::kind::cyclic) {
    for (std::int64_t j = t; j < m; j += p) result.push_back(j);
  } else if (target.spec.type() == sharding::kind::replicated) {
    for (std::int64_t j = 0; j < m; ++j) result.push_back(j);
  } else {
    const std::int64_t last = std::min(target.first_segment[t + 1], m - 1);
    for (std::int64_t j = target.first_segment[t]; j <= last; ++j) result.push_back(j);
  }
  return result;
}

// An agreement on the spec (its kind and offsets), so that ranks asking
// for different specs fail together instead of entering different exchanges.
inline void agree_on_spec(const sharding& spec, MPI_Comm comm, int rank) {
  error_collector errs("dist::reshard", rank);
  std::uint64_t h = 1469598103934665603ULL;
  for (auto v : spec.explicit_offsets()) h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ULL;
  for (int v : {spec.mesh_rows(), spec.mesh_cols()}) h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ULL;
  agree(comm, errs, 0,
        {{"the sharding kind", static_cast<std::int64_t>(spec.type())},
         {"the hash of the offsets", static_cast<std::int64_t>(h >> 1)}});
}

template <class T>
std::shared_ptr<const reshard_plan<T>> build_reshard_plan(const nested<T>& xs, const placement& from,
                                                          const sharding& spec) {
  const int t = from.rank, p = from.nranks;
  const bool replicated_source = from.where.spec.type() == sharding::kind::replicated;
  const auto lengths = xs.pieces().physical_lengths();
  const std::int64_t pieces = lengths.size();
  std::vector<std::int64_t> piece_ends(static_cast<std::size_t>(pieces));
  for (std::int64_t k = 0; k < pieces; ++k) piece_ends[static_cast<std::size_t>(k)] = from.starts[k] + lengths[k];

  // 1. The target layout. A replicated source is described by rank 0 alone.
  local_shape shape{from.where.segments, from.where.elements, {}, {}, {}, true, true};
  if (!replicated_source || t == 0) {
    shape.ids = {from.ids.data(), static_cast<std::size_t>(pieces)};
    shape.starts = {from.starts.data(), static_cast<std::size_t>(pieces)};
    shape.ends = piece_ends;
    shape.first_is_start = from.first_is_start;
    shape.last_is_end = from.last_is_end;
  }
  auto target = std::make_shared<placement>();
  target->comm = from.comm;
  target->rank = t;
  target->nranks = p;
  target->where = plan_layout(spec, shape, from.comm);
  const shard_layout& to = target->where;

  // 2. The start and end of every segment this rank needs: end(j - 1), end(j).
  const auto segments = needed_segments(to, t, p);
  std::vector<std::int64_t> asked;
  for (auto j : segments) {
    if (j > 0 && (asked.empty() || asked.back() != j - 1)) asked.push_back(j - 1);
    asked.push_back(j);
  }
  std::vector<std::int64_t> ends;
  // Cyclic source: where the source's data of each asked segment begins, over
  // the distribution of the ranks' local data in rank order.
  const bool cyclic_source = from.where.spec.type() == sharding::kind::cyclic;
  std::vector<std::int64_t> bases, local_elements(static_cast<std::size_t>(p) + 1, 0);
  if (replicated_source) {
    for (auto j : asked) ends.push_back(piece_ends[static_cast<std::size_t>(j)]);
  } else if (cyclic_source) {
    const std::vector<std::int64_t> segment_offsets = cyclic_offsets(from.where.segments, p);
    std::int64_t mine = 0;
    for (std::int64_t k = 0; k < pieces; ++k) mine += lengths[k];
    check_mpi(MPI_Allgather(&mine, 1, MPI_INT64_T, local_elements.data() + 1, 1, MPI_INT64_T, from.comm),
              "MPI_Allgather");
    for (int r = 0; r < p; ++r) local_elements[r + 1] += local_elements[r];
    // Per local piece: its end (global order) and its first element's position.
    std::vector<std::int64_t> served(2 * static_cast<std::size_t>(pieces));
    std::int64_t at = local_elements[t];
    for (std::int64_t k = 0; k < pieces; ++k) {
      served[2 * k] = piece_ends[static_cast<std::size_t>(k)];
      served[2 * k + 1] = at;
      at += lengths[k];
    }
    std::vector<std::int64_t> where(asked.size());
    for (std::size_t k = 0; k < asked.size(); ++k) where[k] = segment_offsets[asked[k] % p] + asked[k] / p;
    global_indexer lookup(distribution::from_agreed_offsets(segment_offsets, t), where, from.comm);
    const auto both = lookup.take(served, 2);
    for (std::size_t k = 0; k < asked.size(); ++k) {
      ends.push_back(both[2 * k]);
      bases.push_back(both[2 * k + 1]);
    }
  } else {
    // The source's finished segments: all its pieces but an open last one.
    std::vector<std::int64_t> finished(piece_ends.begin(), piece_ends.end() - (from.last_is_end ? 0 : 1));
    global_indexer lookup(distribution::from_agreed_offsets(from.where.first_segment, t), asked, from.comm);
    ends = lookup.take(finished);
  }
  const auto slot_of = [&](std::int64_t j) {
    return static_cast<std::size_t>(std::lower_bound(asked.begin(), asked.end(), j) - asked.begin());
  };
  const auto end_of = [&](std::int64_t j) { return j < 0 ? std::int64_t{0} : ends[slot_of(j)]; };

  // 3. The pieces and their elements.
  auto plan = std::make_shared<reshard_plan<T>>();
  const bool blocks = to.spec.contiguous();
  const std::int64_t lo_bound = blocks ? to.first_element[t] : 0;
  const std::int64_t hi_bound = blocks ? to.first_element[t + 1] : to.elements;
  std::vector<std::int64_t> ids, starts, lens, requests;
  std::uint64_t hash = 0;
  for (auto j : segments) {
    const std::int64_t start = end_of(j - 1), end = end_of(j);
    const std::int64_t lo = std::max(start, lo_bound), hi = std::min(end, hi_bound);
    const bool open = blocks && j == to.first_segment[t + 1];
    if (open && hi <= lo) continue;
    if (ids.empty()) target->first_is_start = lo == start;
    target->last_is_end = !open;
    ids.push_back(j);
    starts.push_back(lo);
    lens.push_back(hi - lo);
    hash += piece_hash(j, hi - lo);
    if (replicated_source) {
      plan->local_ranges.push_back(lo);
      plan->local_ranges.push_back(hi);
    } else {
      // Element e of j: at e in a contiguous source, at base(j) + e - start in a cyclic one.
      const std::int64_t shift = cyclic_source ? bases[slot_of(j)] - start : 0;
      for (std::int64_t e = lo; e < hi; ++e) requests.push_back(e + shift);
    }
  }
  check_mpi(MPI_Allreduce(&hash, &target->shape_hash, 1, MPI_UINT64_T, MPI_SUM, from.comm), "MPI_Allreduce");
  if (!replicated_source)
    plan->elements.emplace(
        distribution::from_agreed_offsets(cyclic_source ? local_elements : from.where.first_element, t), requests,
        from.comm);
  if (blocks && !spec.splits_segments())
    plan->physical = distribution::from_agreed_offsets(to.first_segment, t);
  plan->vsegids = ids;
  target->ids = array<std::int64_t>(std::move(ids));
  target->starts = array<std::int64_t>(std::move(starts));
  plan->lengths = array<std::int64_t>(std::move(lens));
  plan->target = std::move(target);
  return plan;
}

template <class T>
nested<T> reshard_impl(const nested<T>& xs, const sharding& spec) {
  const placement& from = *xs.where_;
  if (spec == from.where.spec) return xs;  // decided locally: the spec is the same on every rank
  agree_on_spec(spec, from.comm, from.rank);
  if (spec.type() == sharding::kind::mesh)  // the same on every rank: the spec was agreed on
    vseg::detail::throw_invalid("dist::reshard", "to ", spec,
                                ": a mesh is not a layout of segments; build a process_mesh and its blocks "
                                "(vseg/dist/mesh.hpp)");
  const auto plan = cached_plan<reshard_plan<T>>(*xs.plans_, "reshard " + spec.to_string(),
                                                 [&] { return build_reshard_plan(xs, from, spec); });
  const auto [source_lengths, source_data] = xs.contiguous();
  array<T> data;
  if (plan->elements) {
    // Into a buffer of the library's allocator, not a std::vector: the
    // arrays the products then stream (SpMV's values) sit in its pool
    // (2 MiB aligned, advised for transparent huge pages); a vector's
    // memory, adopted, made the local SpMV fold 6-14 % slower (notes/distributed.md).
    std::optional<buffer<T>> out;
    try {
      out.emplace(buffer<T>::for_overwrite(plan->elements->size()));
    } catch (const std::bad_alloc&) {
      // Left to the allocating take below, which agrees the failure on every rank.
    }
    const std::span<const T> source(source_data.begin(), source_data.end());
    if (out) {
      plan->elements->take(source, out->span());
      data = std::move(*out).freeze();
    } else {
      data = array<T>(plan->elements->take(source));
    }
  } else {
    std::int64_t total = 0;
    for (std::size_t k = 0; k < plan->local_ranges.size(); k += 2) total += plan->local_ranges[k + 1] - plan->local_ranges[k];
    auto out = buffer<T>::for_overwrite(total);
    std::int64_t at = 0;
    for (std::size_t k = 0; k < plan->local_ranges.size(); k += 2)
      for (std::int64_t e = plan->local_ranges[k]; e < plan->local_ranges[k + 1]; ++e) out[at++] = source_data[e];
    data = std::move(out).freeze();
  }
  nested<T> result;
  result.where_ = plan->target;
  result.local_ = vseg::nested<T>::from_lengths(plan->lengths, std::move(data));
  result.physical_ = plan->physical;
  result.vsegids_ = plan->vsegids;
  result.identity_ = true;
  if (!xs.identity_) {
    // Seen through vsegids: the same virtual segments over the new pieces.
    // A vsegid is a global segment id under every spec, and no spec
    // renumbers segments, so the list carries over unchanged (its tag too;
    // its plans, which depend on the placement, do not).
    result.vsegids_ = xs.vsegids_;
    result.identity_ = false;
    result.vsegid_tag_ = xs.vsegid_tag_;
  }
  return result;
}

}  // namespace vseg::dist::detail
