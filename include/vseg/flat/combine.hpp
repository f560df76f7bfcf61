// combine2: merge two arrays under a flags array. O(n) work.
#pragma once

#include <cstdint>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat/pack.hpp"

namespace vseg {

// result[i] is the next unused element of xs when flags[i] is false and of ys
// when it is true. Throws std::invalid_argument unless xs has as many
// elements as there are false flags and ys as many as true ones.
template <contiguous_input Flags, contiguous_input R1, contiguous_input R2>
array<element_t<R1>> combine2(const Flags& flags, const R1& xs, const R2& ys) {
  using T = element_t<R1>;
  auto f = detail::as_span(flags);
  auto a = detail::as_span(xs);
  auto b = detail::as_span(ys);
  const std::int64_t n = detail::ssize(flags);
  std::vector<std::int64_t> offsets;  // true flags before each block
  const std::int64_t trues = detail::flag_offsets(f, offsets);
  if (trues != detail::ssize(ys) || n - trues != detail::ssize(xs))
    detail::throw_invalid("combine2", "flags select ", n - trues, " elements of xs and ", trues,
                          " of ys, but xs has ", detail::ssize(xs), " and ys ",
                          detail::ssize(ys));
  auto out = buffer<T>::for_overwrite(n);
  T* o = out.data();
  detail::for_each_block(n, tuning::flat_block,
                         [&](std::int64_t blk, std::int64_t lo, std::int64_t hi) {
                           std::int64_t t = offsets[static_cast<std::size_t>(blk)];
                           std::int64_t s = lo - t;
                           for (std::int64_t i = lo; i < hi; ++i) o[i] = f[i] ? b[t++] : a[s++];
                         });
  return std::move(out).freeze();
}

}  // namespace vseg
