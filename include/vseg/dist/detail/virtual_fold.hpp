// fold_s and sum_s (vseg/dist/lifted.hpp) of a distributed array whose
// vsegids were replicated or expanded, or named at construction: each
// physical segment is folded once, by the pieces' fold (the single-node
// bits; a split segment is finished on the rank holding its end), then each
// virtual segment takes its physical segment's value: locally for a
// replicated array, else through a global_indexer over the ranks holding
// the values, built on the first call and cached with the array's plans
// (which replicate and expand do not share: every rank finds the plan, or
// builds it, together). No take_v of the segments' elements first.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "vseg/dist/global_indexer.hpp"
#include "vseg/dist/lifted.hpp"

namespace vseg::dist::detail {

// The take of the vsegids' values (none for a replicated array, whose
// every rank holds every value).
struct virtual_fold_plan {
  std::optional<global_indexer> fetch;
};

// Per virtual segment of this rank, the fold of the physical segment it
// names. Throws std::invalid_argument on every rank for a mesh block (its
// fold finishes rows across the process row, on other ranks), and
// std::out_of_range on every rank for a vsegid outside the segments.
// Cost: O(local elements + pieces + virtual segments); the pieces' fold,
// then (not replicated) one take: MPI_Allreduce and MPI_Alltoallv, and the
// indexer's build on the first call.
template <class T, class Monoid>
array<T> fold_virtual(const nested<T>& xs, const Monoid& mon) {
  const auto& where = nested_access::where(xs);
  if (where->across)
    vseg::detail::throw_invalid("dist::fold_s", "a mesh block whose vsegids were replicated or expanded is not "
                                                "folded: take_v its segments first");
  const array<T> partials = fold_s(nested_access::make<T>(where, xs.pieces(), xs), mon);
  const std::span<const std::int64_t> ids = xs.vsegids();
  const shard_layout& layout = where->where;
  std::shared_ptr<const virtual_fold_plan> plan;
  for (const auto& [name, stored] : nested_access::plans(xs))
    if (name == "virtual fold") plan = std::static_pointer_cast<const virtual_fold_plan>(stored);
  if (!plan) {
    auto built = std::make_shared<virtual_fold_plan>();
    if (layout.spec.type() != sharding::kind::replicated) {
      // Where each value is: segment J's on the rank finishing it (contiguous
      // specs), or on rank J mod p at J / p (cyclic).
      std::vector<std::int64_t> offsets = layout.first_segment, at(ids.begin(), ids.end());
      if (layout.spec.type() == sharding::kind::cyclic) {
        offsets = cyclic_offsets(layout.segments, where->nranks);
        for (auto& j : at)
          if (j >= 0 && j < layout.segments) j = offsets[static_cast<std::size_t>(j % where->nranks)] + j / where->nranks;
      }
      built->fetch.emplace(distribution::from_agreed_offsets(offsets, where->rank), at, where->comm);
    }
    nested_access::plans(xs).emplace_back("virtual fold", built);
    plan = built;
  }
  auto out = buffer<T>::for_overwrite(static_cast<std::int64_t>(ids.size()));
  if (plan->fetch) {
    plan->fetch->take(std::span<const T>(partials.begin(), partials.end()), out.span());
  } else {
    for (std::size_t k = 0; k < ids.size(); ++k) out[static_cast<std::int64_t>(k)] = partials[ids[k]];
  }
  return std::move(out).freeze();
}

}  // namespace vseg::dist::detail
