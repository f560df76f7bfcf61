// The fusion protocol between nested expressions and their consumers.
//
// A nested expression E (nested<T> itself, and the delayed forms index_l and
// zip_with return, vseg/nested/expression.hpp) has, publicly,
//   value_type      the element type;
//   shape()         the segd of its virtual segments as if concatenated;
// and, reached only through detail::expression_access (the plumbing is not
// part of the expression's public interface),
//   cursor(i, bad, base)   a reader of virtual segment i's elements, which
//                          notes a bad element at position base + k in *bad;
//   throw_bad(position)    throws the error of the bad element at `position`,
//                          if the expression has one there.
// A flat expression also has flat() and flat_cursor(bad), a reader of element
// k of the concatenated virtual space with no per-segment descriptor read.
#pragma once

#include <concepts>
#include <cstdint>

#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/segd.hpp"

namespace vseg {

namespace detail {

// The one door to an expression's protocol members; expressions befriend it.
// Each function is usable in a requires-expression: it disappears for a type
// without the member.
struct expression_access {
  template <class E>
  static auto cursor(const E& e, std::int64_t i, first_bad* bad, std::int64_t base)
      -> decltype(e.cursor(i, bad, base)) {
    return e.cursor(i, bad, base);
  }
  template <class E>
  static auto throw_bad(const E& e, std::int64_t position) -> decltype(e.throw_bad(position)) {
    return e.throw_bad(position);
  }
  template <class E>
  static auto flat_cursor(const E& e, first_bad* bad) -> decltype(e.flat_cursor(bad)) {
    return e.flat_cursor(bad);
  }
};

// Reads element i of one virtual segment of a nested array.
template <class T>
struct segment_cursor {
  const T* data;
  T operator()(std::int64_t i) const { return data[i]; }
};

// Reads element k of a segment of indices and gathers src[index], noting an
// index outside [0, src_len) at position base + k.
template <class T, class Src, class I = std::int64_t>
struct index_cursor {
  const Src* src;
  std::int64_t src_len;
  const I* idx;
  first_bad* bad;
  std::int64_t base;
  T operator()(std::int64_t k) const {
    const std::int64_t i = idx[k];
    if (in_range(i, src_len)) [[likely]]
      return static_cast<T>(src[i]);
    bad->note(base + k);
    return T{};
  }
};

// Reads f(a(k), b(k)).
template <class F, class CA, class CB>
struct zip_cursor {
  const F* f;
  CA a;
  CB b;
  auto operator()(std::int64_t k) const { return (*f)(a(k), b(k)); }
};

}  // namespace detail

// A nested array or a delayed form of one (see the top of this header).
template <class E>
concept nested_expression = requires(const E& e, detail::first_bad* bad) {
  typename E::value_type;
  { e.shape() } -> std::same_as<segd>;
  detail::expression_access::cursor(e, std::int64_t{0}, bad, std::int64_t{0});
  detail::expression_access::throw_bad(e, std::int64_t{0});
};

// A nested expression that can say whether it is flat: element k of its
// concatenated virtual space read without a per-segment cursor (see
// nested<T>::flat()).
template <class E>
concept flat_expression = nested_expression<E> && requires(const E& e, detail::first_bad* bad) {
  { e.flat() } -> std::same_as<bool>;
  detail::expression_access::flat_cursor(e, bad);
};

namespace detail {

// Throws the error an expression found at `position`.
template <class E>
[[noreturn]] void throw_expression_error(const E& e, std::int64_t position) {
  expression_access::throw_bad(e, position);
  throw_out_of_range("nested expression", "bad element at position ", position);
}

}  // namespace detail

}  // namespace vseg
