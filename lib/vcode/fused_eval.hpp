// Evaluating a fused value (fused.hpp): its op applied to its operands'
// elements, a block at a time, each operand read where it is (stored), as
// its scalar (splat) or written into a block on the stack (lazy, through
// write_range, which evaluates a fused operand the same way).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <variant>

#include "fused.hpp"
#include "lazy.hpp"
#include "value.hpp"

namespace vseg::vcode::detail {

// The elements [lo, hi) of a FLOAT operand: a pointer into it when it is
// stored, else `scratch` filled with them. O(hi - lo) and the operand's ops.
inline const double* fused_operand(const value& v, std::int64_t lo, std::int64_t hi, double* scratch) {
  if (v.is_stored()) return v.as<array<double>>().data() + lo;
  if (const double* s = v.splat_scalar<double>()) {
    std::fill(scratch, scratch + (hi - lo), *s);
    return scratch;
  }
  write_range<double>(v, lo, hi, scratch);
  return scratch;
}

// The DIST of stored values v is, or nullptr.
inline const expanded* stored_dist(const value& v) noexcept {
  if (v.lazy() == nullptr) return nullptr;
  const auto* e = std::get_if<expanded>(&v.lazy()->form);
  return e != nullptr && e->values->is_stored() ? e : nullptr;
}

// Which operand of a binary op the DIST is.
enum class dist_side { left, right };

// out[j - lo] = f(e's value for j, y[j - lo]) for j in [lo, hi) when the
// DIST is the left operand, f(y[j - lo], e's value) when it is the right
// one: each segment's value used where it is, not filled into a block
// first. O(hi - lo + log segments).
template <class F>
void combine_dist(const F& f, const expanded& e, dist_side side, std::int64_t lo, std::int64_t hi, const double* y,
                  double* out) {
  const double* values = e.values->as<array<double>>().data();
  for (std::int64_t i = segment_of(e.shape, lo), j = lo; j < hi; ++i) {
    const std::int64_t end = std::min(hi, e.shape.end(i));
    const double x = values[i];
    if (side == dist_side::left)
      for (; j < end; ++j) out[j - lo] = f(x, y[j - lo]);
    else
      for (; j < end; ++j) out[j - lo] = f(y[j - lo], x);
  }
}

// fused::apply for a binary FLOAT op F (a stateless function object, so
// that a plain function pointer can name it): out[j - lo] = F{}(a[j], b[j]).
template <class F>
void fused_binary(const fused& z, std::int64_t lo, std::int64_t hi, double* out) {
  static_assert(std::is_default_constructible_v<F>);
  const F f{};
  for (std::int64_t c = lo; c < hi; c += fused_block) {
    const std::int64_t e = std::min(hi, c + fused_block);
    double xs[fused_block];
    double ys[fused_block];
    double* o = out + (c - lo);
    // A DIST beside anything else: its values read per segment.
    if (const expanded* d = stored_dist(*z.a); d != nullptr && stored_dist(*z.b) == nullptr) {
      combine_dist(f, *d, dist_side::left, c, e, fused_operand(*z.b, c, e, ys), o);
      continue;
    }
    if (const expanded* d = stored_dist(*z.b); d != nullptr && stored_dist(*z.a) == nullptr) {
      combine_dist(f, *d, dist_side::right, c, e, fused_operand(*z.a, c, e, xs), o);
      continue;
    }
    const double* x = fused_operand(*z.a, c, e, xs);
    const double* y = z.b == z.a ? x : fused_operand(*z.b, c, e, ys);  // x * x evaluates x once
    for (std::int64_t i = 0; i < e - c; ++i) o[i] = f(x[i], y[i]);
  }
}

}  // namespace vseg::vcode::detail
