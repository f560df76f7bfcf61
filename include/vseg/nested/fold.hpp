// Folds and scans of whole segments of nested arrays and nested expressions:
// fold_s, sum_s, scan_s. Each reachable physical segment is visited once;
// the work is balanced over elements plus segments (merge path).
#pragma once

#include <concepts>
#include <cstdint>
#include <utility>

#include "vseg/array.hpp"
#include "vseg/detail/fused_fold.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/flat.hpp"
#include "vseg/monoid.hpp"
#include "vseg/nested/expression.hpp"
#include "vseg/nested/nested.hpp"
#include "vseg/nested/physical.hpp"
#include "vseg/nested/protocol.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/fold.hpp"

namespace vseg {

// Per virtual segment, the fold with the monoid. Each reachable physical
// segment is reduced once, then the results are gathered by vsegids.
// O(reachable physical elements + virtual segments).
template <class T, class Monoid>
  requires monoid_for<Monoid, T>
array<T> fold_s(const nested<T>& xss, const Monoid& m) {
  const auto phys = detail::physical(xss);
  const segd& pd = phys.descriptor;
  auto per_physical = buffer<T>::for_overwrite(pd.segments());
  detail::fold_segments<T>(
      pd.segments(), pd.elements(), [&](std::int64_t p) { return pd.end(p); },
      [&](std::int64_t p, std::int64_t lo, std::int64_t hi, T acc) {
        const std::int64_t st = pd.start(p);
        return detail::fold_range(phys.segment(p), lo - st, hi - st, acc, m);
      },
      m, per_physical.data());
  if (phys.culled.identity_vsegids()) return std::move(per_physical).freeze();
  return bpermute_unchecked(std::move(per_physical).freeze(), phys.culled.vsegids());
}

// Per segment of a delayed expression, the fold with the monoid, fused: the
// expression's elements are never written. O(elements + segments). A flat
// expression (flat() true) runs detail::fold_flat, which reads no
// per-segment descriptor but the shape's starts.
template <nested_expression E, class Monoid>
  requires(!std::same_as<E, nested<typename E::value_type>>) &&
          monoid_for<Monoid, typename E::value_type>
array<typename E::value_type> fold_s(const E& e, const Monoid& m) {
  using T = typename E::value_type;
  using access = detail::expression_access;
  const segd s = e.shape();
  auto out = buffer<T>::for_overwrite(s.segments());
  detail::first_bad bad;
  if constexpr (flat_expression<E>) {
    // Flat (SpMV's shape): a CSR-like loop with no per-segment descriptor reads.
    if (e.flat()) {
      detail::fold_flat<T>(s, access::flat_cursor(e, &bad), m, out.data());
      if (bad.any()) detail::throw_expression_error(e, bad.position());
      return std::move(out).freeze();
    }
  }
  detail::fold_segments<T>(
      s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
      [&](std::int64_t j, std::int64_t lo, std::int64_t hi, T acc) {
        const std::int64_t start = s.start(j);
        auto c = access::cursor(e, j, &bad, start);
        for (std::int64_t k = lo - start; k < hi - start; ++k) acc = m(acc, c(k));
        return acc;
      },
      m, out.data());
  if (bad.any()) detail::throw_expression_error(e, bad.position());
  return std::move(out).freeze();
}

// fold_s with an explicit initial value and binary operation (init must be
// the operation's identity). O(elements + segments).
template <class E, class Op>
  requires nested_expression<E>
array<typename E::value_type> fold_s(const E& e, typename E::value_type init, Op op) {
  return fold_s(e, make_monoid(std::move(op), std::move(init)));
}

// Per virtual segment, the sum of its elements. O(elements + segments).
template <nested_expression E>
array<typename E::value_type> sum_s(const E& e) {
  return fold_s(e, plus<typename E::value_type>{});
}

// Per virtual segment, the exclusive scan with the monoid. Each reachable
// physical segment is scanned once; the result keeps the virtual segments
// (identity stays implicit, a flat input gives a flat result).
// O(reachable physical elements + segments).
template <class T, class Monoid>
  requires monoid_for<Monoid, T>
nested<T> scan_s(const nested<T>& xss, const Monoid& m) {
  const auto phys = detail::physical(xss);
  const segd& pd = phys.descriptor;
  auto out = buffer<T>::for_overwrite(pd.elements());
  T* o = out.data();
  detail::scan_segments<T>(
      pd.segments(), pd.elements(), [&](std::int64_t p) { return pd.end(p); },
      [&](std::int64_t p, std::int64_t lo, std::int64_t hi, T acc) {
        const std::int64_t st = pd.start(p);
        return detail::fold_range(phys.segment(p), lo - st, hi - st, acc, m);
      },
      [&](std::int64_t p, std::int64_t lo, std::int64_t hi, T acc) {
        const T* base = phys.segment(p);
        const std::int64_t st = pd.start(p);
        for (std::int64_t k = lo; k < hi; ++k) {
          const T x = base[k - st];
          o[k] = acc;
          acc = m(acc, x);
        }
        return acc;
      },
      m);
  return phys.culled.with_physical_data(std::move(out).freeze());
}

// Per virtual segment, the exclusive sum scan. O(reachable physical elements + segments).
template <class T>
nested<T> scan_s(const nested<T>& xss) {
  return scan_s(xss, plus<T>{});
}

}  // namespace vseg
