// Lazy vectors: a stack value kept as the arguments that make it, so that
// NESL's replication of a free vector costs no copy.
//
// NESL's flattening replicates every vector free in a nested apply-to-each.
// `dist(v, r)` of a flat v of n elements is compiled to
//   DIST   v over n segments of r      (each v[e] r times: an `expanded`)
//   INDEX  starts e, strides n         (a transposition: an `affine` index,
//                                       or `transposed` when its own starts
//                                       and strides are lazy)
//   PERMUTE the first by the second    (r copies of v, one after another)
// and the same three ops, segmented, replicate each segment of a nested
// value (SpMV's inner loop: row c's copy of v, once per non-zero of row c).
// The interpreter keeps the DIST and the INDEX lazy, recognises the PERMUTE
// of one by the other as a replication, and holds its result as virtual
// segments over the one physical copy (`replicated`, as vseg::nested holds
// values: a data block, physical segments and vsegids). EXTRACT, BPERMUTE,
// the reductions, DIST and element-wise ops read it without writing it out
// (replication.cpp); any other op materialises it (machine::arg). A fourth
// form, `gathered` (gathered.hpp), is a BPERMUTE kept as its source and index;
// a fifth, `fused` (fused.hpp), a FLOAT element-wise op kept as its operands.
#pragma once

#include <algorithm>
#include <cstdint>
#include <variant>

#include <boost/smart_ptr/intrusive_ptr.hpp>

#include "fused.hpp"
#include "gathered.hpp"
#include "scalar.hpp"
#include "value.hpp"
#include "vseg/array.hpp"
#include "vseg/segd.hpp"

namespace vseg::vcode::detail {

using value_ptr = boost::intrusive_ptr<value>;

// DIST's result: segment i of `shape` is `values`' element i, repeated.
// `values` is a plain vector or a `replicated` one, never a splat.
struct expanded {
  value_ptr values;
  segd shape;
};

// INDEX's result (INT): element r of segment i of `shape` is
// starts[i] + r * strides[i], wrapping.
struct affine {
  int_vec starts;
  int_vec strides;
  segd shape;
};

// INDEX's result (INT) for NESL's TRANSPOSE-INDEX, whose starts are an
// INDEX (0, 1) over `groups` and whose strides a DIST of each group's
// length over it: segment g_c + e of `shape` (group c of n_c segments,
// g_c = groups.start(c), e < n_c) has elements e + r * n_c. Held in
// O(groups), where an `affine` holds two INTs per segment of shape
// (treeLookup's deepest level: 40.96M segments of 2, in 2,048 groups).
struct transposed {
  segd groups;  // over the segments of shape: groups.elements() == shape.segments()
  segd shape;
};

// Virtual segments over one physical copy: virtual segment t is the physical
// segment vsegid(t), i.e. the elements [pstarts[p], pstarts[p] + plens[p])
// of `physical` (a plain vector), p = vsegid(t). vstart(t) is virtual
// segment t's start in the vector this stands for (exclusive scan of their
// lengths). The virtual segments are the segments of the descriptor the
// replicating PERMUTE left beside it, so a consumer checks its descriptor
// against them (same_layout) before reading them as segments.
//
// The vsegids and vstarts are stored (one each per virtual segment), or,
// when both arrays are empty and `rule_count` > 0, given by a rule in O(1)
// words: rule_count virtual segments, vsegid(t) = (t / rule_repeat) %
// rule_cycle, and every physical segment rule_each long (vstart(t) =
// t * rule_each, rule_each > 0). BFS's f copies of an n-segment adjacency, vertex-major
// (repeat f) or copy-major (cycle n), are f*n virtual segments held so.
struct replicated {
  value_ptr physical;
  array<std::int64_t> pstarts;
  array<std::int64_t> plens;
  array<std::int64_t> vsegids;
  array<std::int64_t> vstarts;
  std::int64_t rule_count = 0;
  std::int64_t rule_repeat = 1;
  std::int64_t rule_cycle = 1;
  std::int64_t rule_each = 0;

  // Whether the vsegids and vstarts are given by the rule. O(1).
  bool by_rule() const noexcept { return rule_count > 0 && vsegids.size() == 0; }
  std::int64_t virtual_segments() const noexcept { return by_rule() ? rule_count : vsegids.size(); }
  std::int64_t physical_segments() const noexcept { return plens.size(); }
  // The physical segment of virtual segment t, and its start in the vector
  // this stands for. O(1).
  std::int64_t vsegid(std::int64_t t) const noexcept {
    return by_rule() ? (t / rule_repeat) % rule_cycle : vsegids[t];
  }
  std::int64_t vstart(std::int64_t t) const noexcept { return by_rule() ? t * rule_each : vstarts[t]; }
  // The physical start and the length of virtual segment t. O(1).
  std::int64_t start_of(std::int64_t t) const noexcept { return pstarts[vsegid(t)]; }
  std::int64_t length_of(std::int64_t t) const noexcept { return plens[vsegid(t)]; }
  // The 8-byte words the virtual segments take (the -m unit). O(1).
  std::int64_t virtual_words() const noexcept { return by_rule() ? 4 : 2 * vsegids.size(); }
  // The words held in all: the physical copy, its segments (start and
  // length each) and the virtual segments. O(1).
  std::int64_t words() const noexcept { return physical->words() + 2 * physical_segments() + virtual_words(); }
};

// An INDEX (INT) with stride 1 over `shape`, lists of `each` elements,
// whose starts are themselves an affine INDEX over groups of `per` lists:
// element q of list t (group i = t / per, r = t % per) is
// starts[i] + r * strides[i] + q, wrapping. NESL's SEGPERMUTE builds one
// over the f*n copies of BFS's adjacency (the offsets it gathers by a
// transposition, then ISEQ-L); held in O(groups) words.
struct strided_lists {
  int_vec starts;
  int_vec strides;
  std::int64_t per = 1;
  std::int64_t each = 1;
  segd shape;  // shape.segments() == starts.size() * per, every list `each` long
};

struct lazy_vector {
  using form_type = std::variant<expanded, affine, transposed, replicated, gathered, fused, strided_lists>;
  std::int64_t length = 0;  // elements it stands for
  std::int64_t words = 0;   // 8-byte words it holds (the -m unit): physical ones only
  form_type form;
};

// The deferred element-wise op a value is, or nullptr.
inline const fused* fused_of(const value& v) noexcept {
  return v.lazy() != nullptr ? std::get_if<fused>(&v.lazy()->form) : nullptr;
}

// The ops one element of v costs to read: its fused expression's, else 0.
inline std::int64_t fused_ops(const value& v) noexcept {
  const fused* z = fused_of(v);
  return z != nullptr ? z->ops : 0;
}

// The replication a value is, or nullptr.
inline const replicated* replication_of(const value& v) noexcept {
  return v.lazy() != nullptr ? std::get_if<replicated>(&v.lazy()->form) : nullptr;
}

// The segment of `s` that holds element j (0 <= j < s.elements()): the last
// non-empty segment starting at or before j. O(log segments).
inline std::int64_t segment_of(const segd& s, std::int64_t j) {
  if (const std::int64_t l = s.uniform_length(); l > 0) return j / l;
  const auto& starts = s.starts();
  const auto it = std::upper_bound(starts.begin(), starts.end(), j);
  std::int64_t i = (it - starts.begin()) - 1;
  while (s.length(i) == 0) ++i;  // empty segments share the next one's start
  return i;
}

// The virtual segment of r that holds element j, searched forward from
// virtual segment `near` when j lies at or past its start (a gallop:
// O(log d) for j d virtual segments on), else over all of them: O(log
// virtual segments). `near` is only where the search starts, so any value
// gives the same answer.
inline std::int64_t segment_of(const replicated& r, std::int64_t j, std::int64_t near = 0) {
  if (r.by_rule()) return j / r.rule_each;  // a rule's rule_each is > 0
  const std::int64_t* vs = r.vstarts.data();
  const std::int64_t m = r.vstarts.size();
  std::int64_t lo = 0, hi = m;  // the last vstart <= j is in [lo, hi)
  if (near > 0 && near < m && vs[near] <= j) {
    lo = near;
    std::int64_t step = 1;
    for (; lo + step < m && vs[lo + step] <= j; step *= 2) lo += step;
    hi = std::min(m, lo + step);  // vs[hi] > j, or hi is m
  }
  std::int64_t t = (std::upper_bound(vs + lo, vs + hi, j) - vs) - 1;
  while (r.length_of(t) == 0) ++t;
  return t;
}

// The elements [lo, hi) (lo < hi) of the replication r, of T's, written to
// out, a run of each virtual segment at a time. Returns the virtual segment
// holding element hi - 1: a `near` for the next call when the reads move
// forward (segment_of). O(hi - lo + log d).
template <class T>
std::int64_t write_replicated(const replicated& r, std::int64_t lo, std::int64_t hi, T* out, std::int64_t near = 0) {
  const T* d = r.physical->as<array<T>>().data();
  std::int64_t t = segment_of(r, lo, near);
  for (std::int64_t j = lo;; ++t) {
    const std::int64_t vstart = r.vstart(t);
    const std::int64_t end = std::min(hi, vstart + r.length_of(t));
    if (end <= j) continue;
    const T* src = d + r.start_of(t) + (j - vstart);
    std::copy(src, src + (end - j), out + (j - lo));
    j = end;
    if (j == hi) return t;
  }
}

// Element j of a plain vector, a splat or a replication of T's. O(log n).
template <class T>
T element_at(const value& v, std::int64_t j) {
  const auto& a = v.as<array<T>>();
  if (v.is_splat()) {
    if constexpr (std::is_same_v<T, std::int32_t>)
      return wrap(bits(a[0]) + static_cast<std::uint32_t>(j) * bits(v.splat_step()));
    return a[0];
  }
  if (const replicated* r = replication_of(v)) {
    const std::int64_t t = segment_of(*r, j);
    return r->physical->as<array<T>>()[r->start_of(t) + (j - r->vstart(t))];
  }
  if (v.lazy() != nullptr)
    if (const auto* g = std::get_if<gathered>(&v.lazy()->form)) {
      T x;
      write_gathered<T>(*g, j, j + 1, &x);
      return x;
    }
  if constexpr (std::is_same_v<T, double>)
    if (const fused* z = fused_of(v)) {
      double x;
      write_fused(*z, j, j + 1, &x);
      return x;
    }
  return a[j];
}

// The elements [lo, hi) of v (plain, splat or lazy) written to out.
// O(hi - lo + log n) for a plain, splat, affine, transposed or replicated
// value; an expanded one over replicated values adds O(log n) per segment
// crossed.
template <class T>
void write_range(const value& v, std::int64_t lo, std::int64_t hi, T* out) {
  if (lo >= hi) return;
  if (v.lazy() == nullptr) {
    if (v.is_stored()) {
      const T* d = v.as<array<T>>().data();
      std::copy(d + lo, d + hi, out);
      return;
    }
    for (std::int64_t j = lo; j < hi; ++j) out[j - lo] = element_at<T>(v, j);
    return;
  }
  const auto& form = v.lazy()->form;
  if (const auto* e = std::get_if<expanded>(&form)) {
    std::int64_t i = segment_of(e->shape, lo);
    if (e->values->is_stored()) {
      // Stored values read where they are: Delaunay's fused FLOAT ops read
      // DISTs over segments of a few elements, where a lookup per segment
      // (element_at) cost more than the fill.
      const T* values = e->values->as<array<T>>().data();
      for (std::int64_t j = lo; j < hi; ++i) {
        const std::int64_t end = std::min(hi, e->shape.end(i));
        const T x = values[i];
        for (; j < end; ++j) out[j - lo] = x;
      }
      return;
    }
    for (std::int64_t j = lo; j < hi; ++i) {
      const std::int64_t end = std::min(hi, e->shape.start(i) + e->shape.length(i));
      if (end <= j) continue;
      std::fill(out + (j - lo), out + (end - lo), element_at<T>(*e->values, i));
      j = end;
    }
  } else if (const auto* a = std::get_if<affine>(&form)) {
    if constexpr (std::is_same_v<T, std::int32_t>) {
      std::int64_t i = segment_of(a->shape, lo);
      for (std::int64_t j = lo; j < hi; ++i) {
        const std::int64_t start = a->shape.start(i);
        const std::int64_t end = std::min(hi, start + a->shape.length(i));
        const std::uint32_t first = bits(a->starts[i]);
        const std::uint32_t step = bits(a->strides[i]);
        for (; j < end; ++j) out[j - lo] = wrap(first + static_cast<std::uint32_t>(j - start) * step);
      }
    }
  } else if (const auto* x = std::get_if<transposed>(&form)) {
    if constexpr (std::is_same_v<T, std::int32_t>) {
      std::int64_t i = segment_of(x->shape, lo);
      std::int64_t c = segment_of(x->groups, i);
      for (std::int64_t j = lo; j < hi; ++i) {
        while (x->groups.end(c) <= i) ++c;
        const std::int64_t start = x->shape.start(i);
        const std::int64_t end = std::min(hi, start + x->shape.length(i));
        const std::uint32_t first = static_cast<std::uint32_t>(i - x->groups.start(c));
        const std::uint32_t step = static_cast<std::uint32_t>(x->groups.length(c));
        for (; j < end; ++j) out[j - lo] = wrap(first + static_cast<std::uint32_t>(j - start) * step);
      }
    }
  } else if (const auto* w = std::get_if<strided_lists>(&form)) {
    if constexpr (std::is_same_v<T, std::int32_t>) {
      for (std::int64_t j = lo; j < hi; ++j) {
        const std::int64_t t = j / w->each, i = t / w->per;
        const std::uint32_t start = bits(w->starts[i]) + static_cast<std::uint32_t>(t % w->per) * bits(w->strides[i]);
        out[j - lo] = wrap(start + static_cast<std::uint32_t>(j % w->each));
      }
    }
  } else if (const auto* g = std::get_if<gathered>(&form)) {
    write_gathered<T>(*g, lo, hi, out);
  } else if (const auto* z = std::get_if<fused>(&form)) {
    if constexpr (std::is_same_v<T, double>) write_fused(*z, lo, hi, out);
  } else {
    write_replicated<T>(std::get<replicated>(form), lo, hi, out);
  }
}

}  // namespace vseg::vcode::detail
