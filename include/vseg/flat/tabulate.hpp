// tabulate, iota, fill: arrays computed from their indices. O(n) work.
#pragma once

#include <cstdint>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/index_buffers.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/tuning.hpp"

namespace vseg {

// [f(0), f(1), ..., f(n-1)]; f is called once per index, in parallel. O(n).
// Plain stores, also for outputs larger than the cache: streaming stores
// measured slower here (treeLookup's tabulates 195-220 against 133-141 ms,
// notes/bench.md), since the reader that follows finds none of the output
// in the cache.
template <class F>
auto tabulate(std::int64_t n, F&& f) {
  using T = std::remove_cvref_t<std::invoke_result_t<F&, std::int64_t>>;
  if (n < 0) detail::throw_invalid("tabulate", "negative size ", n);
  auto out = buffer<T>::for_overwrite(n);
  T* o = out.data();
  detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) o[i] = f(i);
  });
  return std::move(out).freeze();
}

// [start, start + stride, ..., start + (n-1) * stride]. Integer arithmetic
// wraps modulo 2^bits (it is done in the unsigned type, as in iota_s), so a
// long sequence of a narrow type is defined. T is deduced from start alone,
// so iota(c, c - 1, -1) with an int64 c is an array of int64. O(n).
template <class T = std::int64_t>
array<T> iota(std::int64_t n, T start = T(0), std::type_identity_t<T> stride = T(1)) {
  if (n < 0) detail::throw_invalid("iota", "negative size ", n);
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    const U first = static_cast<U>(start);
    const U step = static_cast<U>(stride);
    return tabulate(n, [=](std::int64_t i) { return static_cast<T>(static_cast<U>(first + static_cast<U>(i) * step)); });
  } else {
    return tabulate(n, [=](std::int64_t i) { return static_cast<T>(start + static_cast<T>(i) * stride); });
  }
}

// n copies of value. O(n); O(1) amortised for a large fill of a value whose
// bytes are all zero: a slice of one shared, never-written mapping of zero
// pages (detail/index_buffers.hpp), as calloc hands out fresh zero pages.
template <class T>
array<T> fill(std::int64_t n, const T& value) {
  if (n < 0) detail::throw_invalid("fill", "negative size ", n);
  if constexpr (std::is_trivially_copyable_v<T>) {
    if (n >= tuning::shared_zero_fill_min_bytes / static_cast<std::int64_t>(sizeof(T)) &&
        detail::all_zero_bytes(value))
      return detail::shared_zeros<T>(n, "fill");
  }
  return tabulate(n, [&](std::int64_t) { return value; });
}

}  // namespace vseg
