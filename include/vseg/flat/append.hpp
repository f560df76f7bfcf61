// append: one array after another. O(n) work.
#pragma once

#include <algorithm>
#include <cstdint>

#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"

namespace vseg {

// [xs..., ys...].
template <contiguous_input R1, contiguous_input R2>
array<element_t<R1>> append(const R1& xs, const R2& ys) {
  using T = element_t<R1>;
  auto a = detail::as_span(xs);
  auto b = detail::as_span(ys);
  const std::int64_t na = detail::ssize(xs);
  const std::int64_t n = na + detail::ssize(ys);
  auto out = buffer<T>::for_overwrite(n);
  T* o = out.data();
  detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) o[i] = i < na ? a[i] : b[i - na];
  });
  return std::move(out).freeze();
}

}  // namespace vseg
