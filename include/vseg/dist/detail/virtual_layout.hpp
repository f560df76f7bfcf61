// The virtual segments a distributed array's pieces are seen through once
// its vsegids were replicated or expanded (or named at construction), as
// the lifted operations carry them: map, scan_s and index_l work on the
// pieces and keep the vsegids; zip_with needs both operands' vsegids equal;
// fold_s folds the pieces and gathers one value per vsegid
// (detail/virtual_fold.hpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vseg/dist/detail/collective_check.hpp"
#include "vseg/dist/detail/placement.hpp"

namespace vseg::dist::detail {

// Plans cached by name on an array ("reshard " + spec, "gather", "virtual fold").
using plan_list = std::vector<std::pair<std::string, std::shared_ptr<const void>>>;

// The plan stored in `plans` under `name`, or else the one build() returns,
// stored there first. Collective when build() is: every rank holds the same
// plans, so every rank takes the same branch. O(plans) besides build().
template <class Plan, class Build>
std::shared_ptr<const Plan> cached_plan(plan_list& plans, std::string_view name, const Build& build) {
  for (const auto& [stored_name, stored] : plans)
    if (stored_name == name) return std::static_pointer_cast<const Plan>(stored);
  std::shared_ptr<const Plan> plan = build();
  plans.emplace_back(std::string(name), plan);
  return plan;
}

struct virtual_layout {
  // This rank's virtual segments, as global physical ids.
  std::vector<std::int64_t> vsegids;
  // Shared by arrays whose vsegids are one list (null: not known to be).
  std::shared_ptr<const int> tag;
  // The plan cache of the array the vsegids came from: its plans on the
  // vsegids (fold_s's gather) hold for every array with the same vsegids
  // and placement.
  std::shared_ptr<plan_list> plans;
};

// Throws std::invalid_argument on every rank unless a and b are both pieces
// (null) or both the same virtual segments on every rank. Both pieces or one
// tag: no message (whether an array is seen through vsegids is the same on
// every rank of an SPMD program); else the lists are compared here and one
// MPI_Allreduce agrees. O(virtual segments).
inline void require_same_virtual(const virtual_layout* a, const virtual_layout* b, const placement& where,
                                 const char* operation) {
  if (!a && !b) return;
  if (!a || !b)
    vseg::detail::throw_invalid(operation, "one operand's vsegids were replicated or expanded and the other's "
                                           "were not: take_v its segments first");
  if (a->tag && a->tag == b->tag) return;
  error_collector errs(operation, where.rank);
  if (a->vsegids.size() != b->vsegids.size()) {
    errs.invalid("the operands have ", a->vsegids.size(), " and ", b->vsegids.size(),
                 " virtual segments (different vsegids: take_v their segments first)");
  } else {
    for (std::size_t k = 0; k < a->vsegids.size(); ++k)
      if (a->vsegids[k] != b->vsegids[k]) {
        errs.invalid("virtual segment ", k, " names segment ", a->vsegids[k], " and ",
                     b->vsegids[k], " (different vsegids: take_v their segments first)");
        break;
      }
  }
  agree(where.comm, errs);
}

}  // namespace vseg::dist::detail
