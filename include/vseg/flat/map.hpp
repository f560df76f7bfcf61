// map and zip_with: element-wise functions of one or two arrays. O(n) work.
#pragma once

#include <cstdint>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"

namespace vseg {

// [f(x) | x <- xs].
template <class F, contiguous_input R>
auto map(F&& f, const R& xs) {
  using U = std::remove_cvref_t<std::invoke_result_t<F&, const element_t<R>&>>;
  auto in = detail::as_span(xs);
  const auto n = static_cast<std::int64_t>(in.size());
  auto out = buffer<U>::for_overwrite(n);
  U* o = out.data();
  detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) o[i] = f(in[i]);
  });
  return std::move(out).freeze();
}

// [f(x, y) | (x, y) <- zip xs ys]; throws std::invalid_argument unless the sizes agree.
template <class F, contiguous_input R1, contiguous_input R2>
auto zip_with(F&& f, const R1& xs, const R2& ys) {
  using U = std::remove_cvref_t<
      std::invoke_result_t<F&, const element_t<R1>&, const element_t<R2>&>>;
  auto a = detail::as_span(xs);
  auto b = detail::as_span(ys);
  detail::check_same_size("zip_with", "xs", detail::ssize(xs), "ys", detail::ssize(ys));
  const auto n = static_cast<std::int64_t>(a.size());
  auto out = buffer<U>::for_overwrite(n);
  U* o = out.data();
  detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) o[i] = f(a[i], b[i]);
  });
  return std::move(out).freeze();
}

}  // namespace vseg
