// NESL's scalar semantics for VCODE INT (a wrapping 32-bit C int) and FLOAT
// (a C double): wrapping arithmetic, x86's float-to-int conversion, and the
// monoids with NESL's exact operators and identities (nesl/cvl/serial).
#pragma once

#include <cstdint>
#include <exception>
#include <limits>
#include <type_traits>

namespace vseg::vcode::detail {

// The INT whose bits are x: unsigned arithmetic wraps, and this reads it back.
inline std::int32_t wrap(std::uint32_t x) { return static_cast<std::int32_t>(x); }
// The bits of an INT as an unsigned, for arithmetic that must wrap.
inline std::uint32_t bits(std::int32_t x) { return static_cast<std::uint32_t>(x); }

// A double converted to int as x86's cvttsd2si does: truncation, and
// INT_MIN for NaN or a value out of range (C leaves that undefined).
inline std::int32_t to_int32(double x) {
  if (!(x >= -2147483648.0 && x < 2147483648.0)) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(x);
}

// INT DIV or MOD by 0 (the interpreter reports it with the op's line).
struct division_by_zero : std::exception {
  const char* what() const noexcept override { return "division by zero"; }
};

// Monoids with NESL's exact operators and identities (nesl/cvl/serial).
struct wrapping_plus {
  static constexpr std::int32_t identity() { return 0; }
  std::int32_t operator()(std::int32_t a, std::int32_t b) const { return wrap(bits(a) + bits(b)); }
};
struct wrapping_times {
  static constexpr std::int32_t identity() { return 1; }
  std::int32_t operator()(std::int32_t a, std::int32_t b) const { return wrap(bits(a) * bits(b)); }
};
// max(i,j) = i > j ? i : j, identity MIN_INT, or (double)(float)-1e36 for FLOAT.
template <class T>
struct nesl_max {
  static constexpr T identity() {
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(-1.0e36f);
    else return std::numeric_limits<T>::min();
  }
  T operator()(T a, T b) const { return a > b ? a : b; }
};
template <class T>
struct nesl_min {
  static constexpr T identity() {
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(1.0e36f);
    else return std::numeric_limits<T>::max();
  }
  T operator()(T a, T b) const { return a < b ? a : b; }
};

}  // namespace vseg::vcode::detail
