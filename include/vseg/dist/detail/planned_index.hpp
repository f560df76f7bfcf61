// The local half of dist::index_l: lifted indexing whose indices a gather
// plan has already checked, read without a bounds check per element.
//
// The core index_l_expr (vseg/nested/expression.hpp) checks every index
// against its source as it reads it (one compare and a never-taken branch
// per element, fused into the fold), because there the indices are user
// input. dist::index_l's indices are not: the gather plan checked every
// requested index of x once, on every rank together (a bad one throws the
// same std::out_of_range everywhere when the plan is built), and renumbered
// them into slots of the rank's gathered x, whose length the plan fixes
// (own entries + fetched ones). Every slot is therefore in range by
// construction, and this expression reads src[slot] directly. It is not a
// public type: only index_l builds it, from a plan and a source of the
// plan's length (checked there, O(1) per product).
#pragma once

#include <concepts>
#include <cstdint>
#include <utility>

#include "vseg/array.hpp"
#include "vseg/nested/expression.hpp"
#include "vseg/nested/nested.hpp"
#include "vseg/nested/protocol.hpp"
#include "vseg/segd.hpp"

namespace vseg::dist::detail {

// Reads element k of a segment of slots and gathers src[slot], unchecked:
// the plan made every slot in [0, size of src).
template <class T, class I>
struct slot_cursor {
  const T* src;
  const I* slots;
  T operator()(std::int64_t k) const { return src[slots[k]]; }
};

// [[src[s] | s <- slots_k] | k], delayed, for slots a gather plan made in
// range of src (precondition, checked by its only caller, index_l). A nested
// expression (vseg/nested/protocol.hpp): sum_s, fold_s, zip_with and the
// conversion to vseg::nested read it as they read vseg::index_l's.
template <class T, std::integral I>
class planned_index_expr {
 public:
  using value_type = T;
  // src: the rank's gathered x; slots: every element in [0, src.size()). O(1).
  planned_index_expr(array<T> src, vseg::nested<I> slots) : src_(std::move(src)), slots_(std::move(slots)) {}
  // The shape of the result: that of the slots. O(1).
  segd shape() const { return slots_.shape(); }
  // Flat when the slots are laid out as their shape (element k reads src[slots[k]]). O(1).
  bool flat() const noexcept { return slots_.flat(); }
  // The expression evaluated. O(result elements).
  operator vseg::nested<T>() const { return vseg::detail::materialize(*this); }

 private:
  friend struct vseg::detail::expression_access;

  slot_cursor<T, I> cursor(std::int64_t k, vseg::detail::first_bad*, std::int64_t) const {
    return {src_.data(), slots_[k].data()};
  }
  slot_cursor<T, I> flat_cursor(vseg::detail::first_bad* bad) const {
    return {src_.data(), vseg::detail::expression_access::flat_cursor(slots_, bad).data};
  }
  // No element is ever bad: the plan checked the indices.
  void throw_bad(std::int64_t) const {}

  array<T> src_;
  vseg::nested<I> slots_;
};

}  // namespace vseg::dist::detail
