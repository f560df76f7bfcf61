// fold_s and sum_s (vseg/dist/lifted.hpp) of a distributed array (or a
// lifted expression of such arrays, zip_with's) whose vsegids were
// replicated or expanded, or named at construction: each
// physical segment is folded once, by the pieces' fold (the single-node
// bits; a split segment is finished on the rank holding its end), then each
// virtual segment takes its physical segment's value: locally for a
// replicated array, else through a global_indexer over the ranks holding
// the values, built on the first call and cached with the array's plans
// (which replicate and expand do not share: every rank finds the plan, or
// builds it, together; map, scan_s and zip_with pass it on to arrays with
// the same vsegids). No take_v of the segments' elements first.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
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
// names (a is a distributed array or a lifted expression seen through vsegids). Throws std::invalid_argument on every rank for a mesh block (its
// fold finishes rows across the process row, on other ranks), and
// std::out_of_range on every rank for a vsegid outside the segments.
// Cost: O(local elements + pieces + virtual segments); the pieces' fold,
// then (not replicated) one take: MPI_Allreduce and MPI_Alltoallv, and the
// indexer's build on the first call.
template <class A, class Monoid>
array<typename A::value_type> fold_virtual(const A& a, const Monoid& mon) {
  using T = typename A::value_type;
  const auto e = as_expr(a);  // the pieces (shared, not copied) and the vsegids
  const auto& where = e.where;
  if (where->across)
    vseg::detail::throw_invalid("dist::fold_s", "a mesh block whose vsegids were replicated or expanded is not "
                                                "folded: take_v its segments first");
  const array<T> partials = fold_s(expr<std::remove_cvref_t<decltype(e.local)>>{where, e.local}, mon);
  const std::span<const std::int64_t> ids = e.virt->vsegids;
  const shard_layout& layout = where->where;
  const auto plan = cached_plan<virtual_fold_plan>(*e.virt->plans, "virtual fold", [&] {
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
    return built;
  });
  auto out = buffer<T>::for_overwrite(static_cast<std::int64_t>(ids.size()));
  if (plan->fetch) {
    plan->fetch->take(std::span<const T>(partials.begin(), partials.end()), out.span());
  } else {
    for (std::size_t k = 0; k < ids.size(); ++k) out[static_cast<std::int64_t>(k)] = partials[ids[k]];
  }
  return std::move(out).freeze();
}

}  // namespace vseg::dist::detail
