// gather (by ids, at both depths) and filter_segments: selecting whole
// segments of a nested array is a descriptor operation, no element is copied.
//
//   gather(xss, ids)          segment ids[i] of xss, for each i: the checked
//                             bpermute of nested arrays (composes vsegids);
//   gather(xs, ids)           the flat gather, bpermute under the same name;
//   filter_segments(xss, keep / pred)
//                             the segments kept, in order (nested pack).
#pragma once

#include <concepts>
#include <cstdint>
#include <span>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/index_buffers.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat.hpp"
#include "vseg/nested/nested.hpp"
#include "vseg/nested/pack.hpp"

namespace vseg {

namespace detail {

// Throws std::out_of_range naming `operation`, the first position whose id
// (`noun`: "id", "bucket") lies outside [0, n) and that id. O(ids),
// vectorised per chunk.
template <class I>
void check_ids(const char* operation, std::span<const I> ids, std::int64_t n, const char* bound_what,
               const char* noun = "id") {
  static_assert(integer_index<I>, "ids must be integers (not bool)");
  const I* ix = ids.data();
  first_bad bad;
  parallel_for(static_cast<std::int64_t>(ids.size()), [&](std::int64_t lo, std::int64_t hi) {
    if (all_in_range(ix, lo, hi, n)) return;
    for (std::int64_t i = lo; i < hi; ++i)
      if (!all_in_range(ix, i, i + 1, n)) {
        bad.note(i);
        return;
      }
  });
  if (bad.any()) {
    const std::int64_t i = bad.position();
    // Printed through int64 or uint64 so that an 8-bit id prints as a number.
    if constexpr (std::is_signed_v<I>)
      throw_out_of_range(operation, noun, " ", static_cast<std::int64_t>(ix[i]), " at position ", i, " outside [0, ", n,
                         ") (", bound_what, ")");
    else
      throw_out_of_range(operation, noun, " ", static_cast<std::uint64_t>(ix[i]), " at position ", i, " outside [0, ", n,
                         ") (", bound_what, ")");
  }
}

}  // namespace detail

// [xs[ids[i]] | i]: the flat gather (bpermute), checked. O(ids) work, O(log) span.
// Throws std::out_of_range naming gather, the position and the id.
template <contiguous_input R, contiguous_input Indices>
array<element_t<R>> gather(const R& xs, const Indices& ids) {
  detail::check_ids("gather", detail::as_span(ids), detail::ssize(xs), "the size of xs");
  return bpermute_unchecked(xs, ids);
}

// [xss[ids[i]] | i]: whole segments by id, virtual: the ids are composed with
// the vsegids and no element is copied. O(ids) work. Throws
// std::out_of_range naming gather, the position and the id.
template <class T, contiguous_input Indices>
nested<T> gather(const nested<T>& xss, const Indices& ids) {
  auto ix = detail::as_span(ids);
  detail::check_ids("gather", ix, xss.size(), "the segments of the nested array");
  const auto k = detail::ssize(ids);
  if (xss.descriptor_segments() == 1)  // every vsegid is 0 (a replicated array)
    return xss.with_vsegids_unchecked(detail::shared_zeros<std::int64_t>(k, "gather"));
  if (xss.identity_vsegids()) {
    // The vsegids are the ids themselves: shared when they are already an
    // array of int64, widened otherwise.
    if constexpr (std::is_same_v<std::remove_cvref_t<Indices>, array<std::int64_t>>) return xss.with_vsegids_unchecked(ids);
    else return xss.with_vsegids_unchecked(tabulate(k, [ix](std::int64_t i) { return static_cast<std::int64_t>(ix[i]); }));
  }
  const array<std::int64_t> v = xss.vsegids();
  const std::int64_t* vs = v.data();
  return xss.with_vsegids_unchecked(
      tabulate(k, [vs, ix](std::int64_t i) { return vs[static_cast<std::int64_t>(ix[static_cast<std::size_t>(i)])]; }));
}

// The segments of xss whose keep flag is true, in order: descriptor-only, no
// element copied. O(segments) work. Throws std::invalid_argument naming
// filter_segments unless there is one flag per segment.
template <class T>
nested<T> filter_segments(const nested<T>& xss, const array<bool>& keep) {
  if (keep.size() != xss.size())
    detail::throw_invalid("filter_segments", "keep has size ", keep.size(), " but the nested array has ",
                          xss.size(), " segments");
  return pack(xss, keep);
}

// The segments i of xss with pred(i, length of segment i) true, in order:
// descriptor-only. O(segments) work (pred called once per segment, in parallel).
template <class T, class Pred>
  requires std::predicate<Pred&, std::int64_t, std::int64_t>
nested<T> filter_segments(const nested<T>& xss, Pred pred) {
  const array<bool> keep = tabulate(xss.size(), [&](std::int64_t i) { return static_cast<bool>(pred(i, xss.length(i))); });
  return pack(xss, keep);
}

}  // namespace vseg
