// VCODE's segmented scans and reductions (+, *, MAX, MIN, AND, OR, XOR
// _SCAN and _REDUCE): data, then the descriptor on top. FLOAT + and * keep
// NESL's left-to-right order in every segment; a reduction over a
// replication's virtual segments reduces each physical segment once.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "fused.hpp"
#include "machine.hpp"
#include "scalar.hpp"
#include "value.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/fold.hpp"
#include "vseg/segmented/scan.hpp"

namespace vseg::vcode::detail {

namespace {

// FLOAT + and * are not associative, and NESL's interpreter (CVL's serial
// loops) folds each segment from the identity, left to right. vseg's scan_s
// and fold_s combine partial results per block and per group of
// accumulators, which rounds differently: NESL's NAS CG example drifted by
// 1e-9 relative, Barnes-Hut and a line fit of 100,000 points beyond 1e-12.
// For M = plus<double> or multiplies<double>, the ops below keep NESL's
// order inside every segment and run the segments in parallel, so FLOAT
// sums and products are bit-identical to vinterp's.
template <class M>
constexpr bool nesl_ordered = std::is_same_v<M, vseg::plus<double>> || std::is_same_v<M, vseg::multiplies<double>>;

// body(first, last) over ranges of whole segments, about the element-wise
// grain's worth of elements each, in parallel.
template <class Body>
void by_segment_ranges(const segd& s, Body&& body) {
  const std::int64_t per = s.segments() > 0 ? std::max<std::int64_t>(1, s.elements() / s.segments()) : 1;
  vseg::detail::parallel_for(s.segments(), std::max<std::int64_t>(1, tuning::elementwise_grain / per), body);
}

// Each segment's fold, from M's identity, left to right: O(n) work, O(max
// segment length) span.
template <class M>
array<double> ordered_fold_s(const segd& s, const array<double>& data, const M& m) {
  auto out = buffer<double>::for_overwrite(s.segments());
  double* o = out.data();
  const double* x = data.data();
  by_segment_ranges(s, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t j = first; j < last; ++j) {
      double acc = M::identity();
      for (std::int64_t i = s.start(j), e = s.end(j); i < e; ++i) acc = m(acc, x[i]);
      o[j] = acc;
    }
  });
  return std::move(out).freeze();
}

// Each segment's exclusive scan, from M's identity, left to right: O(n)
// work, O(max segment length) span.
template <class M>
array<double> ordered_scan_s(const segd& s, const array<double>& data, const M& m) {
  auto out = buffer<double>::for_overwrite(s.elements());
  double* o = out.data();
  const double* x = data.data();
  by_segment_ranges(s, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t j = first; j < last; ++j) {
      double acc = M::identity();
      for (std::int64_t i = s.start(j), e = s.end(j); i < e; ++i) {
        o[i] = acc;
        acc = m(acc, x[i]);
      }
    }
  });
  return std::move(out).freeze();
}

}  // namespace

template <class T, class M>
void machine::scan(const M& m) {
  const auto& data = vec<T>(2, 1);
  const segd& s = segdes(2, 2);
  covers(s, data.size(), "the data");
  if constexpr (nesl_ordered<M>) finish(2, wrap_value(ordered_scan_s(s, data, m)));
  else finish(2, wrap_value(vseg::scan_s(s, data, m)));
}

template <class T, class M>
bool machine::reduce_replicated(const M& m) {  // data segd
  need(2);
  const replicated* r = replication_of(at(1));
  if (r == nullptr || at(1).which() != vec_of<T>::kind) return false;
  const segd& s = segdes(2, 2);
  if (!same_layout(s, *r)) return false;
  // Each physical segment once, left to right (NESL's order), then one
  // result per virtual segment from its physical segment's.
  const T* phys = r->physical->as<array<T>>().data();
  const std::int64_t p = r->physical_segments();
  auto folded = buffer<T>::for_overwrite(p);
  T* f = folded.data();
  vseg::detail::parallel_for(p, lazy_segment_grain, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t q = lo; q < hi; ++q) {
      T acc = m.identity();
      for (std::int64_t j = r->pstarts[q], end = j + r->plens[q]; j < end; ++j) acc = m(acc, phys[j]);
      f[q] = acc;
    }
  });
  const std::int64_t n = r->virtual_segments();
  auto out = buffer<T>::for_overwrite(n);
  T* o = out.data();
  vseg::detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t t = lo; t < hi; ++t) o[t] = f[r->vsegid(t)];
  });
  finish(2, wrap_value(std::move(out).freeze()));
  return true;
}

template <class T, class M>
bool machine::reduce_fused(const M& m) {  // data segd
  need(2);
  const fused* z = fused_of(at(1));
  if constexpr (!std::is_same_v<T, double>) {
    return false;
  } else {
    if (z == nullptr || at(1).which() != value::float_ || at(0).which() != value::segdes) return false;
    const segd& s = at(0).as<segd>();
    covers(s, at(1).length(), "the data");
    // Each segment from M's identity, left to right (NESL's order, as
    // ordered_fold_s), its elements evaluated a block at a time.
    auto out = buffer<double>::for_overwrite(s.segments());
    double* o = out.data();
    by_segment_ranges(s, [&](std::int64_t first, std::int64_t last) {
      double block[fused_block];
      for (std::int64_t j = first; j < last; ++j) {
        double acc = m.identity();
        for (std::int64_t lo = s.start(j), end = s.end(j); lo < end; lo += fused_block) {
          const std::int64_t hi = std::min(end, lo + fused_block);
          write_fused(*z, lo, hi, block);
          for (std::int64_t i = 0; i < hi - lo; ++i) acc = m(acc, block[i]);
        }
        o[j] = acc;
      }
    });
    finish(2, wrap_value(std::move(out).freeze()));
    return true;
  }
}

template <class T, class M>
void machine::reduce(const M& m) {
  if (reduce_replicated<T>(m)) return;
  if (reduce_fused<T>(m)) return;
  const auto& data = vec<T>(2, 1);
  const segd& s = segdes(2, 2);
  covers(s, data.size(), "the data");
  if constexpr (nesl_ordered<M>) finish(2, wrap_value(ordered_fold_s(s, data, m)));
  else finish(2, wrap_value(vseg::fold_s(s, data, m)));
}

void machine::scan_or_reduce(const instruction& ins) {
  using i32 = std::int32_t;
  switch (ins.op) {
    case opcode::plus_scan:
    case opcode::plus_reduce: {
      const bool s = ins.op == opcode::plus_scan;
      if (ins.ty == type::int_ && (s ? plus_scan_of_splat() : plus_reduce_of_splat())) return;
      if (ins.ty == type::int_) return s ? scan<i32>(wrapping_plus{}) : reduce<i32>(wrapping_plus{});
      return s ? scan<double>(vseg::plus<double>{}) : reduce<double>(vseg::plus<double>{});
    }
    case opcode::mult_scan:
    case opcode::mult_reduce: {
      const bool s = ins.op == opcode::mult_scan;
      if (ins.ty == type::int_) return s ? scan<i32>(wrapping_times{}) : reduce<i32>(wrapping_times{});
      return s ? scan<double>(vseg::multiplies<double>{}) : reduce<double>(vseg::multiplies<double>{});
    }
    case opcode::max_scan:
    case opcode::max_reduce: {
      const bool s = ins.op == opcode::max_scan;
      if (ins.ty == type::int_) return s ? scan<i32>(nesl_max<i32>{}) : reduce<i32>(nesl_max<i32>{});
      return s ? scan<double>(nesl_max<double>{}) : reduce<double>(nesl_max<double>{});
    }
    case opcode::min_scan:
    case opcode::min_reduce: {
      const bool s = ins.op == opcode::min_scan;
      if (ins.ty == type::int_) return s ? scan<i32>(nesl_min<i32>{}) : reduce<i32>(nesl_min<i32>{});
      return s ? scan<double>(nesl_min<double>{}) : reduce<double>(nesl_min<double>{});
    }
    case opcode::and_scan:
    case opcode::and_reduce: {
      const bool s = ins.op == opcode::and_scan;
      if (ins.ty == type::int_) return s ? scan<i32>(vseg::bit_and<i32>{}) : reduce<i32>(vseg::bit_and<i32>{});
      return s ? scan<bool>(vseg::logical_and{}) : reduce<bool>(vseg::logical_and{});
    }
    case opcode::or_scan:
    case opcode::or_reduce: {
      const bool s = ins.op == opcode::or_scan;
      if (ins.ty == type::int_) return s ? scan<i32>(vseg::bit_or<i32>{}) : reduce<i32>(vseg::bit_or<i32>{});
      return s ? scan<bool>(vseg::logical_or{}) : reduce<bool>(vseg::logical_or{});
    }
    case opcode::xor_scan:
    case opcode::xor_reduce: {
      const bool s = ins.op == opcode::xor_scan;
      if (ins.ty == type::int_) return s ? scan<i32>(vseg::bit_xor<i32>{}) : reduce<i32>(vseg::bit_xor<i32>{});
      return s ? scan<bool>(vseg::logical_xor{}) : reduce<bool>(vseg::logical_xor{});
    }
    default: fail("not a scan or a reduction");
  }
}

}  // namespace vseg::vcode::detail
