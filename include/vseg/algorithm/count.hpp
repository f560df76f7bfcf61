// Per-segment counts: count_s (true flags) and count_if_s (elements that
// satisfy a predicate), over a segd or a nested array. The segment
// descriptor from head flags (segd::from_head_flags, segd_from_flags) lives
// with segd in vseg/segd.hpp.
#pragma once

#include <concepts>
#include <cstdint>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/monoid.hpp"
#include "vseg/flat/permute.hpp"
#include "vseg/nested/physical.hpp"
#include "vseg/nested/nested.hpp"
#include "vseg/segd.hpp"

namespace vseg {

// Per segment of s, the number of elements with pred(x) true, balanced over
// elements plus segments. O(elements + segments) work. Throws
// std::invalid_argument naming count_if_s unless s covers xs.
template <contiguous_input R, class Pred>
  requires std::predicate<Pred&, const element_t<R>&>
array<std::int64_t> count_if_s(const segd& s, const R& xs, Pred pred) {
  detail::check_covers_argument("count_if_s", s.elements(), "the elements", detail::ssize(xs));
  auto in = detail::as_span(xs);
  auto counts = buffer<std::int64_t>::for_overwrite(s.segments());
  detail::fold_segments<std::int64_t>(
      s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
      [&](std::int64_t, std::int64_t lo, std::int64_t hi, std::int64_t acc) {
        for (std::int64_t k = lo; k < hi; ++k) acc += pred(in[static_cast<std::size_t>(k)]) ? 1 : 0;
        return acc;
      },
      plus<std::int64_t>{}, counts.data());
  return std::move(counts).freeze();
}

// Per segment of s, the number of true flags. O(elements + segments) work.
// Throws std::invalid_argument naming count_s unless s covers the flags.
template <contiguous_input Flags>
array<std::int64_t> count_s(const segd& s, const Flags& flags) {
  detail::check_covers_argument("count_s", s.elements(), "the flags", detail::ssize(flags));
  return count_if_s(s, flags, [](bool f) { return f; });
}

// Per virtual segment of xss, the number of elements with pred(x) true; each
// reachable physical element is tested once. O(reachable physical elements
// + segments) work.
template <class T, class Pred>
  requires std::predicate<Pred&, const T&>
array<std::int64_t> count_if_s(const nested<T>& xss, Pred pred) {
  // As nested fold_s: count each reachable physical segment once, then
  // gather the counts by vsegids.
  const auto phys = detail::physical(xss);
  const segd& pd = phys.descriptor;
  auto per_physical = buffer<std::int64_t>::for_overwrite(pd.segments());
  detail::fold_segments<std::int64_t>(
      pd.segments(), pd.elements(), [&](std::int64_t p) { return pd.end(p); },
      [&](std::int64_t p, std::int64_t lo, std::int64_t hi, std::int64_t acc) {
        const T* seg = phys.segment(p);
        const std::int64_t st = pd.start(p);
        for (std::int64_t k = lo; k < hi; ++k) acc += pred(seg[k - st]) ? 1 : 0;
        return acc;
      },
      plus<std::int64_t>{}, per_physical.data());
  if (phys.culled.identity_vsegids()) return std::move(per_physical).freeze();
  return bpermute_unchecked(std::move(per_physical).freeze(), phys.culled.vsegids());
}

}  // namespace vseg
