// The plumbing of the lifted operations (vseg/dist/lifted.hpp) into a
// distributed nested array (vseg/dist/nested.hpp, which includes this
// header at its end): an array's placement, plan cache and virtual
// segments, and a new array on a known placement.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "vseg/dist/detail/virtual_layout.hpp"

namespace vseg::dist::detail {

struct nested_access {
  template <class T>
  static const std::shared_ptr<const placement>& where(const nested<T>& xs) {
    return xs.where_;
  }
  template <class T>
  static auto& plans(const nested<T>& xs) {
    return *xs.plans_;
  }
  template <class T>
  static auto contiguous(const nested<T>& xs) {
    return xs.contiguous();
  }
  // An array of the given pieces on placement w (its physical distribution
  // that of `like`); O(local segments).
  template <class T, class U>
  static nested<T> make(std::shared_ptr<const placement> w, vseg::nested<T> local, const nested<U>& like) {
    nested<T> result;
    result.where_ = std::move(w);
    result.local_ = std::move(local);
    result.physical_ = like.physical_;
    result.vsegids_.assign(result.where_->ids.begin(), result.where_->ids.end());
    result.identity_ = true;
    return result;
  }
  // xs's pieces (shared, not copied) seen through other vsegids (global
  // segment ids), with a fresh tag and plan cache. O(vsegids).
  template <class T>
  static nested<T> with_vsegids(const nested<T>& xs, std::vector<std::int64_t> vsegids) {
    return xs.with_vsegids(std::move(vsegids));
  }
  // The virtual segments xs's pieces are seen through; null if they are its
  // pieces. O(virtual segments).
  template <class T>
  static std::shared_ptr<const virtual_layout> virtual_of(const nested<T>& xs) {
    if (xs.identity_) return nullptr;
    return std::make_shared<const virtual_layout>(virtual_layout{xs.vsegids_, xs.vsegid_tag_, xs.plans_});
  }
  // As make, seen through the virtual segments v (null: its pieces), whose
  // tag it shares. w must be the placement of v's array (or an equal one):
  // the plans on v's vsegids (fold_s's gather) are carried over.
  // O(local segments + virtual segments).
  template <class T, class U>
  static nested<T> make_virtual(std::shared_ptr<const placement> w, vseg::nested<T> local, const nested<U>& like,
                                const std::shared_ptr<const virtual_layout>& v) {
    nested<T> result = make<T>(std::move(w), std::move(local), like);
    if (!v) return result;
    result.vsegids_ = v->vsegids;
    result.identity_ = false;
    result.vsegid_tag_ = v->tag;
    for (const auto& entry : *v->plans)
      if (entry.first == "virtual fold") result.plans_->push_back(entry);
    return result;
  }
};

}  // namespace vseg::dist::detail
