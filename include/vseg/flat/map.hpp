// map and zip_with: element-wise functions of one or two arrays, into a new
// array or into given storage (map_into, zip_with_into). O(n) work.
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"

namespace vseg {

// out[i] = f(xs[i]) for every i. out may be xs's own storage: each element
// is read before the same position is written. Throws std::invalid_argument
// unless the sizes agree.
template <class F, contiguous_input R, class U>
void map_into(F&& f, const R& xs, std::span<U> out) {
  auto in = detail::as_span(xs);
  detail::check_same_size("map_into", "xs", detail::ssize(xs), "out", static_cast<std::int64_t>(out.size()));
  U* o = out.data();
  detail::parallel_for(detail::ssize(xs), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) o[i] = f(in[i]);
  });
}

// out[i] = f(xs[i], ys[i]) for every i. out may be the storage of xs or ys
// (element-wise: position i is read before it is written). Throws
// std::invalid_argument unless the sizes agree.
template <class F, contiguous_input R1, contiguous_input R2, class U>
void zip_with_into(F&& f, const R1& xs, const R2& ys, std::span<U> out) {
  auto a = detail::as_span(xs);
  auto b = detail::as_span(ys);
  detail::check_same_size("zip_with", "xs", detail::ssize(xs), "ys", detail::ssize(ys));
  detail::check_same_size("zip_with_into", "xs", detail::ssize(xs), "out", static_cast<std::int64_t>(out.size()));
  U* o = out.data();
  detail::parallel_for(detail::ssize(xs), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) o[i] = f(a[i], b[i]);
  });
}

// [f(x) | x <- xs].
template <class F, contiguous_input R>
auto map(F&& f, const R& xs) {
  using U = std::remove_cvref_t<std::invoke_result_t<F&, const element_t<R>&>>;
  auto out = buffer<U>::for_overwrite(detail::ssize(xs));
  map_into(f, xs, out.span());
  return std::move(out).freeze();
}

// [f(x, y) | (x, y) <- zip xs ys]; throws std::invalid_argument unless the sizes agree.
template <class F, contiguous_input R1, contiguous_input R2>
auto zip_with(F&& f, const R1& xs, const R2& ys) {
  using U = std::remove_cvref_t<
      std::invoke_result_t<F&, const element_t<R1>&, const element_t<R2>&>>;
  detail::check_same_size("zip_with", "xs", detail::ssize(xs), "ys", detail::ssize(ys));
  auto out = buffer<U>::for_overwrite(detail::ssize(xs));
  zip_with_into(f, xs, ys, out.span());
  return std::move(out).freeze();
}

}  // namespace vseg
