// Monoids: an associative operation with its identity, for reduce, scan and
// their segmented forms.
//
// A monoid is any object m with m.identity() and m(a, b). The common ones are
// below; make_monoid(op, identity) builds one from a lambda. Operations need
// not be commutative: vseg always combines partial results left to right.
#pragma once

#include <concepts>
#include <limits>
#include <type_traits>
#include <utility>

namespace vseg {

template <class M, class T>
concept monoid_for = requires(const M& m, const T& a, const T& b) {
  { m.identity() } -> std::convertible_to<T>;
  { m(a, b) } -> std::convertible_to<T>;
};

// a + b, identity 0.
template <class T>
struct plus {
  static constexpr T identity() { return T(0); }
  constexpr T operator()(const T& a, const T& b) const { return a + b; }
};

// a * b, identity 1.
template <class T>
struct multiplies {
  static constexpr T identity() { return T(1); }
  constexpr T operator()(const T& a, const T& b) const { return a * b; }
};

// The smaller of a and b, identity the largest T (infinity for floats).
template <class T>
struct minimum {
  static constexpr T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
  }
  constexpr T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};

// The larger of a and b, identity the smallest T (-infinity for floats).
template <class T>
struct maximum {
  static constexpr T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
  }
  constexpr T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};

// a && b, identity true.
struct logical_and {
  static constexpr bool identity() { return true; }
  constexpr bool operator()(bool a, bool b) const { return a && b; }
};

// a || b, identity false.
struct logical_or {
  static constexpr bool identity() { return false; }
  constexpr bool operator()(bool a, bool b) const { return a || b; }
};

// a ^ b on bools (odd parity), identity false.
struct logical_xor {
  static constexpr bool identity() { return false; }
  constexpr bool operator()(bool a, bool b) const { return a != b; }
};

// a & b, identity all ones.
template <std::integral T>
struct bit_and {
  static constexpr T identity() { return static_cast<T>(~T(0)); }
  constexpr T operator()(T a, T b) const { return static_cast<T>(a & b); }
};

// a | b, identity 0.
template <std::integral T>
struct bit_or {
  static constexpr T identity() { return T(0); }
  constexpr T operator()(T a, T b) const { return static_cast<T>(a | b); }
};

// a ^ b, identity 0.
template <std::integral T>
struct bit_xor {
  static constexpr T identity() { return T(0); }
  constexpr T operator()(T a, T b) const { return static_cast<T>(a ^ b); }
};

// A monoid from any associative operation and its identity element.
template <class T, class Op>
struct user_monoid {
  Op op;
  T unit;
  T identity() const { return unit; }
  T operator()(const T& a, const T& b) const { return op(a, b); }
};

// Builds a monoid from an associative op and its identity.
template <class T, class Op>
user_monoid<T, Op> make_monoid(Op op, T identity) {
  return {std::move(op), std::move(identity)};
}

}  // namespace vseg
