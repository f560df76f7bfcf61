// Replication on virtual segments (lazy.hpp): DIST and INDEX kept lazy, the
// PERMUTE that turns them into copies of a vector recognised and held as
// virtual segments over one physical copy, and the operations that read such
// a value from that copy: EXTRACT, BPERMUTE and DIST. The PERMUTE that
// moves its segments whole (SEGPERMUTE) is in uniform_lengths.cpp, the
// reductions and the element-wise ops with a lazy argument in execute.cpp
// (they are templates over the operation). Instantiated at the end for INT, BOOL and
// FLOAT.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "lazy.hpp"
#include "machine.hpp"
#include "runs.hpp"
#include "scalar.hpp"
#include "value.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/flat/scan.hpp"
#include "vseg/segd.hpp"
#include "vseg/tuning.hpp"
#include "vseg/segmented/iota.hpp"
#include "vseg/segmented/replicate.hpp"

namespace vseg::vcode::detail {

namespace {

// A lazy value of kind k standing for `length` elements.
value make_lazy(value::kind k, std::int64_t length, std::int64_t words, lazy_vector::form_type form) {
  return value::lazy_of(k, std::make_shared<const lazy_vector>(lazy_vector{length, words, std::move(form)}));
}

// Whether two descriptors have the same lengths. O(segments), O(1) when
// both are uniform or share their lengths.
bool same_lengths(const segd& a, const segd& b) {
  if (a.segments() != b.segments() || a.elements() != b.elements()) return false;
  if (a.uniform_length() >= 0 && a.uniform_length() == b.uniform_length()) return true;
  const auto& la = a.lengths();
  const auto& lb = b.lengths();
  if (la.data() == lb.data()) return true;
  return std::equal(la.begin(), la.end(), lb.begin());
}

// The rule (repeat, cycle) giving the vsegids of a replication whose
// segment c of s2 is copies[c] copies of physical group c (or, with
// `inner`, of inner's virtual segment c): vsegid(t) = (t / repeat) % cycle.
// It exists when every copies[c] is one K > 0, every physical segment has
// one length > 0, and inner (if any) is a rule itself: then t's group is
// t / K and its vsegid (t / K / inner's repeat) % inner's cycle. O(groups
// + physical segments); std::nullopt otherwise.
std::optional<std::pair<std::int64_t, std::int64_t>> copies_rule(const replicated& r,
                                                                 std::span<const std::int64_t> copies,
                                                                 const replicated* inner) {
  if (copies.empty() || r.plens.size() == 0 || r.plens[0] <= 0) return std::nullopt;
  const std::int64_t k = copies[0];
  if (k <= 0 || !std::all_of(copies.begin(), copies.end(), [k](std::int64_t c) { return c == k; })) return std::nullopt;
  if (!std::all_of(r.plens.begin(), r.plens.end(), [&](std::int64_t l) { return l == r.plens[0]; })) return std::nullopt;
  const auto groups = static_cast<std::int64_t>(copies.size());
  if (inner == nullptr) return std::pair{k, groups};
  if (!inner->by_rule()) return std::nullopt;
  return std::pair{k * inner->rule_repeat, inner->rule_cycle};
}

}  // namespace

std::int64_t lazy_length(const lazy_vector& l) noexcept { return l.length; }
std::int64_t lazy_words(const lazy_vector& l) noexcept { return l.words; }

template <class T>
array<T> machine::materialized(const value& v) {
  // A DIST of stored values and an INDEX are what replicate_s and iota_s
  // make: their kernels split work by segments and elements both, where
  // write_range pays per segment (Barnes-Hut writes out INDEXes of 98M
  // elements in segments of ~6 for BPERMUTE and PERMUTE; 6% of its CPU).
  const auto& form = v.lazy()->form;
  if (const auto* g = std::get_if<gathered>(&form)) return written_out<T>(*g);
  if constexpr (std::is_same_v<T, double>)
    if (const auto* z = std::get_if<fused>(&form)) {  // written once, kept for every entry holding it
      if (const array<double>* w = z->written_out()) return *w;
      auto out = buffer<double>::for_overwrite(v.length());
      double* o = out.data();
      vseg::detail::for_each_block(v.length(), lazy_block, [&](std::int64_t, std::int64_t lo, std::int64_t hi) {
        write_fused(*z, lo, hi, o + lo);
      });
      array<double> result = std::move(out).freeze();
      *z->written = value{result};
      return result;
    }
  if (const auto* e = std::get_if<expanded>(&form); e != nullptr && e->values->is_stored())
    return vseg::replicate_s(e->shape, e->values->as<array<T>>());
  if constexpr (std::is_same_v<T, std::int32_t>)
    if (const auto* a = std::get_if<affine>(&form)) return vseg::iota_s(a->shape, a->starts, a->strides);
  const std::int64_t n = v.length();
  auto out = buffer<T>::for_overwrite(n);
  T* o = out.data();
  vseg::detail::for_each_block(n, lazy_block, [&](std::int64_t, std::int64_t lo, std::int64_t hi) {
    write_range<T>(v, lo, hi, o + lo);
  });
  return std::move(out).freeze();
}

bool machine::same_layout(const segd& s, const replicated& r) {
  if (s.segments() != r.virtual_segments()) return false;
  if (r.by_rule() && s.uniform_length() >= 0) return s.uniform_length() == r.rule_each;
  for (std::int64_t t = 0; t < s.segments(); ++t)
    if (s.length(t) != r.length_of(t)) return false;
  return true;
}

template <class T>
bool machine::dist_lazily() {  // values segd
  need(2);
  const slot& values = stack_[stack_.size() - 2];
  if (values->which() != vec_of<T>::kind) return false;
  // Over segments of one element each, DIST is its values, in whatever form
  // they are: the entry is shared, nothing is written (batcher DISTs over
  // 2^18 one-element segments 464 times).
  if (at(0).which() == value::segdes && at(0).as<segd>().uniform_length() == 1) {
    same_length(at(0).as<segd>().segments(), values->length(), "the descriptor's segments", "the values");
    return finish(2, slot(values)), true;
  }
  if (values->is_splat()) return false;
  const bool replication = replication_of(*values) != nullptr;
  if (values->lazy() != nullptr && !replication) return false;
  const segd& s = segdes(2, 2);
  same_length(s.segments(), values->length(), "the descriptor's segments", "the values");
  // Worth it when each value is written many times (the replicating DISTs
  // write each r times); a replication is never written out here.
  // One value over one segment is a splat (dist()), cheaper still.
  if (!replication && (s.segments() < 2 || s.elements() < lazy_min || s.elements() < lazy_ratio * s.segments())) return false;
  const std::int64_t words = values->words() + descriptor_words(s);
  return finish(2, make_lazy(vec_of<T>::kind, s.elements(), words, expanded{values, s})), true;
}

namespace {

// The groups of NESL's TRANSPOSE-INDEX when INDEX(starts, strides, s) is
// one: starts an INDEX (0, 1) over some groups (a lazy `affine`, or a
// sequence 0, 1, ... for one group), strides a DIST of each group's length
// over the same groups (a lazy `expanded` of stored values, or a splat for
// one group), and s one segment per element of the groups. O(groups);
// std::nullopt for anything else (INDEX then reads them as vectors).
std::optional<segd> transposition_groups(const value& starts, const value& strides, const segd& s) {
  if (starts.which() != value::int_ || strides.which() != value::int_) return std::nullopt;
  if (starts.is_splat() && strides.is_splat()) {  // one group
    const std::int64_t n = starts.length();
    const std::int32_t* each = strides.splat_scalar<std::int32_t>();
    if (starts.splat_step() != 1 || starts.as<int_vec>()[0] != 0 || each == nullptr || *each != n ||
        strides.length() != n || s.segments() != n)
      return std::nullopt;
    return segd::single(n);
  }
  const auto* a = starts.lazy() != nullptr ? std::get_if<affine>(&starts.lazy()->form) : nullptr;
  const auto* e = strides.lazy() != nullptr ? std::get_if<expanded>(&strides.lazy()->form) : nullptr;
  if (a == nullptr || e == nullptr || !e->values->is_stored() || !same_lengths(a->shape, e->shape) ||
      a->shape.elements() != s.segments())
    return std::nullopt;
  const segd& groups = a->shape;
  const int_vec& lengths = e->values->as<int_vec>();
  for (std::int64_t c = 0; c < groups.segments(); ++c)
    if (a->starts[c] != 0 || a->strides[c] != 1 || lengths[c] != groups.length(c)) return std::nullopt;
  return groups;
}

}  // namespace

bool machine::index_lazily() {  // start stride segd
  need(3);
  // Over segments of one element each, INDEX is its starts (start + 0 *
  // stride), in whatever form they are: the entry is shared, neither it nor
  // the strides are written or read (batcher: 495 INDEXes over 2^18
  // one-element segments, most of lazy starts and strides).
  if (at(2).which() == value::int_ && at(1).which() == value::int_ && at(0).which() == value::segdes &&
      at(0).as<segd>().uniform_length() == 1) {
    const std::int64_t n = at(0).as<segd>().segments();
    same_length(n, at(2).length(), "the descriptor's segments", "the starts");
    same_length(n, at(1).length(), "the descriptor's segments", "the strides");
    return finish(3, slot(stack_[stack_.size() - 3])), true;
  }
  // SEGPERMUTE's ISEQ-L: stride 1 over lists of one length, the starts a
  // lazy INDEX over groups of one length (the offsets it gathered by a
  // transposition): kept in O(groups) (strided_lists).
  if (at(2).which() == value::int_ && at(2).lazy() != nullptr && at(0).which() == value::segdes) {
    const auto* a = std::get_if<affine>(&at(2).lazy()->form);
    const std::int32_t* stride = at(1).which() == value::int_ ? at(1).splat_scalar<std::int32_t>() : nullptr;
    const segd& s = at(0).as<segd>();
    if (a != nullptr && stride != nullptr && *stride == 1 && at(1).length() == s.segments() &&
        a->shape.uniform_length() > 0 && a->shape.elements() == s.segments() && s.uniform_length() > 0 &&
        s.elements() >= lazy_min && s.elements() >= lazy_ratio * s.segments()) {
      const std::int64_t words = words_for<std::int32_t>(2 * a->starts.size()) + descriptor_words(s);
      strided_lists w{a->starts, a->strides, a->shape.uniform_length(), s.uniform_length(), s};
      return finish(3, make_lazy(value::int_, s.elements(), words, std::move(w))), true;
    }
  }
  // NESL's TRANSPOSE-INDEX with lazy starts and strides: kept in O(groups)
  // (the checks below would write both out, one INT per segment).
  if (at(0).which() == value::segdes) {
    const segd& s = at(0).as<segd>();
    if (auto groups = transposition_groups(at(2), at(1), s);
        groups && s.segments() >= 2 && s.elements() >= lazy_min && s.elements() >= lazy_ratio * s.segments()) {
      const std::int64_t words = descriptor_words(*groups) + descriptor_words(s);
      return finish(3, make_lazy(value::int_, s.elements(), words, transposed{*std::move(groups), s})), true;
    }
  }
  // The checks in the order of INDEX's own (execute.cpp), so a bad program
  // gets the same error whichever path takes it.
  const int_vec& start = ints(3, 1);
  const int_vec& stride = ints(3, 2);
  const segd& s = segdes(3, 3);
  same_length(s.segments(), start.size(), "the descriptor's segments", "the starts");
  same_length(s.segments(), stride.size(), "the descriptor's segments", "the strides");
  if (s.segments() < 2 || s.elements() < lazy_min || s.elements() < lazy_ratio * s.segments()) return false;
  const std::int64_t words = words_for<std::int32_t>(2 * s.segments()) + descriptor_words(s);
  return finish(3, make_lazy(value::int_, s.elements(), words, affine{start, stride, s})), true;
}

// MAKE_SEGDES of lengths that are one value repeated: a splat of step 0,
// or a lazy DIST whose stored values are all equal (batcher builds 328
// descriptors of 2^18 segments from such DISTs). The descriptor is uniform
// and built without writing the lengths: O(1) for a splat, O(values) for a
// DIST. Any other argument, a negative length or a total past VCODE's INTs
// is left to the plain MAKE_SEGDES, which reports the errors.
bool machine::descriptor_of_one_length() {  // lengths
  need(1);
  const value& v = at(0);
  if (v.which() != value::int_ || v.length() == 0) return false;
  std::int32_t each = 0;
  if (v.is_splat()) {
    if (v.splat_step() != 0) return false;
    each = v.as<int_vec>()[0];
  } else {
    const auto* e = v.lazy() != nullptr ? std::get_if<expanded>(&v.lazy()->form) : nullptr;
    if (e == nullptr || !e->values->is_stored() || e->values->length() == 0) return false;
    const int_vec& values = e->values->as<int_vec>();
    each = values[0];
    const std::int32_t* d = values.data();
    std::atomic<bool> equal{true};
    vseg::detail::parallel_for(values.size(), [&equal, d, each](std::int64_t lo, std::int64_t hi) {
      bool here = true;
      for (std::int64_t i = lo; i < hi; ++i) here &= d[i] == each;
      if (!here) equal.store(false, std::memory_order_relaxed);
    });
    if (!equal.load()) return false;
  }
  if (each < 0 || (each > 0 && v.length() > std::numeric_limits<std::int32_t>::max() / each)) return false;
  return finish(1, value{segd::uniform(v.length(), each)}), true;
}

// PERMUTE(DIST(vals over S), INDEX(starts, strides over S), S2) is a
// replication when, for every segment c of S2, the next n_c segments of S
// all have one length k_c, n_c * k_c = |c|, and starts e, strides n_c
// (e = 0, ..., n_c - 1): element e + i * n_c of segment c is vals[g_c + e]
// for every i < k_c, so segment c is k_c copies of vals[g_c, g_c + n_c).
// Checked in O(segments of S); anything else is left to the plain PERMUTE.
template <class T>
bool machine::permute_to_replication() {  // data index segd
  need(3);
  const value& data = at(2);
  const value& index = at(1);
  if (data.lazy() == nullptr || index.lazy() == nullptr || data.which() != vec_of<T>::kind || at(0).which() != value::segdes) return false;
  const auto* e = std::get_if<expanded>(&data.lazy()->form);
  const auto* a = std::get_if<affine>(&index.lazy()->form);
  const auto* x = std::get_if<transposed>(&index.lazy()->form);
  if (e == nullptr || (a == nullptr && x == nullptr) || !same_lengths(e->shape, a != nullptr ? a->shape : x->shape))
    return false;
  const segd& s = e->shape;
  const segd& s2 = at(0).as<segd>();
  if (s2.elements() != s.elements()) return false;
  // A transposed index has its groups: one per segment of s2.
  if (x != nullptr && x->groups.segments() != s2.segments()) return false;
  const std::int64_t m = s.segments();
  // The per-group and per-copy arrays are sized up front and come from
  // vseg's buffer allocator, whose freed blocks stay mapped: grown as
  // std::vectors they were most of Delaunay's page faults at 100,000 points
  // (10k of 13.7k, fresh glibc pages every call; notes/vcode.md).
  const std::int64_t groups = s2.segments();
  auto group_start = buffer<std::int64_t>::for_overwrite(groups);
  auto group_size = buffer<std::int64_t>::for_overwrite(groups);
  auto copies = buffer<std::int64_t>::for_overwrite(groups);
  std::int64_t g = 0;
  for (std::int64_t c = 0; c < groups; ++c) {
    const std::int64_t len = s2.length(c);
    std::int64_t n = 0, k = 0;
    if (len > 0) {
      if (g >= m || (k = s.length(g)) <= 0 || len % k != 0) return false;
      n = len / k;
      if (n > m - g || n > std::numeric_limits<std::int32_t>::max()) return false;
      if (x != nullptr) {
        // Starts e and strides n by construction: only the lengths to check,
        // none when s is uniform. O(1) per group then.
        if (x->groups.length(c) != n) return false;
        if (s.uniform_length() < 0)
          for (std::int64_t i = 0; i < n; ++i)
            if (s.length(g + i) != k) return false;
      } else {
        for (std::int64_t i = 0; i < n; ++i)
          if (s.length(g + i) != k || a->starts[g + i] != i || a->strides[g + i] != n) return false;
      }
    } else if (x != nullptr && x->groups.length(c) != 0) {
      return false;
    }
    group_start[c] = g;
    group_size[c] = n;
    copies[c] = k;
    g += n;
  }
  if (g != m) return false;
  // The physical copy: vals itself, in groups; or, when vals is a
  // replication whose virtual segments are the groups, its physical copy.
  const replicated* inner = replication_of(*e->values);
  if (inner != nullptr) {
    if (inner->virtual_segments() != groups) return false;
    for (std::int64_t c = 0; c < groups; ++c)
      if (inner->vstart(c) != group_start[c] || inner->length_of(c) != group_size[c]) return false;
  }
  std::int64_t virtual_count = 0;
  for (std::int64_t k : copies) virtual_count += k;
  replicated r;
  if (inner != nullptr) {
    r.physical = inner->physical;
    r.pstarts = inner->pstarts;
    r.plens = inner->plens;
  } else {
    r.physical = e->values;
    r.pstarts = std::move(group_start).freeze();
    r.plens = std::move(group_size).freeze();
  }
  // Each segment of s2 k copies of its group, one k for all, and every
  // physical segment one length: the vsegids and vstarts are a rule, O(1)
  // words (BFS: f copies of each of the n adjacency lists); else stored,
  // group c's copies as virtual segments of its physical segment, end to end.
  if (auto rule = copies_rule(r, std::span<const std::int64_t>(copies.data(), static_cast<std::size_t>(copies.size())), inner)) {
    r.rule_count = virtual_count;
    r.rule_repeat = rule->first;
    r.rule_cycle = rule->second;
    r.rule_each = r.plens.size() > 0 ? r.plens[0] : 0;
  } else {
    auto vsegids = buffer<std::int64_t>::for_overwrite(virtual_count);
    auto vstarts = buffer<std::int64_t>::for_overwrite(virtual_count);
    std::int64_t t = 0, pos = 0;
    for (std::int64_t c = 0; c < groups; ++c) {
      const std::int64_t id = inner != nullptr ? inner->vsegid(c) : c;
      const std::int64_t len = r.plens[id];
      for (std::int64_t i = 0; i < copies[c]; ++i, ++t) {
        vsegids[t] = id;
        vstarts[t] = pos;
        pos += len;
      }
    }
    r.vsegids = std::move(vsegids).freeze();
    r.vstarts = std::move(vstarts).freeze();
  }
  const std::int64_t words = r.words();
  return finish(3, make_lazy(vec_of<T>::kind, s.elements(), words, std::move(r))), true;
}

template <class T>
bool machine::extract_replicated() {  // data index segd
  need(3);
  const replicated* r = replication_of(at(2));
  if (r == nullptr || at(2).which() != vec_of<T>::kind) return false;
  const segd& s = segdes(3, 3);
  if (!same_layout(s, *r)) return false;
  const std::int32_t* k = splat_scalar<std::int32_t>(1);
  const int_vec* index = k != nullptr ? nullptr : &ints(3, 2);
  same_length(s.segments(), at(1).length(), "the descriptor's segments", "the indices");
  const T* phys = r->physical->as<array<T>>().data();
  const std::int64_t n = s.segments();
  auto out = buffer<T>::for_overwrite(n);
  T* o = out.data();
  std::int64_t bad = -1;
  vseg::detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t t = lo; t < hi; ++t) {
      const std::int64_t i = k != nullptr ? *k : (*index)[t];
      if (i < 0 || i >= r->length_of(t)) {
        std::atomic_ref<std::int64_t>(bad).store(t, std::memory_order_relaxed);
        return;
      }
      o[t] = phys[r->start_of(t) + i];
    }
  });
  if (bad >= 0)
    fail("index " + std::to_string(k != nullptr ? *k : (*index)[bad]) + " outside segment " + std::to_string(bad) +
         " of length " + std::to_string(r->length_of(bad)));
  return finish(3, wrap_value(std::move(out).freeze())), true;
}

template <class T>
bool machine::bpermute_replicated() {  // data index src_segd dst_segd
  need(4);
  const replicated* r = replication_of(at(3));
  if (r == nullptr || at(3).which() != vec_of<T>::kind) return false;
  const segd& src = segdes(4, 3);
  if (at(2).which() != value::int_) (void)ints(4, 2);  // reports the index's kind
  const bool by_virtual_segment = same_layout(src, *r);
  // Segments other than the virtual ones (NESL's flatten of the copies of
  // a nested vector reads each copy whole): each element is found in the
  // replication by a binary search, O(log V), when the gather reads a small
  // part of it; a large one is left to bpermute_by_index (a lazy INDEX, the
  // index not written out here) or the plain BPERMUTE.
  if (!by_virtual_segment && (src.elements() != at(3).length() || at(2).length() > at(3).length() / 4)) return false;
  const int_vec& index = ints(4, 2);
  const segd& dst = segdes(4, 4);
  covers(dst, index.size(), "the indices");
  same_length(src.segments(), dst.segments(), "the source descriptor", "the destination descriptor");
  const T* phys = r->physical->as<array<T>>().data();
  auto out = buffer<T>::for_overwrite(index.size());
  T* o = out.data();
  std::int64_t bad = -1;
  if (!by_virtual_segment) {
    vseg::detail::parallel_for(dst.segments(), lazy_segment_grain, [&](std::int64_t lo, std::int64_t hi) {
      std::int64_t near = 0;  // the virtual segment read last: the next search starts there
      for (std::int64_t t = lo; t < hi; ++t) {
        const std::int64_t len = src.length(t);
        for (std::int64_t j = dst.start(t), end = j + dst.length(t); j < end; ++j) {
          const std::int64_t i = index[j];
          if (i < 0 || i >= len) {
            std::atomic_ref<std::int64_t>(bad).store(j, std::memory_order_relaxed);
            return;
          }
          const std::int64_t position = src.start(t) + i;
          near = segment_of(*r, position, near);
          o[j] = phys[r->start_of(near) + (position - r->vstart(near))];
        }
      }
    });
    if (bad >= 0) fail("index " + std::to_string(index[bad]) + " at position " + std::to_string(bad) + " outside its segment");
    return finish(4, wrap_value(std::move(out).freeze())), true;
  }
  vseg::detail::parallel_for(dst.segments(), lazy_segment_grain, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t t = lo; t < hi; ++t) {
      const T* from = phys + r->start_of(t);
      const std::int64_t len = r->length_of(t);
      for (std::int64_t j = dst.start(t), end = j + dst.length(t); j < end; ++j) {
        const std::int64_t i = index[j];
        if (i < 0 || i >= len) {
          std::atomic_ref<std::int64_t>(bad).store(j, std::memory_order_relaxed);
          return;
        }
        o[j] = from[i];
      }
    }
  });
  if (bad >= 0) fail("index " + std::to_string(index[bad]) + " at position " + std::to_string(bad) + " outside its segment");
  return finish(4, wrap_value(std::move(out).freeze())), true;
}

namespace {

// Where an INDEX's elements run from when they are first, first + 1, ...,
// first + n - 1 in order: each non-empty segment of stride 1 (or of one
// element) starts where the last one ended. std::nullopt for an empty
// INDEX or any other. O(segments).
std::optional<std::int64_t> run_start(const affine& a) {
  const segd& shape = a.shape;
  std::optional<std::int64_t> first;
  for (std::int64_t t = 0; t < shape.segments(); ++t) {
    const std::int64_t len = shape.length(t);
    if (len == 0) continue;
    if (!first) first = a.starts[t] - shape.start(t);
    if ((len > 1 && a.strides[t] != 1) || a.starts[t] != *first + shape.start(t)) return std::nullopt;
  }
  return first;
}

}  // namespace

// BPERMUTE whose index is a lazy INDEX: the indices of each of the
// INDEX's segments are start + r * stride, r < its length, so they are in
// range when the first and the last are (they are linear); the check is
// O(1) per segment and the index is never written or read. The INDEX's
// segments must be the destination's, or the gather must be over one
// segment (Barnes-Hut gathers a 29,409-node tree by INDEXes of 122k-400k
// elements in segments of ~6, 98M elements in all). An index out of range,
// or another layout, is left to the plain BPERMUTE, which writes the index
// out and reports the error. O(elements + segments).
template <class T>
bool machine::bpermute_by_index() {  // data index src_segd dst_segd
  need(4);
  const value& index = at(2);
  if (index.lazy() == nullptr || index.which() != value::int_ || at(0).which() != value::segdes) return false;
  const auto* a = std::get_if<affine>(&index.lazy()->form);
  if (a == nullptr) return false;
  // by_segment: index segment t reads source segment t; else all read segment 0.
  const bool by_segment = same_lengths(a->shape, at(0).as<segd>());
  if (!by_segment && (at(0).as<segd>().segments() != 1 || at(0).as<segd>().elements() != a->shape.elements()))
    return false;
  // A replication (the flattened copies Delaunay gathers from) is read
  // where its physical copy is, a segment's run at a time: not written out.
  const value& source = at(3);
  const replicated* copies = source.which() == vec_of<T>::kind ? replication_of(source) : nullptr;
  const bool from_replication = copies != nullptr;
  const array<T>* stored = from_replication ? nullptr : &vec<T>(4, 1);
  const T* d = from_replication ? nullptr : stored->data();
  const segd& src = segdes(4, 3);
  const segd& dst = segdes(4, 4);
  covers(src, at(3).length(), "the data");  // at(3): vec() may have replaced the entry
  same_length(src.segments(), dst.segments(), "the source descriptor", "the destination descriptor");
  const segd& shape = a->shape;
  const std::int32_t* starts = a->starts.data();
  const std::int32_t* strides = a->strides.data();
  const std::int64_t m = shape.segments();
  // One run from a stored vector: every segment reads segment 0 (or there
  // is one segment) with stride 1, each segment's run continuing the last
  // one's. Radix drops the keys it has ranked, ~10M INTs, by such an INDEX
  // of 3,162 segments. The result is the slice sharing the data's buffer,
  // as `sliced` makes of a drop by a sequence: O(segments), and no fresh
  // 40 MB copy (radix.10000000's pool carves 133.5 MiB instead of 143).
  if (!from_replication && (!by_segment || m == 1))
    if (const std::optional<std::int64_t> first = run_start(*a)) {
      const std::int64_t len = shape.elements();
      if (*first < 0 || *first + len > src.length(0)) return false;  // the plain BPERMUTE reports it
      const std::int64_t words = at(3).words();  // the buffer the slice keeps alive
      return finish(4, value::slice_of(stored->slice(src.start(0) + *first, len), words)), true;
    }
  auto out = buffer<T>::for_overwrite(shape.elements());
  T* o = out.data();
  std::atomic<bool> bad{false};
  const std::int64_t per = m > 0 ? std::max<std::int64_t>(1, shape.elements() / m) : 1;
  vseg::detail::parallel_for(m, std::max<std::int64_t>(1, tuning::elementwise_grain / per),
                             [&](std::int64_t lo, std::int64_t hi) {
    std::int64_t near = 0;  // the replication's virtual segment read last: Delaunay's runs move forward
    for (std::int64_t t = lo; t < hi; ++t) {
      const std::int64_t len = shape.length(t);
      if (len == 0) continue;
      const std::int64_t first = starts[t], step = strides[t], last = first + (len - 1) * step;
      const std::int64_t from_segment = by_segment ? t : 0;
      const std::int64_t size = src.length(from_segment);
      if (first < 0 || first >= size || last < 0 || last >= size) {
        bad.store(true, std::memory_order_relaxed);
        return;
      }
      T* to = o + shape.start(t);
      const std::int64_t at_first = src.start(from_segment) + first;
      if (from_replication) {
        if (step == 1) near = write_replicated<T>(*copies, at_first, at_first + len, to, near);
        else
          for (std::int64_t r = 0; r < len; ++r) to[r] = element_at<T>(source, at_first + r * step);
        continue;
      }
      const T* from = d + at_first;
      if (step == 1) copy_run(from, len, to);  // Barnes-Hut: 98M elements, every one of stride 1
      else
        for (std::int64_t r = 0; r < len; ++r) to[r] = from[r * step];
    }
  });
  if (bad.load()) return false;
  return finish(4, wrap_value(std::move(out).freeze())), true;
}

// DPERMUTE whose index is a lazy INDEX (Delaunay at 100,000 points: 390
// DPERMUTEs, 61M indices, all of stride 1: each source segment's run
// placed at an offset of its destination segment, or runs of one source
// segment into one destination segment). Element r of INDEX segment t
// goes to start[t] + r * stride[t] of its destination segment, so the
// indices of a segment are in range when its first and last are: the check
// is O(1) per segment, the index is neither written nor read, and a stride
// of 1 is a copy. The INDEX's segments must be the source's (segment t
// into destination segment t; targets of different segments never meet,
// so segments run in parallel), or the scatter must be over one segment
// (the runs in order, so a later run overwrites an earlier one as the later
// position wins in the plain DPERMUTE). The argument checks are the plain
// DPERMUTE's, in its order; an index out of its segment, or another
// layout, is left to the plain DPERMUTE, which writes the index out and
// reports it. O(elements + segments).
template <class T>
bool machine::dpermute_by_index() {  // data index defaults src_segd dst_segd
  need(5);
  const value& index = at(3);
  if (index.lazy() == nullptr || at(1).which() != value::segdes) return false;
  const auto* a = std::get_if<affine>(&index.lazy()->form);
  if (a == nullptr) return false;
  const bool by_segment = same_lengths(a->shape, at(1).as<segd>());
  if (!by_segment && (at(1).as<segd>().segments() != 1 || at(1).as<segd>().elements() != a->shape.elements()))
    return false;
  const auto& data = vec<T>(5, 1);
  const T* splat = splat_scalar<T>(2);  // filled in by fresh_defaults, not written out
  const std::int64_t defaults = splat != nullptr ? at(2).length() : vec<T>(5, 3).size();
  const segd& src = segdes(5, 4);
  const segd& dst = segdes(5, 5);
  check_dpermute(data.size(), a->shape.elements(), defaults, src, dst);
  const segd& shape = a->shape;
  const std::int32_t* starts = a->starts.data();
  const std::int32_t* strides = a->strides.data();
  // Destination segment t, or 0 for all.
  const auto target_segment = [by_segment](std::int64_t t) { return by_segment ? t : 0; };
  for (std::int64_t t = 0; t < shape.segments(); ++t) {
    const std::int64_t len = shape.length(t);
    if (len == 0) continue;
    const std::int64_t first = starts[t], last = first + (len - 1) * std::int64_t{strides[t]};
    const std::int64_t size = dst.length(target_segment(t));
    if (first < 0 || first >= size || last < 0 || last >= size) return false;
  }
  const T* d = data.data();
  // Segment t's run scattered into o (the destination's elements, holding the defaults).
  const auto scatter_segment = [&](T* o, std::int64_t t) {
    const std::int64_t len = shape.length(t), step = strides[t];
    if (len == 0) return;
    const T* from = d + shape.start(t);
    T* to = o + dst.start(target_segment(t)) + starts[t];
    if (step == 1) copy_run(from, len, to);
    else
      for (std::int64_t r = 0; r < len; ++r) to[r * step] = from[r];
  };
  const auto scatter_into = [&](std::span<T> out) {
    const std::int64_t m = shape.segments();
    if (!by_segment) {
      for (std::int64_t t = 0; t < m; ++t) scatter_segment(out.data(), t);
      return;
    }
    const std::int64_t per = m > 0 ? std::max<std::int64_t>(1, shape.elements() / m) : 1;
    vseg::detail::parallel_for(m, std::max<std::int64_t>(1, tuning::elementwise_grain / per),
                               [&](std::int64_t lo, std::int64_t hi) {
                                 for (std::int64_t t = lo; t < hi; ++t) scatter_segment(out.data(), t);
                               });
  };
  // Defaults nothing else holds take the scatter themselves, as in dpermute().
  const slot& held = stack_[stack_.size() - 3];
  if (auto out = reusable<T>(held, dst.elements()); out.data() != nullptr) {
    scatter_into(out);
    return finish(5, held), true;
  }
  auto fresh = fresh_defaults<T>(dst.elements(), splat);
  scatter_into(fresh.span());
  return finish(5, wrap_value(std::move(fresh).freeze())), true;
}

template array<std::int32_t> machine::materialized<std::int32_t>(const value&);
template array<bool> machine::materialized<bool>(const value&);
template array<double> machine::materialized<double>(const value&);
template bool machine::dist_lazily<std::int32_t>();
template bool machine::dist_lazily<bool>();
template bool machine::dist_lazily<double>();
template bool machine::permute_to_replication<std::int32_t>();
template bool machine::permute_to_replication<bool>();
template bool machine::permute_to_replication<double>();
template bool machine::extract_replicated<std::int32_t>();
template bool machine::extract_replicated<bool>();
template bool machine::extract_replicated<double>();
template bool machine::bpermute_replicated<std::int32_t>();
template bool machine::bpermute_replicated<bool>();
template bool machine::bpermute_replicated<double>();
template bool machine::bpermute_by_index<std::int32_t>();
template bool machine::bpermute_by_index<bool>();
template bool machine::bpermute_by_index<double>();
template bool machine::dpermute_by_index<std::int32_t>();
template bool machine::dpermute_by_index<bool>();
template bool machine::dpermute_by_index<double>();

}  // namespace vseg::vcode::detail
