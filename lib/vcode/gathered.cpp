#include <cstdlib>
#include <cstdio>
// BPERMUTE deferred (gathered.hpp): a flat gather from a small source kept
// as its source and index, read block by block by the element-wise ops and
// written out, once, for any other reader. Instantiated at the end for INT,
// BOOL and FLOAT.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include "gathered.hpp"
#include "lazy.hpp"
#include "machine.hpp"
#include "value.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/flat/permute.hpp"
#include "vseg/segmented/permute.hpp"
#include "vseg/segd.hpp"
#include "vseg/tuning.hpp"

namespace vseg::vcode::detail {

template <class T>
array<T> written_out(const gathered& g) {
  if (const array<T>* w = g.written_as<T>()) return *w;
  const std::int64_t n = g.index.size();
  auto out = buffer<T>::for_overwrite(n);
  T* o = out.data();
  vseg::detail::for_each_block(n, tuning::flat_block, [&](std::int64_t, std::int64_t lo, std::int64_t hi) {
    write_gathered<T>(g, lo, hi, o + lo);
  });
  array<T> result = std::move(out).freeze();
  *g.written = value{result};
  return result;
}

const gathered* gather_of(const value& v) noexcept {
  return v.lazy() != nullptr ? std::get_if<gathered>(&v.lazy()->form) : nullptr;
}

namespace {

// A deferred gather of `source` by `index`, of kind k; -m counts the
// source and the index's words (index_words: of the whole buffer when the
// index is a slice of a longer one).
value deferred(value::kind k, boost::intrusive_ptr<value> source, int_vec index, std::int64_t index_words = 0) {
  const std::int64_t n = index.size();
  const std::int64_t words = source->words() + std::max(index_words, words_for<std::int32_t>(n));
  return value::lazy_of(k, std::make_shared<const lazy_vector>(lazy_vector{n, words, gathered{std::move(source), std::move(index)}}));
}

// Whether every index is in [0, size), checked in parallel blocks. O(n).
bool all_in_range(const int_vec& ix, std::int64_t size) {
  std::atomic<bool> good{true};
  vseg::detail::for_each_block(ix.size(), tuning::flat_block, [&](std::int64_t, std::int64_t lo, std::int64_t hi) {
    if (!vseg::detail::all_in_range(ix.data(), lo, hi, size)) good.store(false, std::memory_order_relaxed);
  });
  return good.load();
}

// BPERMUTE over one segment by an INDEX held as a sequence (a splat with
// step 1: start, start + 1, ...), all in range: the elements [start,
// start + n) of the data, which is what NESL's drop emits (Barnes-Hut
// drops the first ~50k of 200k-400k node fields by a flat INDEX, ~1,100
// times). Of a stored vector, a slice sharing its buffer; of a deferred
// gather (source, inner), the gather (source, inner's slice), or a slice
// of its elements once written out. O(1): the index is never written or
// read. Anything else gives no value (the caller's other paths apply).
template <class T>
std::optional<value> sliced(const value& data, const value& index, std::int64_t n) {
  if (!index.is_splat() || index.which() != value::int_ || index.splat_step() != 1) return std::nullopt;
  const std::int64_t start = index.as<int_vec>()[0];
  if (start < 0 || start + n > data.length()) return std::nullopt;  // the plain BPERMUTE reports it
  // -m counts the whole buffer a slice keeps alive (value::slice_of); of
  // a deferred gather, its index's words (the gather's less its source's).
  if (data.is_stored()) return value::slice_of(data.as<array<T>>().slice(start, n), data.words());
  const gathered* g = gather_of(data);
  if (g == nullptr) return std::nullopt;
  if (const array<T>* w = g->written_as<T>()) return value::slice_of(w->slice(start, n), words_for<T>(w->size()));
  return deferred(vec_of<T>::kind, g->source, g->index.slice(start, n), data.words() - g->source->words());
}

}  // namespace

// BPERMUTE over one source and one destination segment, every index in
// range: of a stored vector of at most gather_source_max elements by at
// least lazy_min indices, kept as (source, index); of a deferred gather
// (source, inner) by any index, kept as (source, inner[index]), the composed
// index made once for every field moved by this index (composed_). O(index)
// for the range check and the composition. Anything else, or an index out
// of range, is left to the plain BPERMUTE (which reports the error).
template <class T>
bool machine::bpermute_deferred() {  // data index src_segd dst_segd
  need(4);
  const slot& data = stack_[stack_.size() - 4];
  if (data->which() != vec_of<T>::kind || at(2).which() != value::int_) return false;
  if (at(1).which() != value::segdes || at(0).which() != value::segdes) return false;
  const segd& src = at(1).as<segd>();
  const segd& dst = at(0).as<segd>();
  const std::int64_t size = data->length();
  if (src.segments() == 1 && dst.segments() == 1 && src.elements() == size && dst.elements() == at(2).length())
    if (std::optional<value> slice = sliced<T>(*data, at(2), at(2).length())) return finish(4, std::move(*slice)), true;
  const value& index = arg(4, 2, value::int_);  // a lazy index (a deferred INT gather) written out
  const gathered* inner = gather_of(*data);
  if (!data->is_stored() && inner == nullptr) return false;
  const int_vec& ix = index.as<int_vec>();
  const std::int64_t n = ix.size();
  if (src.segments() != 1 || dst.segments() != 1 || src.elements() != size || dst.elements() != n) return false;
  if (inner == nullptr && (n < lazy_min || size > gather_source_max)) return false;
  if (inner == nullptr) {
    if (!composed_.known_in_range(ix, size)) {
      if (!all_in_range(ix, size)) return false;
      composed_.remember_in_range(ix, size);
    }
    return finish(4, deferred(vec_of<T>::kind, data, ix)), true;
  }
  const auto how = composed_indices::by::bpermute;
  const int_vec* known = composed_.find(inner->index, ix, how);
  int_vec composed;
  if (known != nullptr) {
    composed = *known;
  } else {
    if (!all_in_range(ix, size)) return false;
    composed = written_out<std::int32_t>(gathered{boost::intrusive_ptr<value>(new value(inner->index)), ix});
    composed_.remember(inner->index, ix, how, composed);
  }
  boost::intrusive_ptr<value> source = inner->source;
  return finish(4, deferred(vec_of<T>::kind, std::move(source), std::move(composed))), true;
}

// PERMUTE over one segment of a deferred gather (source, inner) by p: the
// gather (source, inner permuted by p), the permuted index made once for
// every field moved by p (composed_). Checked as PERMUTE checks p (its
// errors); a p known to be a permutation is not checked again. O(p) the
// first time, O(1) after.
template <class T>
bool machine::permute_deferred() {  // data index segd
  need(3);
  const value& data = at(2);
  const gathered* inner = gather_of(data);
  if (inner == nullptr || data.which() != vec_of<T>::kind) return false;
  if (at(1).which() != value::int_ || !at(1).is_stored() || at(0).which() != value::segdes) return false;
  const segd& s = at(0).as<segd>();
  if (s.segments() != 1) return false;
  value& index_value = *stack_[stack_.size() - 2];
  const int_vec& p = index_value.as<int_vec>();
  same_length(data.length(), p.size(), "the data", "the indices");
  covers(s, p.size(), "the data");
  const auto how = composed_indices::by::permute;
  const int_vec* known = composed_.find(inner->index, p, how);
  int_vec composed;
  if (known != nullptr) {
    composed = *known;
  } else {
    composed = index_value.known_permutation() ? vseg::permute_unchecked(inner->index, p)
                                               : vseg::permute_s(s, inner->index, p);
    index_value.mark_permutation();
    composed_.remember(inner->index, p, how, composed);
  }
  boost::intrusive_ptr<value> source = inner->source;
  return finish(3, deferred(vec_of<T>::kind, std::move(source), std::move(composed))), true;
}

template array<std::int32_t> written_out<std::int32_t>(const gathered&);
template array<bool> written_out<bool>(const gathered&);
template array<double> written_out<double>(const gathered&);
template bool machine::bpermute_deferred<std::int32_t>();
template bool machine::bpermute_deferred<bool>();
template bool machine::bpermute_deferred<double>();
template bool machine::permute_deferred<std::int32_t>();
template bool machine::permute_deferred<bool>();
template bool machine::permute_deferred<double>();

}  // namespace vseg::vcode::detail
