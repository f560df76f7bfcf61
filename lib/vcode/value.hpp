// The values on the VCODE stack: an INT, BOOL or FLOAT vector, a segment
// descriptor, or a pair of values. All are O(1) to copy (shared buffers), so
// COPY and CPOP never touch elements.
//
// A value has one of three representations: stored (its elements in an
// array), a splat (one element standing for many) or lazy (lazy.hpp: the
// arguments that make it). Beside them it may keep cached facts about its
// elements (the lengths/descriptor pair, a known permutation, a known
// inverse, the plan of a PACK by them). The fields are private: the
// representation is set only by the named constructors, and a write in
// place goes through write_in_place(), which drops every cached fact before
// it hands out the elements, so no caller can leave a stale one
// (tests/vcode/test_vcode_value.cpp).
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include <boost/smart_ptr/intrusive_ref_counter.hpp>

#include "vseg/array.hpp"
#include "vseg/flat/map.hpp"
#include "vseg/flat/tabulate.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/pack.hpp"
#include "vseg/vcode/program.hpp"

namespace vseg::vcode::detail {

// A vector kept as the arguments that make it (lazy.hpp): a DIST, an INDEX,
// or a replication held as virtual segments over one physical copy.
struct lazy_vector;
// Its length and the words it holds (replication.cpp). O(1).
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
class value : public boost::intrusive_ref_counter<value, boost::thread_unsafe_counter> {
 public:
  using contents_type = std::variant<int_vec, bool_vec, float_vec, segd, pair_ptr>;
  enum kind : std::uint8_t { int_, bool_, float_, segdes, pair };

  value() = default;
  // A stored value holding x (a vector, a descriptor or a pair). O(1).
  template <class X>
    requires std::constructible_from<contents_type, X&&>
  value(X&& x) : v_(std::forward<X>(x)) {}  // NOLINT: implicit on purpose

  // A splat of n copies of x: one stored element. DIST of a scalar over a
  // big vector makes one (black-scholes: 59 constants over 10M elements);
  // element-wise ops use the scalar, any other reader materialises it
  // first (machine::arg). O(1).
  template <class U>
  static value splat(U x, std::int64_t n) {
    value v{array<U>{x}};
    v.splat_ = n;
    return v;
  }
  // The n INTs first, first + step, first + 2 step, ... (wrapping) as a
  // splat with a step: INDEX over one big segment (radix's positions). O(1).
  static value sequence(std::int32_t first, std::int32_t step, std::int64_t n) {
    value v = splat(first, n);
    v.step_ = step;
    return v;
  }
  // A stored slice of a larger buffer (NESL's drop, gathered.cpp) that -m
  // counts as the buffer_words of the whole buffer it keeps alive: the
  // dropped elements stay in memory while the slice lives. O(1).
  template <class U>
  static value slice_of(array<U> slice, std::int64_t buffer_words) {
    value v{std::move(slice)};
    v.buffer_words_ = buffer_words;
    return v;
  }
  // A lazy vector of kind k (lazy.hpp): the value holds an empty vector of
  // that kind and `l` stands for its elements. O(1).
  static value lazy_of(kind k, std::shared_ptr<const lazy_vector> l) {
    value v;
    switch (k) {
      case int_: v.v_ = int_vec{}; break;
      case bool_: v.v_ = bool_vec{}; break;
      default: v.v_ = float_vec{}; break;
    }
    v.lazy_ = std::move(l);
    return v;
  }

  kind which() const noexcept { return static_cast<kind>(v_.index()); }
  // The vector, descriptor or pair held (for a splat its one element, for a
  // lazy value an empty vector). O(1).
  const contents_type& contents() const noexcept { return v_; }
  template <class X>
  const X& as() const {
    return std::get<X>(v_);
  }
  template <class X>
  const X* get_if() const noexcept {
    return std::get_if<X>(&v_);
  }

  // VCODE's length: elements of a vector, segments of a descriptor. O(1).
  std::int64_t length() const noexcept;
  // 8-byte words of memory the value holds (for the -m limit); a cached
  // fact is not counted. O(1).
  std::int64_t words() const noexcept;

  // --- The representation. ---

  // Whether the value holds its elements as they are (not a splat, not lazy).
  bool is_stored() const noexcept { return splat_ < 0 && !lazy_; }
  bool is_splat() const noexcept { return splat_ >= 0; }
  // A splat's step (0 but for an INDEX's sequence).
  std::int32_t splat_step() const noexcept { return step_; }
  // The scalar of a splat of one repeated T (step 0), or nullptr.
  template <class T>
  const T* splat_scalar() const noexcept {
    if (splat_ < 0 || step_ != 0) return nullptr;
    const auto* a = std::get_if<array<T>>(&v_);
    return a == nullptr ? nullptr : a->data();
  }
  // The lazy form standing for the elements, or nullptr.
  const lazy_vector* lazy() const noexcept { return lazy_.get(); }

  // --- Cached facts about a stored value's elements. Each is sound because
  // the elements change only through write_in_place(), which drops them all.

  // A descriptor's lengths as VCODE INTs, when known (MAKE_SEGDES keeps the
  // vector it was made from, so LENGTHS is O(1); batcher turns a descriptor
  // into lengths and back 5,000 times over 2^18 segments), or nullptr.
  const int_vec* cached_lengths() const noexcept {
    return which() == segdes && lengths_.size() == length() ? &lengths_ : nullptr;
  }
  // An INT vector's descriptor, when known (made by LENGTHS), or nullptr.
  const segd* cached_descriptor() const noexcept { return descriptor_.get(); }
  // Whether an INT vector is known to be a permutation of [0, its length):
  // a PERMUTE over one segment checked it as its index, or it is an inverse
  // permutation. A later PERMUTE by it skips the check.
  bool known_permutation() const noexcept { return permutation_; }
  // For an inverse permutation: the permutation it inverted (its own
  // inverse; radix inverts its rank twice), or nullptr. Keeps that array
  // alive, uncounted by -m.
  const int_vec* cached_inverse() const noexcept { return inverse_.size() > 0 ? &inverse_ : nullptr; }
  // For BOOL flags: the last PACK's plan by them (vseg::pack_plan: the
  // packed descriptor and block offsets), so the PACKs of a tuple's vectors
  // by the same flags count them once; or nullptr. The plan names the
  // descriptor it was made for (pack_plan::made_for).
  const std::shared_ptr<const pack_plan>& cached_pack_plan() const noexcept { return pack_plan_; }

  // Records a fact; each throws std::logic_error (an interpreter bug) when
  // the fact cannot belong to this value (wrong kind, length or
  // representation). O(1).
  void remember_lengths(int_vec lengths) {
    if (!(which() == segdes && lengths.size() == length())) refuse("remember_lengths");
    lengths_ = std::move(lengths);
  }
  void remember_descriptor(segd s) {
    if (!(stored_ints() && s.segments() == length())) refuse("remember_descriptor");
    descriptor_ = std::make_shared<const segd>(std::move(s));
  }
  void mark_permutation() {
    if (!stored_ints()) refuse("mark_permutation");
    permutation_ = true;
  }
  void remember_pack_plan(std::shared_ptr<const pack_plan> plan) {
    if (!(which() == bool_ && is_stored() && plan != nullptr && plan->flags().size() == length()))
      refuse("remember_pack_plan");
    pack_plan_ = std::move(plan);
  }
  void remember_inverse(int_vec inverse) {
    if (!(stored_ints() && inverse.size() == length() && length() > 0)) refuse("remember_inverse");
    inverse_ = std::move(inverse);
    permutation_ = true;  // the inverse of a permutation is one
  }

  // --- Writing in place: the only way a value's elements change. ---

  // The elements as writable U's, for a result of n U's to overwrite them,
  // when nothing else can see the write: the value is stored, holds n U's,
  // is held by exactly one handle (its intrusive count is 1: no other stack
  // entry or lazy form shares it) and its array is its buffer's only owner
  // (array::writable_if_unique). Every cached fact is dropped before the
  // elements are handed out. Otherwise an empty span and nothing changes,
  // but for a pack plan, dropped first whenever the handle is the only one
  // (it shares the flags' buffer, which then would never be unique).
  template <class U>
  std::span<U> write_in_place(std::int64_t n) noexcept {
    auto* a = std::get_if<array<U>>(&v_);
    if (use_count() != 1 || a == nullptr || !is_stored() || a->size() != n) return {};
    pack_plan_.reset();  // it shares the flags' buffer, which would not be unique
    const std::span<U> out = a->writable_if_unique();
    if (out.data() != nullptr) drop_cached_facts();
    return out;
  }

 private:
  bool stored_ints() const noexcept { return which() == int_ && is_stored(); }
  [[noreturn]] static void refuse(const char* what) {
    throw std::logic_error(std::string("value::") + what + ": the fact does not fit the value");
  }
  void drop_cached_facts() noexcept {
    lengths_ = int_vec{};
    descriptor_.reset();
    permutation_ = false;
    inverse_ = int_vec{};
    pack_plan_.reset();
  }

  contents_type v_;
  // Splat: when >= 0, v_ holds one element x and the value is splat_
  // elements x, x + step_, ... (INT wraps). Never set on a pair's parts.
  std::int64_t splat_ = -1;
  std::int32_t step_ = 0;
  bool permutation_ = false;
  // A slice's: the words of the buffer it keeps alive (slice_of), else 0.
  std::int64_t buffer_words_ = 0;
  // Lazy: when set, v_ holds an empty vector of the value's kind. Never set
  // together with a splat.
  std::shared_ptr<const lazy_vector> lazy_;
  int_vec lengths_;
  std::shared_ptr<const segd> descriptor_;
  int_vec inverse_;
  std::shared_ptr<const pack_plan> pack_plan_;
};

struct pair_value {
  value first;
  value second;
};

inline std::int64_t value::length() const noexcept {
  if (splat_ >= 0) return splat_;
  if (lazy_) return lazy_length(*lazy_);
  switch (which()) {
    case int_: return std::get<int_vec>(v_).size();
    case bool_: return std::get<bool_vec>(v_).size();
    case float_: return std::get<float_vec>(v_).size();
    case segdes: return std::get<segd>(v_).segments();
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

// 8-byte words a descriptor holds: its lengths and starts, two per segment;
// two for a uniform one, which computes them (arrays it may build on demand
// are a cache, not counted).
inline std::int64_t descriptor_words(const segd& s) noexcept {
  return s.uniform_length() >= 0 ? 2 : 2 * s.segments();
}

inline std::int64_t value::words() const noexcept {
  if (lazy_) return lazy_words(*lazy_);
  switch (which()) {
    case int_: return std::max(buffer_words_, words_for<std::int32_t>(std::get<int_vec>(v_).size()));
    case bool_: return std::max(buffer_words_, words_for<bool>(std::get<bool_vec>(v_).size()));
    case float_: return std::max(buffer_words_, words_for<double>(std::get<float_vec>(v_).size()));
    case segdes: return descriptor_words(std::get<segd>(v_));
    case pair: {
      const auto& p = *std::get<pair_ptr>(v_);
      return p.first.words() + p.second.words();
    }
  }
  return 0;
}

// MAKE_SEGDES: the descriptor of a stored INT vector of lengths, its cached
// one when it has one (O(1)), else built and checked (O(n)).
inline segd descriptor_of(const value& lengths) {
  if (const segd* s = lengths.cached_descriptor()) return *s;
  return segd::from_int32_lengths(lengths.as<int_vec>());
}

// LENGTHS: a descriptor's lengths as INTs, its cached ones when it has them
// (O(1)), else made (O(segments); O(1) work per segment for a uniform one).
inline int_vec lengths_of(const value& descriptor) {
  if (const int_vec* l = descriptor.cached_lengths()) return *l;
  const segd& s = descriptor.as<segd>();
  if (s.uniform_length() >= 0) return vseg::fill(s.segments(), static_cast<std::int32_t>(s.uniform_length()));
  return vseg::map([](std::int64_t l) { return static_cast<std::int32_t>(l); }, s.lengths());
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

// The vector type and value kind of VCODE elements of type T.
template <class T>
struct vec_of;
template <>
struct vec_of<std::int32_t> {
  using type = int_vec;
  static constexpr value::kind kind = value::int_;
};
template <>
struct vec_of<bool> {
  using type = bool_vec;
  static constexpr value::kind kind = value::bool_;
};
template <>
struct vec_of<double> {
  using type = float_vec;
  static constexpr value::kind kind = value::float_;
};

// The kind of value a VCODE type word names (CHAR is an INT vector).
inline value::kind kind_of(type t) {
  switch (t) {
    case type::int_:
    case type::chars: return value::int_;
    case type::bool_: return value::bool_;
    case type::float_: return value::float_;
    case type::segdes: return value::segdes;
    case type::none: break;
  }
  return value::pair;
}

}  // namespace vseg::vcode::detail
