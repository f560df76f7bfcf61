// A deferred element-wise op (`fused`): a FLOAT op's result kept as the op
// and its two operands, evaluated block by block when read.
//
// NESL's all-pairs n-body sums `m * d / (1.0 + d * d)` with d = x - b over
// n^2 pairs, x and m replications of the bodies and b a DIST of one body
// per segment: written out, each of the five ops is a fresh n^2 FLOAT
// vector that only the next op or the final +_REDUCE reads. Kept as
// (op, operands), none is written: +_REDUCE (reduce_ops.cpp) and the
// element-wise ops read the expression a block at a time (lazy.hpp's
// write_range), each element computed by the same ops in the same order as
// the written-out vectors would have been, so the sums stay bit-identical.
// Any other reader writes it out once (machine::materialized keeps the
// first writing out in `written`, as gathered.hpp does).
//
// A value is fused only when an operand is itself lazy (a replication, a
// DIST, or another fused value), the result has at least lazy_min elements,
// and the expression stays small: `ops` counts the ops one element costs
// when read, a shared sub-expression once per read (but an op of a value
// with itself, x * x, reads it once), and is bounded by
// fused_ops_max. So no reader recomputes more than fused_ops_max ops per
// element however the program shares its values: the bound is what keeps
// sharing (d read three times above: 7 ops) from compounding.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>

#include <boost/smart_ptr/intrusive_ptr.hpp>

#include "value.hpp"

namespace vseg::vcode::detail {

struct fused {
  // Writes the elements [lo, hi) of the op's result to out (from the
  // operands a, b, read in blocks). Set by fused_binary<F> (fused_eval.hpp).
  using apply_fn = void (*)(const fused&, std::int64_t lo, std::int64_t hi, double* out);
  apply_fn apply = nullptr;
  boost::intrusive_ptr<value> a;  // FLOAT operands: stored, splat or lazy, never written in place
  boost::intrusive_ptr<value> b;
  std::int64_t ops = 1;  // ops per element read, shared sub-expressions counted per read
  // The elements once written out, shared by every entry holding this
  // value; empty until then (a memo of a pure function of the fields above).
  std::shared_ptr<std::optional<value>> written = std::make_shared<std::optional<value>>();

  // The written-out vector, or nullptr before the first writing out.
  const array<double>* written_out() const noexcept {
    return written->has_value() ? &(*written)->template as<array<double>>() : nullptr;
  }
};

// The largest expression a fused value may hold, in ops per element.
inline constexpr std::int64_t fused_ops_max = 8;
// Elements per block when a fused value is evaluated: two operand blocks
// per level of the expression on the stack (8 KiB a level).
inline constexpr std::int64_t fused_block = 512;

// The elements [lo, hi) of z's result to out. O((hi - lo) * z.ops).
inline void write_fused(const fused& z, std::int64_t lo, std::int64_t hi, double* out) {
  if (const array<double>* w = z.written_out()) {
    std::copy(w->data() + lo, w->data() + hi, out);
    return;
  }
  z.apply(z, lo, hi, out);
}

}  // namespace vseg::vcode::detail
