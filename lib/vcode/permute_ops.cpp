// The typed segmented operations that move elements between positions:
// the permutes (PERMUTE, DPERMUTE, FPERMUTE, DFPERMUTE, BPERMUTE, BFPERMUTE),
// EXTRACT and REPLACE, DIST, PACK and RANK, with their fast paths for splats
// and known permutations. Instantiated at the end for INT, BOOL and FLOAT.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <variant>

#include "machine.hpp"
#include "pack_lazy.hpp"
#include "scalar.hpp"
#include "value.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/flat/map.hpp"
#include "vseg/flat/permute.hpp"
#include "vseg/flat/tabulate.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/bpermute.hpp"
#include "vseg/segmented/bpermute_flagged.hpp"
#include "vseg/segmented/extract.hpp"
#include "vseg/segmented/pack.hpp"
#include "vseg/segmented/permute.hpp"
#include "vseg/segmented/rank.hpp"
#include "vseg/segmented/replace.hpp"
#include "vseg/segmented/replicate.hpp"

namespace vseg::vcode::detail {

template <class T>
void machine::permute() {  // data index segd
  if (permute_to_replication<T>() || permute_replicated_segments<T>() || permute_deferred<T>()) return;
  if constexpr (std::is_same_v<T, std::int32_t>) {
    if (permute_sequence() || permute_splat()) return;
  }
  if (permute_transposition<T>() || permute_by_segment_moves<T>()) return;
  const auto& data = vec<T>(3, 1);
  const int_vec& index = ints(3, 2);
  const segd& s = segdes(3, 3);
  same_length(data.size(), index.size(), "the data", "the indices");
  covers(s, data.size(), "the data");
  // Over one-element segments every index must be 0, and then the result
  // is the data: shared, not scattered (batcher: 32 PERMUTEs of 2^18). Any
  // other index takes the checked path below, which reports it.
  if (s.uniform_length() == 1 && vseg::detail::all_in_range(index.data(), 0, index.size(), 1))
    return finish(3, slot(stack_[stack_.size() - 3]));
  // Over one segment, an index known to be a permutation needs no check;
  // once checked, it is known (for every entry sharing the value).
  value& index_value = *stack_[stack_.size() - 2];
  const bool one = s.segments() == 1;
  if (one && index_value.known_permutation()) return finish(3, wrap_value(vseg::permute_unchecked(data, index)));
  auto result = vseg::permute_s(s, data, index);
  if (one) index_value.mark_permutation();
  finish(3, wrap_value(std::move(result)));
}

// The permute group's law for sequences: PERMUTE of the sequence x, x + s,
// x + 2s, ... (an INDEX kept as a splat) by a permutation p over one
// segment is x + s * inverse(p) (position p[i] receives x + s i, and
// inverse(p)[p[i]] = i). So it is one inverse permutation, scaled, without
// writing or reading the sequence; the inverse of a known inverse is the
// permutation it inverted, shared (value::cached_inverse). NESL's code
// makes this whenever it permutes positions (radix: the rank, and then its
// inverse). False (nothing done) for any other data.
bool machine::permute_sequence() {
  need(3);
  const value& data = at(2);
  if (!data.is_splat() || data.splat_step() == 0 || data.which() != value::int_) return false;
  const int_vec& index = ints(3, 2);
  const segd& s = segdes(3, 3);
  if (s.segments() != 1) return false;
  same_length(data.length(), index.size(), "the data", "the indices");
  covers(s, index.size(), "the data");
  const std::int32_t first = data.as<int_vec>()[0];
  const std::int32_t step = data.splat_step();
  value& index_value = *stack_[stack_.size() - 2];
  const int_vec* known = index_value.cached_inverse();
  int_vec inverse = known != nullptr                   ? *known
                    : index_value.known_permutation() ? vseg::inverse_permutation_unchecked(index)
                                                      : vseg::inverse_permutation(index);
  index_value.mark_permutation();
  if (first == 0 && step == 1) {
    value result{std::move(inverse)};
    if (result.length() > 0) result.remember_inverse(index);
    return finish(3, std::move(result)), true;
  }
  // Position i holds first + inverse[i] * step, wrapping: in place when the
  // inverse is this op's own buffer (not a shared cached one).
  const auto f = [first, step](std::int32_t q) { return wrap(bits(first) + bits(q) * bits(step)); };
  if (const auto out = inverse.writable_if_unique(); out.data() != nullptr) vseg::map_into(f, inverse, out);
  else inverse = vseg::map(f, inverse);
  return finish(3, value{std::move(inverse)}), true;
}

template <class T>
void machine::dpermute() {  // data index defaults src_segd dst_segd
  if (dpermute_by_index<T>()) return;
  const auto& data = vec<T>(5, 1);
  const int_vec& index = ints(5, 2);
  // Splat defaults stay a splat: NESL's joins put 0.9M INTs into a DIST of
  // 2.7M zeros (Delaunay at 100,000 points), which fresh_defaults fills in
  // without writing it out.
  const T* splat = splat_scalar<T>(2);
  const std::int64_t defaults = splat != nullptr ? at(2).length() : vec<T>(5, 3).size();
  const segd& src = segdes(5, 4);
  const segd& dst = segdes(5, 5);
  check_dpermute(data.size(), index.size(), defaults, src, dst);
  // Defaults nothing else holds take the scatter themselves: no copy of
  // them and no fresh result (Delaunay at 100,000 points: DPERMUTEs of 0.9M
  // INTs into 2.7M defaults, notes/vcode.md).
  const slot& held = stack_[stack_.size() - 3];
  if (auto out = reusable<T>(held, dst.elements()); out.data() != nullptr) {
    vseg::permute_default_s_into(src, data, index, dst, out);
    return finish(5, held);
  }
  // Stored defaults: permute_default_s copies them, segment by segment
  // with the scatter over uniform layouts.
  if (splat == nullptr) return finish(5, wrap_value(vseg::permute_default_s(src, data, index, dst, vec<T>(5, 3))));
  auto fresh = fresh_defaults<T>(dst.elements(), splat);
  vseg::permute_default_s_into(src, data, index, dst, fresh.span());
  finish(5, wrap_value(std::move(fresh).freeze()));
}

template <class T>
buffer<T> machine::fresh_defaults(std::int64_t n, const T* splat) {
  auto out = buffer<T>::for_overwrite(n);
  T* o = out.data();
  if (splat != nullptr) {
    const T x = *splat;
    vseg::detail::parallel_for(n, [o, x](std::int64_t lo, std::int64_t hi) { std::fill(o + lo, o + hi, x); });
  } else {
    const T* from = vec<T>(5, 3).data();
    vseg::detail::parallel_for(n, [o, from](std::int64_t lo, std::int64_t hi) { std::copy(from + lo, from + hi, o + lo); });
  }
  return out;
}

// FPERMUTE and DFPERMUTE: only the flagged elements are written.
template <class T>
void machine::flagged_permute(unset_positions unset) {
  const bool with_defaults = unset == unset_positions::from_defaults;
  const std::size_t argc = with_defaults ? 6 : 5;
  const auto& data = vec<T>(argc, 1);
  const int_vec& index = ints(argc, 2);
  const bool_vec& flags = bools(argc, 3);
  const segd& src = segdes(argc, argc - 1);
  const segd& dst = segdes(argc, argc);
  same_length(data.size(), index.size(), "the data", "the indices");
  same_length(data.size(), flags.size(), "the data", "the flags");
  covers(src, data.size(), "the data");
  same_length(src.segments(), dst.segments(), "the source descriptor", "the destination descriptor");
  array<T> defaults;
  if (with_defaults) {
    defaults = vec<T>(argc, 4);
    covers(dst, defaults.size(), "the defaults");
  } else {
    defaults = vseg::fill(dst.elements(), T{});  // CVL leaves these unset; we give 0
  }
  auto kept = vseg::pack_s(src, data, flags);
  auto kept_index = vseg::pack(index, flags);
  finish(argc, wrap_value(vseg::permute_default_s(kept.descriptor, kept.data, kept_index, dst, defaults)));
}

template <class T>
void machine::bpermute() {  // data index src_segd dst_segd
  if constexpr (std::is_same_v<T, std::int32_t>)
    if (bpermute_sequence()) return;  // before bpermute_by_index, which writes the sequence out
  if (bpermute_replicated<T>() || bpermute_by_index<T>() || bpermute_deferred<T>()) return;
  const auto& data = vec<T>(4, 1);
  const int_vec& index = ints(4, 2);
  const segd& src = segdes(4, 3);
  const segd& dst = segdes(4, 4);
  covers(src, data.size(), "the data");
  covers(dst, index.size(), "the indices");
  same_length(src.segments(), dst.segments(), "the source descriptor", "the destination descriptor");
  finish(4, wrap_value(vseg::bpermute_s(src, data, dst, index).data));
}

template <class T>
void machine::bfpermute() {  // data index flags src_segd dst_segd
  const auto& data = vec<T>(5, 1);
  const int_vec& index = ints(5, 2);
  const bool_vec& flags = bools(5, 3);
  const segd& src = segdes(5, 4);
  const segd& dst = segdes(5, 5);
  covers(src, data.size(), "the data");
  covers(dst, index.size(), "the indices");
  covers(dst, flags.size(), "the flags");
  same_length(src.segments(), dst.segments(), "the source descriptor", "the destination descriptor");
  finish(5, wrap_value(vseg::bpermute_flagged_s(src, data, dst, index, flags, T{})));
}

template <class T>
void machine::extract() {  // data index segd
  if (extract_replicated<T>()) return;
  if constexpr (std::is_same_v<T, std::int32_t>)
    if (extract_affine()) return;
  const auto& data = vec<T>(3, 1);
  const segd& s = segdes(3, 3);
  covers(s, data.size(), "the data");
  // A splat index (a DIST of one index: radix's 2,000 EXTRACTs) is used
  // as that index, not written out.
  if (const std::int32_t* k = splat_scalar<std::int32_t>(1)) {
    same_length(s.segments(), at(1).length(), "the descriptor's segments", "the indices");
    return finish(3, wrap_value(vseg::extract_s(s, data, std::int64_t{*k})));
  }
  const int_vec& index = ints(3, 2);
  same_length(s.segments(), index.size(), "the descriptor's segments", "the indices");
  finish(3, wrap_value(vseg::extract_s(s, data, index)));
}

template <class T>
void machine::replace() {  // data index values segd
  const auto& data = vec<T>(4, 1);
  // A splat index is used as that index, not written out (as in EXTRACT).
  const std::int32_t* k = splat_scalar<std::int32_t>(2);
  const int_vec* index = k != nullptr ? nullptr : &ints(4, 2);
  const auto& values = vec<T>(4, 3);
  const segd& s = segdes(4, 4);
  covers(s, data.size(), "the data");
  same_length(s.segments(), at(2).length(), "the descriptor's segments", "the indices");
  same_length(s.segments(), values.size(), "the descriptor's segments", "the values");
  const auto write = [&](std::span<T> out) {
    if (k != nullptr) vseg::replace_s_into(s, out, std::int64_t{*k}, values);
    else vseg::replace_s_into(s, out, *index, values);
  };
  const slot& target = stack_[stack_.size() - 4];
  if (auto storage = reusable<T>(target, data.size()); storage.data() != nullptr) {
    // The only reference: write in place (vseg's replace_s_into), as
    // NESL's vinterp does, so a loop of REPLACEs is O(1) per step, not O(n).
    write(storage);
    return finish(4, slot(target));
  }
  // Shared: copy once into a new buffer, then replace; the copy is the
  // only reference, so the next REPLACE of it is in place.
  auto out = buffer<T>::for_overwrite(data.size());
  vseg::map_into(std::identity{}, data, out.span());  // in parallel: radix copies 40 MB here
  write(out.span());
  finish(4, wrap_value(std::move(out).freeze()));
}

template <class T>
void machine::dist() {  // values segd
  if (dist_lazily<T>()) return;
  const auto& values = vec<T>(2, 1);
  const segd& s = segdes(2, 2);
  same_length(s.segments(), values.size(), "the descriptor's segments", "the values");
  // One value over one big segment: a splat, written only if some
  // operation other than an element-wise one reads it.
  if (s.segments() == 1 && s.elements() >= dist_splat_min) return finish(2, value::splat<T>(values[0], s.elements()));
  room_for<T>(2, s.elements());
  finish(2, wrap_value(vseg::replicate_s(s, values)));
}

// The plan of a PACK by the flags `depth` entries below the top over s:
// the one the flags keep when it was made for s, else a new one, which
// they then keep. The flags are a stored BOOL vector covered by s.
std::shared_ptr<const pack_plan> machine::pack_plan_for(std::size_t depth, const segd& s) {
  value& flags = *stack_[stack_.size() - 1 - depth];
  if (const auto& kept = flags.cached_pack_plan(); kept != nullptr && kept->made_for(s)) return kept;
  auto plan = std::make_shared<const pack_plan>(s, flags.as<bool_vec>());
  flags.remember_pack_plan(plan);
  return plan;
}

template <class T>
void machine::pack() {  // data flags segd -> data segd
  need(3);
  // A lazy replication, DIST or INDEX is read a block at a time where it
  // is (pack_blockwise), not written out first.
  const bool lazily = at(2).which() == vec_of<T>::kind && pack_reads_lazily(at(2), lazy_min);
  const std::int64_t n = lazily ? at(2).length() : vec<T>(3, 1).size();
  const bool_vec& flags = bools(3, 2);
  const segd& s = segdes(3, 3);
  same_length(n, flags.size(), "the data", "the flags");
  covers(s, n, "the data");
  const auto plan = pack_plan_for(1, s);
  array<T> kept = lazily ? pack_blockwise<T>(*plan, at(2)) : plan->apply(at(2).as<array<T>>());
  drop(3);
  push(wrap_value(std::move(kept)));
  push(value{plan->descriptor()});
}

template <class T>
void machine::rank(rank_order order) {
  const auto& data = vec<T>(2, 1);
  const segd& s = segdes(2, 2);
  covers(s, data.size(), "the data");
  finish(2, wrap_value(vseg::rank_s_as<std::int32_t>(s, data, order)));
}

// The element types execute() dispatches these on (machine::by_type).
template void machine::permute<std::int32_t>();
template void machine::permute<bool>();
template void machine::permute<double>();
template void machine::dpermute<std::int32_t>();
template void machine::dpermute<bool>();
template void machine::dpermute<double>();
template buffer<std::int32_t> machine::fresh_defaults<std::int32_t>(std::int64_t, const std::int32_t*);
template buffer<bool> machine::fresh_defaults<bool>(std::int64_t, const bool*);
template buffer<double> machine::fresh_defaults<double>(std::int64_t, const double*);
template void machine::flagged_permute<std::int32_t>(unset_positions);
template void machine::flagged_permute<bool>(unset_positions);
template void machine::flagged_permute<double>(unset_positions);
template void machine::bpermute<std::int32_t>();
template void machine::bpermute<bool>();
template void machine::bpermute<double>();
template void machine::bfpermute<std::int32_t>();
template void machine::bfpermute<bool>();
template void machine::bfpermute<double>();
template void machine::extract<std::int32_t>();
template void machine::extract<bool>();
template void machine::extract<double>();
template void machine::replace<std::int32_t>();
template void machine::replace<bool>();
template void machine::replace<double>();
template void machine::dist<std::int32_t>();
template void machine::dist<bool>();
template void machine::dist<double>();
template void machine::pack<std::int32_t>();
template void machine::pack<bool>();
template void machine::pack<double>();
template void machine::rank<std::int32_t>(rank_order);
template void machine::rank<double>(rank_order);

}  // namespace vseg::vcode::detail
