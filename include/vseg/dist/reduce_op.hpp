// How put combines the values written to one item: reduce_op for fixed-size
// items, put_mode for variable-length ones.
#pragma once

#include <concepts>
#include <limits>
#include <string_view>
#include <type_traits>

namespace vseg::dist {

// none: the last write wins (highest rank, then later position in the rank).
// Otherwise the initial value and every write are combined in rank order, then
// position order (so floating-point results are the same on every run).
enum class reduce_op { none, sum, prod, min, max, land, lor, band, bor };

// replace: an item written by put_v gets the last write (as reduce_op::none);
// extend: all writes are concatenated in rank order, after the initial content.
enum class put_mode { replace, extend };

// The operator's name, for error messages; O(1).
constexpr std::string_view name(reduce_op op) {
  switch (op) {
    case reduce_op::none: return "none";
    case reduce_op::sum: return "sum";
    case reduce_op::prod: return "prod";
    case reduce_op::min: return "min";
    case reduce_op::max: return "max";
    case reduce_op::land: return "land";
    case reduce_op::lor: return "lor";
    case reduce_op::band: return "band";
    case reduce_op::bor: return "bor";
  }
  return "unknown";
}

// True when `op` can combine values of type T; O(1).
template <class T>
constexpr bool supports(reduce_op op) {
  switch (op) {
    case reduce_op::none: return true;
    case reduce_op::sum: return requires(T a, T b) { a = a + b; };
    case reduce_op::prod: return requires(T a, T b) { a = a * b; };
    case reduce_op::min:
    case reduce_op::max: return requires(T a, T b) { { a < b } -> std::convertible_to<bool>; };
    case reduce_op::land:
    case reduce_op::lor: return std::is_arithmetic_v<T>;
    case reduce_op::band:
    case reduce_op::bor: return std::is_integral_v<T>;
  }
  return false;
}

// The value that leaves every other unchanged under `op` (T{} for none); O(1).
template <class T>
T identity(reduce_op op) {
  if constexpr (std::is_arithmetic_v<T>) {
    using limits = std::numeric_limits<T>;
    switch (op) {
      case reduce_op::none:
      case reduce_op::sum:
      case reduce_op::lor:
      case reduce_op::bor: return T{};
      case reduce_op::prod:
      case reduce_op::land: return T(1);
      case reduce_op::min: return limits::has_infinity ? limits::infinity() : limits::max();
      case reduce_op::max: return limits::has_infinity ? -limits::infinity() : limits::lowest();
      case reduce_op::band:
        if constexpr (std::is_integral_v<T>) return static_cast<T>(~T{});
        else return T{};
    }
    return T{};
  } else {
    if (op == reduce_op::prod) {
      if constexpr (std::constructible_from<T, int>) return T(1);
    }
    return T{};
  }
}

// acc <- acc (op) value; O(1). The caller checked supports<T>(op).
template <class T>
void combine(reduce_op op, T& acc, const T& value) {
  switch (op) {
    case reduce_op::none: acc = value; return;
    case reduce_op::sum:
      if constexpr (supports<T>(reduce_op::sum)) acc = acc + value;
      return;
    case reduce_op::prod:
      if constexpr (supports<T>(reduce_op::prod)) acc = acc * value;
      return;
    case reduce_op::min:
      if constexpr (supports<T>(reduce_op::min)) { if (value < acc) acc = value; }
      return;
    case reduce_op::max:
      if constexpr (supports<T>(reduce_op::max)) { if (acc < value) acc = value; }
      return;
    case reduce_op::land:
      if constexpr (std::is_arithmetic_v<T>) acc = static_cast<T>(acc && value);
      return;
    case reduce_op::lor:
      if constexpr (std::is_arithmetic_v<T>) acc = static_cast<T>(acc || value);
      return;
    case reduce_op::band:
      if constexpr (std::is_integral_v<T>) acc = static_cast<T>(acc & value);
      return;
    case reduce_op::bor:
      if constexpr (std::is_integral_v<T>) acc = static_cast<T>(acc | value);
      return;
  }
}

}  // namespace vseg::dist
