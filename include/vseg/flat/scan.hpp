// scan (exclusive) and scan_inclusive: running combinations with a monoid.
// O(n) work, two passes over the input.
//
// Pass 1 reduces each fixed block; the block totals are scanned serially;
// pass 2 scans each block starting from its offset. As for reduce, the blocks
// do not depend on the thread count, so results are deterministic.
#pragma once

#include <cstdint>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat/reduce.hpp"
#include "vseg/monoid.hpp"

namespace vseg {

// Exclusive scan of `in` into `out` starting from `acc`; returns the total.
// The serial version: the per-block body and small-input path of scan. O(n).
template <class T, class Monoid>
T scan_serial(std::span<const T> in, T* out, T acc, const Monoid& m) {
  const auto n = static_cast<std::int64_t>(in.size());
  for (std::int64_t i = 0; i < n; ++i) {
    const T x = in[i];  // read first: out may alias in
    out[i] = acc;
    acc = m(acc, x);
  }
  return acc;
}

// Inclusive scan of `in` into `out` starting from `acc`; returns the total.
// The serial version of scan_inclusive. O(n).
template <class T, class Monoid>
T scan_inclusive_serial(std::span<const T> in, T* out, T acc, const Monoid& m) {
  const auto n = static_cast<std::int64_t>(in.size());
  for (std::int64_t i = 0; i < n; ++i) {
    acc = m(acc, in[i]);
    out[i] = acc;
  }
  return acc;
}

// An exclusive scan and the combination of all elements.
template <class T>
struct scan_result {
  array<T> prefixes;  // prefixes[i] = identity . xs[0] . ... . xs[i-1]
  T total;            // identity . xs[0] . ... . xs[n-1]
};

namespace detail {

// Which scan a kernel computes (flat and segmented): result[i] combines the
// elements before i (exclusive) or up to and including i (inclusive).
enum class scan_kind { exclusive, inclusive };

template <class T, class Monoid>
T scan_into(std::span<const T> in, T* out, const Monoid& m, scan_kind kind) {
  const auto n = static_cast<std::int64_t>(in.size());
  const std::int64_t block = tuning::flat_block;
  auto run = [&](std::int64_t lo, std::int64_t hi, T acc) {
    auto part = in.subspan(lo, hi - lo);
    return kind == scan_kind::exclusive ? scan_serial<T>(part, out + lo, acc, m)
                                        : scan_inclusive_serial<T>(part, out + lo, acc, m);
  };
  // Small input: the serial version (the same result, see tuning.hpp).
  if (n <= tuning::serial_cutoff) return run(0, n, m.identity());
  per_block<T> offset(block_count(n, block), m.identity());
  for_each_block(n, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
    offset[static_cast<std::size_t>(b)] = reduce_serial<T>(in.subspan(lo, hi - lo), m);
  });
  T total = scan_serial<T>(std::span<const T>(offset), offset.data(), m.identity(), m);
  for_each_block(n, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
    run(lo, hi, offset[static_cast<std::size_t>(b)]);
  });
  return total;
}

}  // namespace detail

// Exclusive scan with its total: prefixes[i] combines xs[0..i). O(n).
template <contiguous_input R, monoid_for<element_t<R>> Monoid>
scan_result<element_t<R>> scan_with_total(const R& xs, const Monoid& m) {
  using T = element_t<R>;
  auto in = detail::as_span(xs);
  auto out = buffer<T>::for_overwrite(static_cast<std::int64_t>(in.size()));
  T total = detail::scan_into<T>(in, out.data(), m, detail::scan_kind::exclusive);
  return {std::move(out).freeze(), total};
}

// Exclusive scan: result[i] combines xs[0..i) (the identity at 0). O(n).
template <contiguous_input R, monoid_for<element_t<R>> Monoid>
array<element_t<R>> scan(const R& xs, const Monoid& m) {
  return scan_with_total(xs, m).prefixes;
}

// Inclusive scan: result[i] combines xs[0..i]. O(n).
template <contiguous_input R, monoid_for<element_t<R>> Monoid>
array<element_t<R>> scan_inclusive(const R& xs, const Monoid& m) {
  using T = element_t<R>;
  auto in = detail::as_span(xs);
  auto out = buffer<T>::for_overwrite(static_cast<std::int64_t>(in.size()));
  detail::scan_into<T>(in, out.data(), m, detail::scan_kind::inclusive);
  return std::move(out).freeze();
}

}  // namespace vseg
