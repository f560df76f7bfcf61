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
// construction, and this expression reads them directly. It is not a
// public type: only index_l builds it, from a plan and sources of the
// plan's length (checked there, O(1) per product).
//
// The gathered x has two parts, read where they are: slot s < own is the
// rank's own x entry s, read in place in x's local data (no copy per
// product), and slot s >= own the fetched entry s - own. A read picks its
// part per element (a compare and a select). The plan also marks the rows
// that read a fetched entry (remote_rows, one byte per row): the SpMV fold
// kernel (planned_fold.hpp) reads every other row from
// the own part alone, with no select.
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

// Reads element k of a segment of slots and gathers the slot's entry,
// unchecked: the plan made every slot in [0, own_count + fetched entries).
template <class T, class I>
struct slot_cursor {
  const T* own;                     // x's own entries: slots [0, own_count)
  const T* fetched;                 // the fetched entries: slots [own_count, own_count + fetched_count)
  std::int64_t own_count;
  std::int64_t fetched_count;
  const I* slots;
  const std::uint8_t* remote_rows;  // per row of a flat cursor, whether it reads a fetched entry; or null
  // Whether row j reads own entries only (known without a look at its slots).
  bool own_row(std::int64_t j) const { return fetched_count == 0 || (remote_rows != nullptr && remote_rows[j] == 0); }
  T operator()(std::int64_t k) const {
    const std::int64_t s = static_cast<std::int64_t>(slots[k]);
    const bool remote = s >= own_count;
    const T* part = remote ? fetched : own;
    return part[remote ? s - own_count : s];
  }
};

// [[src[s] | s <- slots_k] | k], delayed, src being own followed by fetched,
// for slots a gather plan made in range of src (precondition, checked by
// its only caller, index_l). A nested expression
// (vseg/nested/protocol.hpp): sum_s, fold_s, zip_with and the conversion to
// vseg::nested read it as they read vseg::index_l's.
template <class T, std::integral I>
class planned_index_expr {
 public:
  using value_type = T;
  // own, fetched: the rank's x entries and the fetched ones; slots: every
  // element in [0, own.size() + fetched.size()); remote_rows: per segment of
  // slots whether one of its slots is >= own.size() (may be empty when
  // fetched is). O(1).
  planned_index_expr(array<T> own, array<T> fetched, vseg::nested<I> slots, array<std::uint8_t> remote_rows)
      : own_(std::move(own)),
        fetched_(std::move(fetched)),
        slots_(std::move(slots)),
        remote_rows_(std::move(remote_rows)) {}
  // The shape of the result: that of the slots. O(1).
  segd shape() const { return slots_.shape(); }
  // Flat when the slots are laid out as their shape (element k reads src[slots[k]]). O(1).
  bool flat() const noexcept { return slots_.flat(); }
  // The expression evaluated. O(result elements).
  operator vseg::nested<T>() const { return vseg::detail::materialize(*this); }

 private:
  friend struct vseg::detail::expression_access;

  slot_cursor<T, I> cursor(std::int64_t k, vseg::detail::first_bad*, std::int64_t) const {
    return {own_.data(), fetched_.data(), own_.size(), fetched_.size(), slots_[k].data(), nullptr};
  }
  slot_cursor<T, I> flat_cursor(vseg::detail::first_bad* bad) const {
    return {own_.data(), fetched_.data(), own_.size(), fetched_.size(),
            vseg::detail::expression_access::flat_cursor(slots_, bad).data,
            remote_rows_.size() > 0 ? remote_rows_.data() : nullptr};
  }
  // No element is ever bad: the plan checked the indices.
  void throw_bad(std::int64_t) const {}

  array<T> own_;
  array<T> fetched_;
  vseg::nested<I> slots_;
  array<std::uint8_t> remote_rows_;
};

}  // namespace vseg::dist::detail
