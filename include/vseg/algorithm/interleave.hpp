// interleave: equal-length arrays merged element by element,
// x0 y0 x1 y1 ... (two arrays) or a0 b0 c0 a1 b1 c1 ... (k arrays).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/flat/tabulate.hpp"

namespace vseg {

// [x0, y0, x1, y1, ...]: the elements of xs and ys alternately. O(n) work.
// Throws std::invalid_argument naming interleave unless the sizes agree.
template <class T>
array<T> interleave(const array<T>& xs, const array<T>& ys) {
  detail::check_same_size("interleave", "xs", xs.size(), "ys", ys.size());
  const T* a = xs.data();
  const T* b = ys.data();
  return tabulate(2 * xs.size(), [a, b](std::int64_t i) { return (i & 1) != 0 ? b[i >> 1] : a[i >> 1]; });
}

// [a0[0], a1[0], ..., a(k-1)[0], a0[1], ...]: k equal-length arrays taken
// element by element in turn. O(k · n) work. Throws std::invalid_argument
// naming interleave and the first array whose size differs from the first's.
template <class T>
array<T> interleave(std::span<const array<T>> arrays) {
  const auto k = static_cast<std::int64_t>(arrays.size());
  if (k == 0) return {};
  const std::int64_t n = arrays[0].size();
  std::vector<const T*> data;
  for (std::int64_t a = 0; a < k; ++a) {
    const array<T>& xs = arrays[static_cast<std::size_t>(a)];
    if (xs.size() != n)
      detail::throw_invalid("interleave", "array ", a, " has size ", xs.size(), " but array 0 has size ", n);
    data.push_back(xs.data());
  }
  const T* const* d = data.data();
  return tabulate(k * n, [d, k](std::int64_t i) { return d[i % k][i / k]; });
}

}  // namespace vseg
