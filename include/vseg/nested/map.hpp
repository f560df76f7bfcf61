// map over a nested array: f applied once per reachable physical element.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "vseg/array.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/nested/nested.hpp"
#include "vseg/nested/physical.hpp"

namespace vseg {

// [[f(x) | x <- xs] | xs <- xss], applied once per reachable physical
// element; the result keeps the virtual segments (identity stays implicit,
// a flat input gives a flat result, so SpMV after a map keeps its fast path).
// O(reachable physical elements + segments).
template <class F, class T>
auto map(F f, const nested<T>& xss) {
  using U = std::remove_cvref_t<std::invoke_result_t<F&, const T&>>;
  const auto phys = detail::physical(xss);
  const segd& pd = phys.descriptor;
  auto out = buffer<U>::for_overwrite(pd.elements());
  U* o = out.data();
  detail::for_each_segment_piece(pd.segments(), pd.elements(), [&](std::int64_t p) { return pd.end(p); },
                                 [&](std::int64_t p, std::int64_t lo, std::int64_t hi) {
                                   const T* base = phys.segment(p);
                                   const std::int64_t st = pd.start(p);
                                   for (std::int64_t k = lo; k < hi; ++k) o[k] = f(base[k - st]);
                                 });
  return phys.culled.with_physical_data(std::move(out).freeze());
}

}  // namespace vseg
