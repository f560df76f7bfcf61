// The values on the VCODE stack: an INT, BOOL or FLOAT vector, a segment
// descriptor, or a pair of values. All are O(1) to copy (shared buffers), so
// COPY and CPOP never touch elements.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>
#include <concepts>
#include <variant>

#include <boost/smart_ptr/intrusive_ref_counter.hpp>

#include "vseg/array.hpp"
#include "vseg/segd.hpp"

namespace vseg::vcode::detail {

struct value;

// A vector kept as the arguments that make it (lazy.hpp): a DIST, an INDEX,
// or a replication held as virtual segments over one physical copy.
struct lazy_vector;
// Its length and the words it holds (lazy.cpp).
std::int64_t lazy_length(const lazy_vector& l) noexcept;
std::int64_t lazy_words(const lazy_vector& l) noexcept;

// PAIR's result: two values kept together until UNPAIR.
struct pair_value;

using int_vec = array<std::int32_t>;     // VCODE INT: a 32-bit C int, wrapping
using bool_vec = array<bool>;            // VCODE BOOL
using float_vec = array<double>;         // VCODE FLOAT: a C double
using pair_ptr = std::shared_ptr<const pair_value>;

// The interpreter's stack holds handles to values (boost::intrusive_ptr):
// COPY shares a value, it does not copy it. The count is not atomic: values
// are made, shared and dropped only by the interpreter's own thread (the
// vectors inside them are shared with worker threads through the arrays'
// own counts).
struct value : boost::intrusive_ref_counter<value, boost::thread_unsafe_counter> {
  std::variant<int_vec, bool_vec, float_vec, segd, pair_ptr> v;
  // Two caches between a descriptor and its lengths as VCODE INTs, both
  // sound because arrays never change: a descriptor made by MAKE_SEGDES
  // keeps the INT vector it was made from (`lengths`), so LENGTHS is O(1);
  // an INT vector made by LENGTHS keeps the descriptor (`descriptor`), so
  // MAKE_SEGDES of it is O(1). NESL's code turns a descriptor into lengths
  // and back at every level of a recursion (batcher: 5,000 times over 2^18
  // segments).
  int_vec lengths;
  std::shared_ptr<const segd> descriptor;
  // A splat: when >= 0, the vector holds one element x and the value is
  // `splat` elements x, x + step, x + 2 step, ... (INT arithmetic wraps).
  // DIST of a scalar over a big vector makes one with step 0 (black-scholes:
  // 59 constants over 10M elements), and element-wise ops use the scalar;
  // INDEX over one big segment makes one with its stride (radix: the
  // positions 0..n-1, which PERMUTE turns into an inverse permutation
  // without reading them). Any other reader materialises the vector first
  // (machine::arg). Never set on a pair's parts.
  std::int64_t splat = -1;
  std::int32_t step = 0;
  // An INT vector known to be a permutation of [0, its length): a PERMUTE
  // over one segment checked it as its index, or it is an inverse
  // permutation. A later PERMUTE by it skips the check (radix permutes its
  // data and its positions by one rank, and then by the inverse). Sound
  // because a value changes only when written in place (written_in_place).
  bool permutation = false;
  // For an inverse permutation (a PERMUTE of the positions 0, 1, ..., made
  // by machine::permute_positions): the permutation it inverted, which is
  // its own inverse. Inverting it again (radix: the rank, inverted twice)
  // shares this array instead of scattering 1M elements into a new one.
  // Keeps that array alive as long as this value lives, uncounted by -m,
  // like `lengths` above.
  int_vec inverse;
  // A lazy vector (lazy.hpp): when set, `v` holds an empty vector of the
  // value's kind and this stands for its elements. Only the operations that
  // know a form read it (replication.cpp); any other reader materialises it
  // first (machine::arg), as for a splat. Never set together with `splat`.
  std::shared_ptr<const lazy_vector> lazy;

  // The contents were overwritten: the caches above no longer hold.
  void written_in_place() noexcept {
    descriptor.reset();
    permutation = false;
    inverse = int_vec{};
  }

  value() = default;
  // A value holding x (a vector, a descriptor or a pair).
  template <class X>
    requires std::constructible_from<std::variant<int_vec, bool_vec, float_vec, segd, pair_ptr>, X&&>
  value(X&& x) : v(std::forward<X>(x)) {}  // NOLINT: implicit on purpose

  enum kind : std::uint8_t { int_, bool_, float_, segdes, pair };
  kind which() const noexcept { return static_cast<kind>(v.index()); }

  // VCODE's length: elements of a vector, segments of a descriptor.
  std::int64_t length() const noexcept;
  // 8-byte words of memory the value holds (for the -m limit).
  std::int64_t words() const noexcept;
};

struct pair_value {
  value first;
  value second;
};

inline std::int64_t value::length() const noexcept {
  if (splat >= 0) return splat;
  if (lazy) return lazy_length(*lazy);
  switch (which()) {
    case int_: return std::get<int_vec>(v).size();
    case bool_: return std::get<bool_vec>(v).size();
    case float_: return std::get<float_vec>(v).size();
    case segdes: return std::get<segd>(v).segments();
    case pair: break;
  }
  return 1;
}

// 8-byte words of memory n elements of T take (the -m limit's unit).
template <class T>
constexpr std::int64_t words_for(std::int64_t n) noexcept {
  if constexpr (std::is_same_v<T, bool>) return (n + 7) / 8;
  else if constexpr (sizeof(T) == 4) return (n + 1) / 2;
  else return n;
}

inline std::int64_t value::words() const noexcept {
  if (lazy) return lazy_words(*lazy);
  switch (which()) {
    case int_: return words_for<std::int32_t>(std::get<int_vec>(v).size());
    case bool_: return words_for<bool>(std::get<bool_vec>(v).size());
    case float_: return words_for<double>(std::get<float_vec>(v).size());
    case segdes: return 2 * std::get<segd>(v).segments();
    case pair: {
      const auto& p = *std::get<pair_ptr>(v);
      return p.first.words() + p.second.words();
    }
  }
  return 0;
}

// The name of a value's kind as VCODE spells its type words.
inline std::string_view kind_name(value::kind k) {
  switch (k) {
    case value::int_: return "INT";
    case value::bool_: return "BOOL";
    case value::float_: return "FLOAT";
    case value::segdes: return "SEGDES";
    case value::pair: break;
  }
  return "PAIR";
}

}  // namespace vseg::vcode::detail
