// Evaluating a fused value (fused.hpp): its op applied to its operands'
// elements, a block at a time, each operand read where it is (stored), as
// its scalar (splat) or written into a block on the stack (lazy, through
// write_range, which evaluates a fused operand the same way).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

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
    const double* x = fused_operand(*z.a, c, e, xs);
    const double* y = fused_operand(*z.b, c, e, ys);
    double* o = out + (c - lo);
    for (std::int64_t i = 0; i < e - c; ++i) o[i] = f(x[i], y[i]);
  }
}

}  // namespace vseg::vcode::detail
