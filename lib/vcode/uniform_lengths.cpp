// NESL's SEGPERMUTE of the copies of a nested vector, answered without
// writing the copies, their lengths or their offsets: the reorder of a
// replication's virtual segments (its vsegids reordered, or a rule again),
// and the lengths of a uniform descriptor kept as a splat with the ops
// SEGPERMUTE applies to them.
//
// NESL reorders the f copies of a nested vector of n segments of k (BFS's
// adjacency, free in an apply-to-each over a frontier of f vertices) by
// SEGPERMUTE: LENGTHS of the f*n-segment descriptor, a PERMUTE of those
// lengths by a transposing INDEX, +_SCAN of them, a BPERMUTE of the
// offsets by the same index, an INDEX of stride 1 over the lists from
// those offsets (ISEQ-L), the flat PERMUTE of the elements by it, and a
// MAKE_SEGDES of the permuted lengths; then it scans, sums and EXTRACTs the
// lengths per copy. The descriptor is uniform, so its lengths are a splat;
// PERMUTE of a splat is the splat, +_SCAN a sequence or a lazy INDEX,
// +_REDUCE k per element (wrapping, as VCODE's INTs do), EXTRACT the value;
// the offsets are a lazy INDEX over the n lists, ISEQ-L `strided_lists`,
// and the flat PERMUTE the copy-major rule: none writes f*n of anything.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "claimed.hpp"
#include "lazy.hpp"
#include "machine.hpp"
#include "scalar.hpp"
#include "transposition.hpp"
#include "value.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/flat/tabulate.hpp"

namespace vseg::vcode::detail {

namespace {

// A lazy value of kind k standing for `length` elements.
value lazy_value(value::kind k, std::int64_t length, std::int64_t words, lazy_vector::form_type form) {
  return value::lazy_of(k, std::make_shared<const lazy_vector>(lazy_vector{length, words, std::move(form)}));
}

// r's physical copy read copy-major: v virtual segments, each len long,
// vsegid(t) = t % cycle, held by rule (O(1) words).
replicated copy_major(const replicated& r, std::int64_t v, std::int64_t cycle, std::int64_t len) {
  replicated out{r.physical, r.pstarts, r.plens, {}, {}};
  out.rule_count = v;
  out.rule_repeat = 1;
  out.rule_cycle = cycle;
  out.rule_each = len;
  return out;
}

// SEGPERMUTE of a replication held by a rule (every segment rule_each
// long, vsegid(t) = t / repeat, V = repeat * cycle: BFS's vertex-major
// copies, `repeat` of each of `cycle` lists) moving virtual segment t to
// slot starts[t] / rule_each: when that is the transposition into
// copy-major order, slot (t % repeat) * cycle + t / repeat, the result is
// the rule with repeat 1 (vsegid(u) = u % cycle), returned without a
// vsegid written. The transposition is a permutation by construction, so
// the check is one comparison per start, in parallel, with no division and
// no mark (BFS: 9.56M starts). Any other order: std::nullopt.
std::optional<replicated> reordered_by_rule(const replicated& r, const int_vec& starts, std::int64_t n) {
  const std::int64_t v = r.virtual_segments();
  const std::int64_t len = r.rule_each;
  const std::int64_t cycle = r.rule_cycle;
  const std::int64_t repeat = r.rule_repeat;
  if (repeat <= 0 || cycle <= 0 || v / repeat != cycle || v % repeat != 0 || len * v != n) return std::nullopt;
  std::atomic<bool> ok{true};
  vseg::detail::parallel_for(v, [&](std::int64_t lo, std::int64_t hi) {
    std::int64_t copy = lo % repeat;  // t % repeat
    std::int64_t list = lo / repeat;  // t / repeat
    for (std::int64_t t = lo; t < hi; ++t) {
      if (starts[t] != (copy * cycle + list) * len) return ok.store(false, std::memory_order_relaxed);
      if (++copy == repeat) {
        copy = 0;
        ++list;
      }
    }
  });
  if (!ok.load()) return std::nullopt;
  return copy_major(r, v, cycle, len);
}

// The same reorder with its index kept as strided_lists (SEGPERMUTE's
// offsets never written): list t = i * per + r starts at starts[i] + r *
// strides[i], so it is the copy-major transposition when per = repeat,
// there are `cycle` groups, starts[i] = i * each and strides[i] = cycle *
// each, each being the lists' length. O(groups); std::nullopt otherwise.
std::optional<replicated> transposed_by_lists(const replicated& r, const strided_lists& w) {
  const std::int64_t v = r.virtual_segments();
  const std::int64_t len = r.rule_each, cycle = r.rule_cycle, repeat = r.rule_repeat;
  if (!r.by_rule() || w.each != len || w.per != repeat || w.starts.size() != cycle || repeat * cycle != v ||
      w.shape.segments() != v)
    return std::nullopt;
  for (std::int64_t i = 0; i < cycle; ++i)
    if (w.starts[i] != i * len || w.strides[i] != cycle * len) return std::nullopt;
  return copy_major(r, v, cycle, len);
}

}  // namespace

bool machine::lengths_as_splat() {  // segd
  need(1);
  const value& v = at(0);
  if (v.which() != value::segdes) return false;
  const segd& s = v.as<segd>();
  const std::int64_t k = s.uniform_length();
  // Small descriptors keep their stored lengths (and the cached pair).
  if (k < 0 || s.segments() < lazy_min) return false;
  return finish(1, value::splat(static_cast<std::int32_t>(k), s.segments())), true;
}

bool machine::permute_splat() {  // data index segd
  need(3);
  const value& data = at(2);
  if (data.which() != value::int_ || data.splat_scalar<std::int32_t>() == nullptr) return false;
  if (at(1).which() != value::int_ || at(0).which() != value::segdes) return false;
  // A transposition over one segment: a permutation by construction.
  if (const segd* shape = uniform_transposition(at(1));
      shape != nullptr && at(0).as<segd>().segments() == 1 && shape->elements() == data.length() &&
      at(0).as<segd>().elements() == data.length())
    return finish(3, slot(stack_[stack_.size() - 3])), true;
  const int_vec& index = ints(3, 2);
  const segd& s = segdes(3, 3);
  if (index.size() != data.length() || s.elements() != data.length()) return false;  // errors: the plain path
  // Each segment's indices must be a permutation of it: checked in n reads
  // and n bits; anything else is left to the plain PERMUTE, which reports it.
  value& index_value = *stack_[stack_.size() - 2];
  const bool one = s.segments() == 1;
  if (one && !index_value.known_permutation()) {  // in parallel (BFS: 9.56M lengths)
    const std::int64_t n = index.size();
    claimed_slots slots(n);
    std::atomic<bool> ok{true};
    vseg::detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) {
        const std::int64_t x = index[i];
        if (x < 0 || x >= n || !slots.claim(x)) return ok.store(false, std::memory_order_relaxed);
      }
    });
    if (!ok.load()) return false;
    index_value.mark_permutation();
  } else if (!one) {
    std::vector<bool> seen(static_cast<std::size_t>(index.size()), false);
    for (std::int64_t j = 0; j < s.segments(); ++j) {
      const std::int64_t start = s.start(j), len = s.length(j);
      for (std::int64_t i = start; i < start + len; ++i) {
        const std::int64_t x = index[i];
        if (x < 0 || x >= len || seen[static_cast<std::size_t>(start + x)]) return false;
        seen[static_cast<std::size_t>(start + x)] = true;
      }
    }
  }
  return finish(3, slot(stack_[stack_.size() - 3])), true;
}

namespace {

// The scalar of an INT splat of one value over a uniform descriptor (data
// below, `top` the descriptor, covering it), or nullptr.
const std::int32_t* splat_over_uniform(const value& data, const value& top) {
  const std::int32_t* x = data.which() == value::int_ ? data.splat_scalar<std::int32_t>() : nullptr;
  if (x == nullptr || top.which() != value::segdes) return nullptr;
  const segd& s = top.as<segd>();
  return s.uniform_length() >= 0 && s.elements() == data.length() ? x : nullptr;
}

}  // namespace

bool machine::plus_scan_of_splat() {  // data segd
  need(2);
  const std::int32_t* x = splat_over_uniform(at(1), at(0));
  const std::int64_t n = at(1).length();
  if (x == nullptr || n < lazy_min) return false;
  const segd& s = at(0).as<segd>();
  if (s.segments() == 1) return finish(2, value::sequence(0, *x, n)), true;
  // Each segment 0, x, 2x, ...: an INDEX with starts 0 and strides x, lazy
  // in O(segments) (BFS scans the f*n lengths over f segments of n).
  if (n < lazy_ratio * s.segments()) return false;
  const std::int64_t words = words_for<std::int32_t>(2 * s.segments()) + descriptor_words(s);
  affine a{vseg::fill(s.segments(), std::int32_t{0}), vseg::fill(s.segments(), *x), s};
  auto l = std::make_shared<const lazy_vector>(lazy_vector{n, words, std::move(a)});
  return finish(2, value::lazy_of(value::int_, std::move(l))), true;
}

bool machine::plus_reduce_of_splat() {  // data segd
  need(2);
  const std::int32_t* x = splat_over_uniform(at(1), at(0));
  if (x == nullptr) return false;
  const segd& s = at(0).as<segd>();
  const auto len = static_cast<std::uint32_t>(s.uniform_length());
  const std::int32_t sum = wrap(bits(*x) * len);
  if (s.segments() == 1) return finish(2, value{int_vec{sum}}), true;
  // One sum per segment, all equal: a splat when large (as DIST makes them).
  if (s.segments() >= dist_splat_min) return finish(2, value::splat(sum, s.segments())), true;
  return finish(2, value{vseg::fill(s.segments(), sum)}), true;
}

bool machine::bpermute_sequence() {  // data index src_segd dst_segd
  need(4);
  const value& data = at(3);
  if (data.which() != value::int_ || !data.is_splat() || at(2).which() != value::int_) return false;
  if (at(1).which() != value::segdes || at(0).which() != value::segdes) return false;
  const segd& src = at(1).as<segd>();
  const segd& dst = at(0).as<segd>();
  const std::int64_t n = data.length();
  if (src.segments() != 1 || dst.segments() != 1 || src.elements() != n || n < lazy_min) return false;
  const std::uint32_t first = bits(data.as<int_vec>()[0]);
  const std::uint32_t step = bits(data.splat_step());
  // By a transposition of [0, n) over m segments of L: element j = i L + r
  // is first + (i + r m) step, an INDEX over the same segments with starts
  // first + i step and strides m step, kept lazy in O(m) (`affine`).
  if (const segd* shape = uniform_transposition(at(2)); shape != nullptr && shape->elements() == n && dst.elements() == n) {
    const std::int64_t m = shape->segments();
    auto starts = buffer<std::int32_t>::for_overwrite(m);
    auto strides = buffer<std::int32_t>::for_overwrite(m);
    for (std::int64_t i = 0; i < m; ++i) {
      starts.data()[i] = wrap(first + static_cast<std::uint32_t>(i) * step);
      strides.data()[i] = wrap(static_cast<std::uint32_t>(m) * step);
    }
    const std::int64_t words = words_for<std::int32_t>(2 * m) + descriptor_words(*shape);
    affine a{std::move(starts).freeze(), std::move(strides).freeze(), *shape};
    auto l = std::make_shared<const lazy_vector>(lazy_vector{n, words, std::move(a)});
    return finish(4, value::lazy_of(value::int_, std::move(l))), true;
  }
  const int_vec& index = ints(4, 2);
  if (dst.elements() != index.size()) return false;  // the plain path reports it
  auto out = buffer<std::int32_t>::for_overwrite(index.size());
  std::int32_t* o = out.data();
  std::atomic<bool> ok{true};
  vseg::detail::parallel_for(index.size(), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t j = lo; j < hi; ++j) {
      const std::int64_t i = index[j];
      if (i < 0 || i >= n) return ok.store(false, std::memory_order_relaxed);
      o[j] = wrap(first + static_cast<std::uint32_t>(i) * step);
    }
  });
  if (!ok.load()) return false;  // an index out of range: the plain path reports it
  return finish(4, wrap_value(std::move(out).freeze())), true;
}

bool machine::extract_affine() {  // data index segd
  need(3);
  const value& data = at(2);
  const auto* a = data.lazy() != nullptr ? std::get_if<affine>(&data.lazy()->form) : nullptr;
  // Or a splat of one value (the lengths BFS extracts from beside their scan).
  const std::int32_t* x = data.which() == value::int_ ? data.splat_scalar<std::int32_t>() : nullptr;
  if ((a == nullptr && x == nullptr) || at(1).which() != value::int_ || at(0).which() != value::segdes) return false;
  const segd& s = at(0).as<segd>();
  const std::int64_t m = s.segments();
  if (s.elements() != data.length() || at(1).length() != m || m < dist_splat_min) return false;
  if (a != nullptr && a->shape.segments() != m) return false;
  if (a != nullptr && !(s.uniform_length() >= 0 && s.uniform_length() == a->shape.uniform_length()))
    for (std::int64_t t = 0; t < m; ++t)
      if (s.length(t) != a->shape.length(t)) return false;
  const std::int32_t* k = at(1).splat_scalar<std::int32_t>();
  const int_vec* index = k != nullptr ? nullptr : &ints(3, 2);
  auto out = buffer<std::int32_t>::for_overwrite(m);
  std::int32_t* o = out.data();
  std::atomic<bool> ok{true};
  vseg::detail::parallel_for(m, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t t = lo; t < hi; ++t) {
      const std::int64_t i = k != nullptr ? *k : (*index)[t];
      if (i < 0 || i >= s.length(t)) return ok.store(false, std::memory_order_relaxed);
      o[t] = x != nullptr ? *x : wrap(bits(a->starts[t]) + static_cast<std::uint32_t>(i) * bits(a->strides[t]));
    }
  });
  if (!ok.load()) return false;  // an index out of its segment: the plain path reports it
  return finish(3, wrap_value(std::move(out).freeze())), true;
}

// NESL permutes whole segments of a nested value (SEGPERMUTE: dist of a
// nested vector reorders its copies this way) with one flat PERMUTE: the
// index is an INDEX over the segments, start o_t and stride 1 for segment
// t, and the o_t place the segments end to end. On a replication whose
// virtual segments are those segments, that moves no element: the result
// is the same physical copy with the vsegids in the order of the o_t.
// O(V) for V virtual segments; anything else is left to PERMUTE.
template <class T>
bool machine::permute_replicated_segments() {  // data index segd
  need(3);
  const value& data = at(2);
  const replicated* r = replication_of(data);
  if (r == nullptr || data.which() != vec_of<T>::kind || at(1).lazy() == nullptr || at(0).which() != value::segdes)
    return false;
  const auto* a = std::get_if<affine>(&at(1).lazy()->form);
  const segd& s = at(0).as<segd>();
  const std::int64_t n = data.length();
  if (const auto* w = std::get_if<strided_lists>(&at(1).lazy()->form)) {
    if (s.segments() != 1 || s.elements() != n) return false;
    if (auto out = transposed_by_lists(*r, *w)) {
      const std::int64_t words = out->words();
      return finish(3, lazy_value(vec_of<T>::kind, n, words, *std::move(out))), true;
    }
    return false;
  }
  if (a == nullptr || s.segments() != 1 || s.elements() != n || !same_layout(a->shape, *r)) return false;
  const std::int64_t v = r->virtual_segments();
  for (std::int64_t t = 0; t < v; ++t)
    if (a->strides[t] != 1) return false;
  // The segments must all have one length L > 0 (BFS: k neighbours each)
  // and their new starts must tile [0, n): segment t goes to slot start / L,
  // in O(V); a start off the grid or a slot taken twice is not a tiling.
  // Other lengths are left to PERMUTE (not met in NESL's code studied).
  const std::int64_t len0 = v > 0 ? r->length_of(0) : 0;
  if (len0 <= 0 || len0 * v != n) return false;
  if (r->by_rule()) {
    if (r->rule_each != len0) return false;
    if (auto out = reordered_by_rule(*r, a->starts, n)) {
      const std::int64_t words = out->words();
      return finish(3, lazy_value(vec_of<T>::kind, n, words, *std::move(out))), true;
    }
  }
  for (std::int64_t t = 0; t < v; ++t)
    if (r->length_of(t) != len0) return false;
  std::vector<std::int64_t> order(static_cast<std::size_t>(v), -1);
  for (std::int64_t t = 0; t < v; ++t) {
    const std::int64_t st = a->starts[t];
    if (st < 0 || st >= n || st % len0 != 0 || order[static_cast<std::size_t>(st / len0)] >= 0) return false;
    order[static_cast<std::size_t>(st / len0)] = t;
  }
  std::int64_t pos = 0;
  std::vector<std::int64_t> vsegids(static_cast<std::size_t>(v)), vstarts(static_cast<std::size_t>(v));
  for (std::int64_t u = 0; u < v; ++u) {
    const std::int64_t t = order[static_cast<std::size_t>(u)];
    vsegids[static_cast<std::size_t>(u)] = r->vsegid(t);
    vstarts[static_cast<std::size_t>(u)] = pos;
    pos += len0;
  }
  replicated out{r->physical, r->pstarts, r->plens, array<std::int64_t>(std::move(vsegids)), array<std::int64_t>(std::move(vstarts))};
  const std::int64_t words = out.words();
  return finish(3, lazy_value(vec_of<T>::kind, n, words, std::move(out))), true;
}

template bool machine::permute_replicated_segments<std::int32_t>();
template bool machine::permute_replicated_segments<bool>();
template bool machine::permute_replicated_segments<double>();

}  // namespace vseg::vcode::detail
