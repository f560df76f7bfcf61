// What vseg's primitives accept as input: any contiguous sized range
// (vseg::array, std::vector, std::span, ...), read through a span.
#pragma once

#include <cstdint>
#include <ranges>
#include <span>
#include <type_traits>

namespace vseg {

// A contiguous, sized range: vseg::array<T>, std::vector<T> (not bool), std::span<T>.
template <class R>
concept contiguous_input = std::ranges::contiguous_range<R> && std::ranges::sized_range<R>;

// The element type of a contiguous input.
template <class R>
using element_t = std::remove_cv_t<std::ranges::range_value_t<R>>;

namespace detail {

// A read-only span over a contiguous input.
template <contiguous_input R>
std::span<const element_t<R>> as_span(const R& r) {
  return {std::ranges::data(r), static_cast<std::size_t>(std::ranges::size(r))};
}

template <contiguous_input R>
std::int64_t ssize(const R& r) {
  return static_cast<std::int64_t>(std::ranges::size(r));
}

}  // namespace detail
}  // namespace vseg
