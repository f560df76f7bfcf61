// The fold kernel of distributed SpMV's local product,
// sum_s(zip_with(multiplies, vals, index_l(replicate(rows, x), cols))) on
// doubles: per row the sum of vals[k] * x[slots[k]] over the planned
// (unchecked) slots of dist::index_l (planned_index.hpp), bit for bit the
// generic fold (vseg::detail::fold_flat_block) over the same reader.
//
// The gathered x is read in two parts, x's own entries in place and the
// fetched ones, so the generic reader picks the part per element (a compare
// and a select). Most rows read own entries only (on the stencil all but
// the rows next to another rank's; on one rank every row): the plan marks
// the others, and a row of own entries only is folded from the own part
// alone, as a plain CSR row. Same values, same fold_range_by: same bits.
#pragma once

#include <cstdint>
#include <functional>
#include <type_traits>

#include "vseg/detail/fold_range.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/dist/detail/planned_index.hpp"
#include "vseg/monoid.hpp"
#include "vseg/nested/protocol.hpp"

namespace vseg::dist::detail {

// Whether Read is the reader of zip_with(multiplies, vals, planned slots)
// on doubles: vals[k] * x[slots[k]].
template <class Read>
struct planned_product : std::false_type {};
template <class F, class I>
  requires std::is_same_v<F, std::multiplies<>> || std::is_same_v<F, std::multiplies<double>> ||
           std::is_same_v<F, vseg::multiplies<double>>
struct planned_product<vseg::detail::zip_cursor<F, vseg::detail::segment_cursor<double>, slot_cursor<double, I>>>
    : std::true_type {};

// The sum of piece [lo, hi) of row j from +0.0, as fold_range_by folds it:
// from x's own entries alone when the row reads no fetched one. O(hi - lo).
template <class Read>
[[gnu::always_inline]] inline double planned_piece(const Read& read, std::int64_t j, std::int64_t lo,
                                                   std::int64_t hi) {
  if (read.b.own_row(j)) {
    const double* vals = read.a.data;
    const double* own = read.b.own;
    const auto* slots = read.b.slots;
    const auto own_read = [vals, own, slots](std::int64_t k) { return vals[k] * own[slots[k]]; };
    return vseg::detail::fold_range_by<double>(own_read, lo, hi, 0.0, plus<double>{});
  }
  return vseg::detail::fold_range_by<double>(read, lo, hi, 0.0, plus<double>{});
}

// The segments of one merge-path block, as vseg::detail::fold_flat_block
// (the same pieces, the same bits) for the planned product under plus, each
// piece by planned_piece. O(block's elements + segments).
template <class Read>
double fold_planned_block(const std::int64_t* starts, std::int64_t m, std::int64_t n,
                          const vseg::detail::merge_block& blk, const Read& read, double* out) {
  std::int64_t e = blk.first.element;
  std::int64_t j = blk.first.segment;
  const std::int64_t inner = blk.last.segment < m ? blk.last.segment : m - 1;
  for (; j < inner; ++j) {
    const std::int64_t end = starts[j + 1];
    out[j] = planned_piece(read, j, e, end);
    e = end;
  }
  if (j < blk.last.segment) {  // the last segment finishes here
    out[j] = planned_piece(read, j, e, n);
    return 0.0;
  }
  return planned_piece(read, j, e, blk.last.element);
}

}  // namespace vseg::dist::detail
