// SELECT whose alternatives are lazy (an INDEX, a DIST, a replication):
// each alternative read a block at a time, never written out whole.
// Delaunay's SELECT INT picks between an INDEX and a DIST of 1.5M elements
// 333 times at 100,000 points; writing both out first made 72M elements of
// fresh memory that the SELECT read once.
#pragma once

#include <cstdint>

#include "lazy.hpp"
#include "value.hpp"
#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"

namespace vseg::vcode::detail {

// Elements per block of a lazy alternative written into scratch.
inline constexpr std::int64_t select_block = 4096;

// Whether select_blockwise is worth it: one alternative lazy, the other
// lazy or stored (a splat pair is left to the plain SELECT). O(1).
inline bool select_reads_lazily(const value& a, const value& b) noexcept {
  return (a.lazy() != nullptr || b.lazy() != nullptr) && (a.lazy() != nullptr || a.is_stored()) &&
         (b.lazy() != nullptr || b.is_stored());
}

// [flags[i] ? a[i] : b[i] | i < n]: a stored alternative read where it is,
// a lazy one written into a block of scratch (write_range). a and b hold
// at least n elements of T. O(n) plus the reads of the lazy forms.
template <class T>
array<T> select_blockwise(const bool* flags, std::int64_t n, const value& a, const value& b) {
  const auto* f = reinterpret_cast<const unsigned char*>(flags);  // a bool's byte, as the plain SELECT reads it
  auto out = buffer<T>::for_overwrite(n);
  T* o = out.data();
  vseg::detail::for_each_block(n, select_block, [&](std::int64_t, std::int64_t lo, std::int64_t hi) {
    T xs[select_block];
    T ys[select_block];
    const T* x = xs;
    const T* y = ys;
    if (a.is_stored()) x = a.as<array<T>>().data() + lo;
    else write_range<T>(a, lo, hi, xs);
    if (b.is_stored()) y = b.as<array<T>>().data() + lo;
    else write_range<T>(b, lo, hi, ys);
    for (std::int64_t i = 0; i < hi - lo; ++i) o[lo + i] = f[lo + i] != 0 ? x[i] : y[i];
  });
  return std::move(out).freeze();
}

}  // namespace vseg::vcode::detail
