// The VCODE operation switch (machine::execute) and the operations it
// instantiates with NESL's scalar functions: element-wise ops on vectors and
// splats, with results written into a reusable argument's storage, SELECT
// and RAND. Scans and reductions are in reduce_ops.cpp, I/O in io_ops.cpp.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "fused_eval.hpp"
#include "lcg48.hpp"
#include "machine.hpp"
#include "scalar.hpp"
#include "value.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/flat/map.hpp"
#include "vseg/flat/tabulate.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/fold.hpp"
#include "vseg/segmented/iota.hpp"
#include "vseg/segmented/scan.hpp"

namespace vseg::vcode::detail {

// f called with a value of the element type a typed instruction names:
// INT, BOOL, or (any other type word) FLOAT.
template <class F>
void machine::by_type(const instruction& ins, F&& f) {
  switch (ins.ty) {
    case type::int_: return f(std::int32_t{});
    case type::bool_: return f(bool{});
    default: return f(double{});
  }
}

// An element-wise result of n U's, computed by fill(span) into the storage
// of one of the arguments when it is reusable, else into a new buffer.
// Chains of element-wise ops (black-scholes: 3,000 of them over 10M
// elements) then run in a few warm buffers instead of allocating and
// faulting in one per op, and write to lines they have just read.
// `depths` are the stack depths of the arguments that may be reused.
template <class U, class Fill>
slot machine::elementwise_result(std::int64_t n, std::initializer_list<std::size_t> depths, Fill&& fill) {
  for (std::size_t depth : depths) {
    const slot& entry = stack_[stack_.size() - 1 - depth];
    if (auto out = reusable<U>(entry, n); out.data() != nullptr) {
      fill(out);
      return entry;
    }
  }
  auto out = buffer<U>::for_overwrite(n);
  fill(out.span());
  return make_slot(std::move(out).freeze());
}

template <class T, class F>
void machine::unary(F f) {
  using U = std::remove_cvref_t<std::invoke_result_t<F&, const T&>>;
  need(1);
  if (const T* s = splat_scalar<T>(0)) return finish(1, value::splat<U>(f(*s), at(0).length()));
  const auto& a = vec<T>(1, 1);
  finish(1, elementwise_result<U>(a.size(), {0}, [&](std::span<U> out) { vseg::map_into(f, a, out); }));
}

template <class T, class F>
void machine::binary(F f) {
  using U = std::remove_cvref_t<std::invoke_result_t<F&, const T&, const T&>>;
  need(2);
  if (binary_fused<T, F>()) return;
  const T* sa = splat_scalar<T>(1);
  const T* sb = splat_scalar<T>(0);
  if (sa != nullptr || sb != nullptr) {
    // A splat argument is used as its scalar: argument 1's length, and
    // argument 2 at least as long, as below.
    const std::int64_t n = at(1).length();
    if (at(0).length() < n)
      fail("vector length mismatch: argument 1 has " + std::to_string(n) + " elements, argument 2 has " +
           std::to_string(at(0).length()));
    if (sa != nullptr && sb != nullptr) return finish(2, value::splat<U>(f(*sa, *sb), n));
    if (sa != nullptr) {
      const T x = *sa;
      const std::span<const T> b = vec<T>(2, 2).span().first(static_cast<std::size_t>(n));
      return finish(2, elementwise_result<U>(n, {0}, [&](std::span<U> out) {
                      vseg::map_into([&](const T& y) { return f(x, y); }, b, out);
                    }));
    }
    const T y = *sb;
    const auto& a = vec<T>(2, 1);
    return finish(2, elementwise_result<U>(n, {1}, [&](std::span<U> out) {
                    vseg::map_into([&](const T& x) { return f(x, y); }, a, out);
                  }));
  }
  if (binary_lazily<T>(f)) return;
  const auto& a = vec<T>(2, 1);
  // A view of argument 2's prefix, not a copy of the array: a copy would
  // share its buffer and keep it from being reused.
  const std::span<const T> b = prefix_span(a, vec<T>(2, 2), "argument 2");
  finish(2, elementwise_result<U>(a.size(), {1, 0},
                                  [&](std::span<U> out) { vseg::zip_with_into(f, a, b, out); }));
}

// An op defined on INT and FLOAT: fi on ints, ff on doubles.
template <class FI, class FF>
void machine::arith(const instruction& ins, FI fi, FF ff) {
  if (ins.ty == type::int_) binary<std::int32_t>(fi);
  else binary<double>(ff);
}

template <class F>
void machine::compare(const instruction& ins, F f) {
  if (ins.ty == type::int_) binary<std::int32_t>([f](std::int32_t a, std::int32_t b) { return f(a, b); });
  else binary<double>([f](double a, double b) { return f(a, b); });
}

template <class T>
void machine::select_typed() {
  const bool_vec& flags = bools(3, 1);
  const auto& a = vec<T>(3, 2);
  const auto& b = vec<T>(3, 3);
  for (const auto* later : {&a, &b})
    if (later->size() < flags.size())
      fail("vector length mismatch: argument 1 has " + std::to_string(flags.size()) + " elements, argument " +
           (later == &a ? "2" : "3") + " has " + std::to_string(later->size()));
  const auto* f = reinterpret_cast<const unsigned char*>(flags.data());  // a bool's byte: see B_TO_I
  const T* x = a.data();
  const T* y = b.data();
  const auto blend = [](T a, T b, unsigned char t) { return t != 0 ? a : b; };  // both loaded: a vector blend
  finish(3, elementwise_result<T>(flags.size(), {1, 0}, [=](std::span<T> out) {  // into a reusable argument
           vseg::detail::parallel_for(std::ssize(out), [=, o = out.data()](std::int64_t lo, std::int64_t hi) {
             for (std::int64_t i = lo; i < hi; ++i) o[i] = blend(x[i], y[i], f[i]);
           });
         }));
}

void machine::rand() {
  need(1);
  // The usual bound is one value for the whole vector, a DIST: as a splat
  // it is used as its scalar, never written out.
  const std::int32_t* scalar = splat_scalar<std::int32_t>(0);
  int_vec bound;
  if (scalar == nullptr) bound = ints(1, 1);
  const std::int64_t n = scalar != nullptr ? at(0).length() : bound.size();
  const bool zero = scalar != nullptr ? *scalar == 0 && n > 0 : std::find(bound.begin(), bound.end(), 0) != bound.end();
  if (zero) fail("RAND with a bound of 0 (division by zero)");
  // A splat bound may stand for more elements than -m allows: check before
  // the result is allocated (the result replaces the bound on the stack).
  check_room(detail::words_for<std::int32_t>(n), words_ - at(0).words());
  const std::int32_t* m = bound.data();
  auto out = buffer<std::int32_t>::for_overwrite(n);
  std::int32_t* o = out.data();
  // Each fixed block starts from the generator jumped to its first element,
  // so the result is the serial lrand48() sequence on any thread count.
  const detail::lcg48 start = rng_;
  vseg::detail::for_each_block(n, tuning::flat_block, [&](std::int64_t, std::int64_t lo, std::int64_t hi) {
    detail::lcg48 g = start.jumped(static_cast<std::uint64_t>(lo));
    std::int32_t* ob = o + lo;
    const std::int32_t d = scalar != nullptr ? *scalar : m[lo];
    if (d > 0 && (scalar != nullptr || std::all_of(m + lo, m + hi, [d](std::int32_t x) { return x == d; }))) {
      // One positive bound: a multiply-shift, not a division (lcg48.hpp).
      detail::generate_mod(g, ob, hi - lo, detail::mod_by(d));
    } else if (scalar != nullptr) {
      g.generate(hi - lo, [=](std::int64_t k, std::int32_t x) { ob[k] = x % d; });
    } else {
      const std::int32_t* mb = m + lo;
      g.generate(hi - lo, [=](std::int64_t k, std::int32_t x) { ob[k] = x % mb[k]; });
    }
  });
  rng_ = start.jumped(static_cast<std::uint64_t>(n));
  finish(1, wrap_value(std::move(out).freeze()));
}

namespace {

// The DIST a value stands for when it is a lazy one of stored values (an
// `expanded` not over a replication), or nullptr.
const expanded* expanded_of_stored(const value& v) noexcept {
  if (v.lazy() == nullptr) return nullptr;
  const auto* e = std::get_if<expanded>(&v.lazy()->form);
  return e != nullptr && e->values->is_stored() ? e : nullptr;
}

// out[j] = g(values[i], other[j]) for the elements j < n of each segment i
// of e's shape: a DIST combined with a stored vector where both are, one
// segment's value at a time. Chunks of the element-wise grain, each starting
// from the segment that holds its first element. O(n + log segments per chunk).
template <class T, class U, class G>
void combine_expanded(const expanded& e, const T* other, std::int64_t n, U* out, const G& g) {
  const T* values = e.values->as<array<T>>().data();
  const segd& shape = e.shape;
  vseg::detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = segment_of(shape, lo), j = lo; j < hi; ++i) {
      const std::int64_t end = std::min(hi, shape.end(i));
      const T v = values[i];
      for (; j < end; ++j) out[j] = g(v, other[j]);
    }
  });
}

// out[j] = g(e's value for j, r's element j) for j < n: a DIST beside a
// replication (Delaunay at 100,000 points: 772 ops, 87M elements), both
// segment walks advanced together, neither written into a block. O(n + log
// segments per chunk).
template <class T, class U, class G>
void combine_expanded_replicated(const expanded& e, const replicated& r, std::int64_t n, U* out, const G& g) {
  const T* values = e.values->as<array<T>>().data();
  const T* physical = r.physical->as<array<T>>().data();
  const segd& shape = e.shape;
  vseg::detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    std::int64_t i = segment_of(shape, lo);
    std::int64_t t = segment_of(r, lo);
    for (std::int64_t j = lo; j < hi;) {
      while (shape.end(i) <= j) ++i;  // past empty segments
      while (r.vstart(t) + r.length_of(t) <= j) ++t;
      const std::int64_t end = std::min({hi, shape.end(i), r.vstart(t) + r.length_of(t)});
      const T v = values[i];
      const T* src = physical + (r.start_of(t) - r.vstart(t));
      for (; j < end; ++j) out[j] = g(v, src[j]);
    }
  });
}

}  // namespace

template <class T, class F>
bool machine::binary_fused() {
  using U = std::remove_cvref_t<std::invoke_result_t<F&, const T&, const T&>>;
  if constexpr (!std::is_same_v<T, double> || !std::is_same_v<U, double> || !std::is_default_constructible_v<F>) {
    return false;
  } else {
    const value& x = at(1);
    const value& y = at(0);
    if (x.which() != value::float_ || y.which() != value::float_) return false;  // arg() reports it
    const std::int64_t n = x.length();
    if (n < lazy_min || y.length() < n) return false;  // a short y: the usual error
    // A lazy operand that is cheap to read again: a replication, a DIST or
    // a fused value (fused.hpp); a plain or splat pair is computed as usual.
    const auto fusible = [](const value& v) {
      const lazy_vector* l = v.lazy();
      return l != nullptr && (std::holds_alternative<replicated>(l->form) ||
                              std::holds_alternative<expanded>(l->form) || std::holds_alternative<fused>(l->form));
    };
    if (!fusible(x) && !fusible(y)) return false;
    // An op of a value with itself (NESL's x^2 is x * x) reads it once.
    const std::int64_t ops = 1 + fused_ops(x) + (&x == &y ? 0 : fused_ops(y));
    if (ops > fused_ops_max) return false;
    // It holds its leaves (the operands that are not fused values): each
    // distinct one counted once, however often the expression reads it.
    std::vector<const value*> leaves;
    const auto collect = [&leaves](const auto& self, const value& v) -> void {
      if (const fused* w = fused_of(v)) {
        self(self, *w->a);
        self(self, *w->b);
      } else if (std::find(leaves.begin(), leaves.end(), &v) == leaves.end()) {
        leaves.push_back(&v);
      }
    };
    collect(collect, x);
    collect(collect, y);
    std::int64_t words = 0;
    for (const value* v : leaves) words += v->words();
    fused z{&fused_binary<F>, stack_[stack_.size() - 2], stack_[stack_.size() - 1], ops};
    finish(2, value::lazy_of(value::float_, std::make_shared<const lazy_vector>(lazy_vector{n, words, std::move(z)})));
    return true;
  }
}

template <class T, class F>
bool machine::binary_lazily(F f) {
  using U = std::remove_cvref_t<std::invoke_result_t<F&, const T&, const T&>>;
  const value& x = at(1);
  const value& y = at(0);
  if (!x.lazy() && !y.lazy()) return false;
  if (x.which() != vec_of<T>::kind || y.which() != vec_of<T>::kind) return false;  // arg() reports it
  const std::int64_t n = x.length();
  if (y.length() < n)
    fail("vector length mismatch: argument 1 has " + std::to_string(n) + " elements, argument 2 has " +
         std::to_string(y.length()));
  room_for<U>(2, n);
  // A lazy DIST beside a stored vector (Delaunay's per-point values against
  // their triangles' or neighbours' elements): each segment's value is used
  // as it is, not written into a block first, and the result may take the
  // stored argument's storage.
  if (const expanded* e = expanded_of_stored(x); e != nullptr && y.is_stored()) {
    const T* b = y.as<array<T>>().data();
    finish(2, elementwise_result<U>(n, {0}, [&](std::span<U> out) {
             combine_expanded(*e, b, n, out.data(), [&](const T& v, const T& w) { return f(v, w); });
           }));
    return true;
  }
  if (const expanded* e = expanded_of_stored(y); e != nullptr && x.is_stored()) {
    const T* a = x.as<array<T>>().data();
    finish(2, elementwise_result<U>(n, {1}, [&](std::span<U> out) {
             combine_expanded(*e, a, n, out.data(), [&](const T& v, const T& w) { return f(w, v); });
           }));
    return true;
  }
  // A DIST beside a replication, in either order: no block copy of either.
  if (const expanded* e = expanded_of_stored(x); e != nullptr) {
    if (const replicated* r = replication_of(y); r != nullptr && r->physical->is_stored()) {
      auto out = buffer<U>::for_overwrite(n);
      combine_expanded_replicated<T>(*e, *r, n, out.data(), [&](const T& v, const T& w) { return f(v, w); });
      finish(2, wrap_value(std::move(out).freeze()));
      return true;
    }
  }
  if (const expanded* e = expanded_of_stored(y); e != nullptr) {
    if (const replicated* r = replication_of(x); r != nullptr && r->physical->is_stored()) {
      auto out = buffer<U>::for_overwrite(n);
      combine_expanded_replicated<T>(*e, *r, n, out.data(), [&](const T& v, const T& w) { return f(w, v); });
      finish(2, wrap_value(std::move(out).freeze()));
      return true;
    }
  }
  // Block by block: a lazy argument is written into a block-sized scratch
  // (never whole), a plain one read where it is.
  auto out = buffer<U>::for_overwrite(n);
  U* o = out.data();
  vseg::detail::for_each_block(n, lazy_block, [&](std::int64_t, std::int64_t lo, std::int64_t hi) {
    T xs[lazy_block];
    T ys[lazy_block];
    const T* a = xs;
    const T* b = ys;
    if (!x.is_stored()) write_range<T>(x, lo, hi, xs);
    else a = x.as<array<T>>().data() + lo;
    if (&y == &x) b = a;  // x op x reads x once
    else if (!y.is_stored()) write_range<T>(y, lo, hi, ys);
    else b = y.as<array<T>>().data() + lo;
    for (std::int64_t i = 0; i < hi - lo; ++i) o[lo + i] = f(a[i], b[i]);
  });
  finish(2, wrap_value(std::move(out).freeze()));
  return true;
}

void machine::execute(const instruction& ins) {
  using i32 = std::int32_t;
  if (opt_.sandbox && reaches_outside(ins.op))
    fail("refused in the sandbox (--sandbox): it runs a command or opens a file");
  switch (ins.op) {
    case opcode::add:
      return arith(ins, wrapping_plus{}, [](double a, double b) { return a + b; });
    case opcode::sub:
      return arith(ins, [](i32 a, i32 b) { return wrap(bits(a) - bits(b)); }, [](double a, double b) { return a - b; });
    case opcode::mul:
      return arith(ins, wrapping_times{}, [](double a, double b) { return a * b; });
    case opcode::div:
      return arith(
          ins,
          [](i32 a, i32 b) -> i32 {
            if (b == 0) throw division_by_zero();
            return b == -1 ? wrap(0u - bits(a)) : a / b;
          },
          [](double a, double b) { return a / b; });
    case opcode::mod:
      return binary<i32>([](i32 a, i32 b) -> i32 {
        if (b == 0) throw division_by_zero();
        return b == -1 ? 0 : a % b;
      });
    case opcode::lt: return compare(ins, [](auto a, auto b) { return a < b; });
    case opcode::le: return compare(ins, [](auto a, auto b) { return a <= b; });
    case opcode::gt: return compare(ins, [](auto a, auto b) { return a > b; });
    case opcode::ge: return compare(ins, [](auto a, auto b) { return a >= b; });
    case opcode::eq: return compare(ins, [](auto a, auto b) { return a == b; });
    case opcode::ne: return compare(ins, [](auto a, auto b) { return a != b; });
    // Shift counts are taken mod 32, as x86 does for a C shift by a register.
    case opcode::lshift: return binary<i32>([](i32 a, i32 b) { return wrap(bits(a) << (bits(b) & 31u)); });
    case opcode::rshift: return binary<i32>([](i32 a, i32 b) { return a >> (bits(b) & 31u); });
    case opcode::not_:
      if (ins.ty == type::int_) return unary<i32>([](i32 a) { return ~a; });
      return unary<bool>([](bool a) { return !a; });
    case opcode::and_:
      if (ins.ty == type::int_) return binary<i32>([](i32 a, i32 b) { return a & b; });
      return binary<bool>([](bool a, bool b) { return a && b; });
    case opcode::or_:
      if (ins.ty == type::int_) return binary<i32>([](i32 a, i32 b) { return a | b; });
      return binary<bool>([](bool a, bool b) { return a || b; });
    case opcode::xor_:
      if (ins.ty == type::int_) return binary<i32>([](i32 a, i32 b) { return a ^ b; });
      return binary<bool>([](bool a, bool b) { return a != b; });
    case opcode::select:
      return by_type(ins, [&](auto t) { select_typed<decltype(t)>(); });
    case opcode::rand: return rand();
    case opcode::floor: return unary<double>([](double x) { return to_int32(std::floor(x)); });
    case opcode::ceil: return unary<double>([](double x) { return to_int32(std::ceil(x)); });
    case opcode::trunc: return unary<double>([](double x) { return to_int32(x); });
    case opcode::round: return unary<double>([](double x) { return to_int32(x + 0.5); });
    case opcode::log: return unary<double>([](double x) { return std::log(x); });
    case opcode::sqrt: return unary<double>([](double x) { return std::sqrt(x); });
    case opcode::exp: return unary<double>([](double x) { return std::exp(x); });
    case opcode::sin: return unary<double>([](double x) { return std::sin(x); });
    case opcode::cos: return unary<double>([](double x) { return std::cos(x); });
    case opcode::tan: return unary<double>([](double x) { return std::tan(x); });
    case opcode::asin: return unary<double>([](double x) { return std::asin(x); });
    case opcode::acos: return unary<double>([](double x) { return std::acos(x); });
    case opcode::atan: return unary<double>([](double x) { return std::atan(x); });
    case opcode::sinh: return unary<double>([](double x) { return std::sinh(x); });
    case opcode::cosh: return unary<double>([](double x) { return std::cosh(x); });
    case opcode::tanh: return unary<double>([](double x) { return std::tanh(x); });
    case opcode::i_to_f: return unary<i32>([](i32 a) { return static_cast<double>(a); });
    case opcode::i_to_b: return unary<i32>([](i32 a) { return a != 0; });
    // A bool's byte is 0 or 1. Read as that byte: GCC 12 does not vectorise
    // a conversion from bool, and radix converts 2,000 flag vectors.
    case opcode::b_to_i:
      return unary<bool>([](const bool& a) { return static_cast<i32>(std::bit_cast<unsigned char>(a)); });

    case opcode::plus_scan:
    case opcode::plus_reduce:
    case opcode::mult_scan:
    case opcode::mult_reduce:
    case opcode::max_scan:
    case opcode::max_reduce:
    case opcode::min_scan:
    case opcode::min_reduce:
    case opcode::and_scan:
    case opcode::and_reduce:
    case opcode::or_scan:
    case opcode::or_reduce:
    case opcode::xor_scan:
    case opcode::xor_reduce: return scan_or_reduce(ins);

    case opcode::permute: return by_type(ins, [&](auto t) { permute<decltype(t)>(); });
    case opcode::dpermute: return by_type(ins, [&](auto t) { dpermute<decltype(t)>(); });
    case opcode::fpermute: return by_type(ins, [&](auto t) { flagged_permute<decltype(t)>(unset_positions::zero); });
    case opcode::dfpermute: return by_type(ins, [&](auto t) { flagged_permute<decltype(t)>(unset_positions::from_defaults); });
    case opcode::bpermute: return by_type(ins, [&](auto t) { bpermute<decltype(t)>(); });
    case opcode::bfpermute: return by_type(ins, [&](auto t) { bfpermute<decltype(t)>(); });
    case opcode::extract: return by_type(ins, [&](auto t) { extract<decltype(t)>(); });
    case opcode::replace: return by_type(ins, [&](auto t) { replace<decltype(t)>(); });
    case opcode::dist: return by_type(ins, [&](auto t) { dist<decltype(t)>(); });
    case opcode::pack: return by_type(ins, [&](auto t) { pack<decltype(t)>(); });
    case opcode::rank_up:
    case opcode::rank_down: {
      const auto order = ins.op == opcode::rank_up ? rank_order::up : rank_order::down;
      if (ins.ty == type::int_) return rank<i32>(order);
      return rank<double>(order);
    }
    case opcode::index: {  // start stride segd
      // A lazy INDEX holds its arguments, not its elements: -m counts those.
      if (index_lazily()) return;
      const int_vec& start = ints(3, 1);
      const int_vec& stride = ints(3, 2);
      const segd& s = segdes(3, 3);
      same_length(s.segments(), start.size(), "the descriptor's segments", "the starts");
      same_length(s.segments(), stride.size(), "the descriptor's segments", "the strides");
      room_for<i32>(3, s.elements());
      // One big segment: a splat with a step, written out only if some
      // operation other than PERMUTE reads it.
      if (s.segments() == 1 && s.elements() >= index_splat_min)
        return finish(3, value::sequence(start[0], stride[0], s.elements()));
      return finish(3, wrap_value(vseg::iota_s(s, start, stride)));
    }

    case opcode::length: {
      need(1);
      const value& v = at(0);
      if (v.which() != kind_of(ins.ty))
        fail("argument 1 is " + std::string(detail::kind_name(v.which())) + ", expected " +
             std::string(detail::kind_name(kind_of(ins.ty))));
      return finish(1, value{int_vec({static_cast<i32>(v.length())})});
    }
    case opcode::make_segdes: {
      if (descriptor_of_one_length()) return;
      const value& v = arg(1, 1, value::int_);
      value result{descriptor_of(v)};
      // VCODE counts elements in 32-bit INTs (LENGTH, +_REDUCE of lengths):
      // past 2^31 - 1 NESL's code wraps and fails later, after building the
      // vectors this descriptor lays out (BFS at 20,000 x 8: 10 GB first).
      if (const std::int64_t n = result.as<segd>().elements(); n > std::numeric_limits<i32>::max())
        fail("the descriptor covers " + std::to_string(n) +
             " elements, more than a VCODE INT can count (2^31 - 1): the program's vectors are too long for VCODE");
      result.remember_lengths(v.as<int_vec>());
      return finish(1, std::move(result));
    }
    case opcode::lengths: {
      if (lengths_as_splat()) return;
      const value& v = arg(1, 1, value::segdes);
      value result{lengths_of(v)};
      result.remember_descriptor(v.as<segd>());
      return finish(1, std::move(result));
    }

    case opcode::copy:
    case opcode::pop:
    case opcode::cpop: return stack_move(ins);
    case opcode::pair: {
      need(2);
      // A pair's parts are plain vectors (write_value prints them directly).
      materialize(stack_[stack_.size() - 1]);
      materialize(stack_[stack_.size() - 2]);
      auto p = std::make_shared<detail::pair_value>(detail::pair_value{at(1), at(0)});
      return finish(2, value{detail::pair_ptr(std::move(p))});
    }
    case opcode::unpair: {
      const value& v = arg(1, 1, value::pair);
      const detail::pair_ptr p = v.as<detail::pair_ptr>();
      drop(1);
      push(p->first);
      return push(p->second);
    }
    case opcode::const_: return push(constants_[static_cast<std::size_t>(ins.a)]);

    case opcode::start_timer:
      timer_ = std::chrono::steady_clock::now();
      return;
    case opcode::stop_timer: {
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - timer_;
      return push(value{float_vec({elapsed.count()})});
    }
    case opcode::srand: {
      rng_ = detail::lcg48::seeded(scalar_int(1, 1));
      drop(1);
      return push(value{bool_vec({true})});
    }

    case opcode::write:
    case opcode::read:
    case opcode::fwrite:
    case opcode::fread:
    case opcode::fopen:
    case opcode::fclose:
    case opcode::fread_char:
    case opcode::spawn: return execute_io(ins);
    case opcode::call:
    case opcode::ret:
    case opcode::if_:
    case opcode::else_:
    case opcode::exit:
      break;  // handled by run()
  }
}

}  // namespace vseg::vcode::detail
