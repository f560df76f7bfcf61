// Permutations: bpermute (gather), permute (scatter), inverse_permutation
// and permute_default (scatter over a default array). O(n) work each.
//
// The checked forms verify every index and throw std::out_of_range naming the
// first offending position and value; the *_unchecked forms skip the checks
// and require valid input.
//
// The scatters take no lock per element. A parallel scatter stores each value
// and a byte mark at its target in one random pass, then counts the marks in
// a sequential one: as many marks as sources proves the targets distinct,
// which is all permute needs to know and the common case of permute_default
// (scatter_marked). Element types without plain atomic stores first record
// one writer per target and let only it write (scatter_distinct_with). Only
// when a target repeats does permute_default fall back to a per-element
// compare-and-swap that makes the last position win. Below
// tuning::serial_cutoff the named serial versions run instead.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"

namespace vseg {

// [xs[indices[i]] | i <- [0, indices.size())]; indices must be in range.
template <contiguous_input R, contiguous_input Indices>
array<element_t<R>> bpermute_unchecked(const R& xs, const Indices& indices) {
  using T = element_t<R>;
  auto in = detail::as_span(xs);
  auto idx = detail::as_span(indices);
  auto out = buffer<T>::for_overwrite(detail::ssize(indices));
  T* o = out.data();
  detail::parallel_for(detail::ssize(indices), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) o[i] = in[static_cast<std::size_t>(idx[i])];
  });
  return std::move(out).freeze();
}

// [xs[indices[i]] | i <- [0, indices.size())]: a gather. Throws
// std::out_of_range for an index outside [0, xs.size()).
template <contiguous_input R, contiguous_input Indices>
array<element_t<R>> bpermute(const R& xs, const Indices& indices) {
  using T = element_t<R>;
  auto in = detail::as_span(xs);
  auto idx = detail::as_span(indices);
  const std::int64_t n = detail::ssize(xs);
  auto out = buffer<T>::for_overwrite(detail::ssize(indices));
  T* o = out.data();
  detail::first_bad bad;
  detail::parallel_for(detail::ssize(indices), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) {
      const auto j = static_cast<std::int64_t>(idx[i]);
      if (detail::in_range(j, n)) o[i] = in[j];
      else bad.note(i);
    }
  });
  if (bad.any())
    detail::throw_out_of_range("bpermute", "index ", static_cast<std::int64_t>(idx[bad.position()]),
                               " at position ", bad.position(), " outside [0, ", n, ")");
  return std::move(out).freeze();
}

namespace detail {

// The targets of a flat scatter: source position i writes indices[i], which
// must lie in [0, n). each(f) calls f(i, t) for every in-range pair in
// parallel and notes the out-of-range positions in `bad`; each_in_order(f)
// does the same serially, in increasing i.
template <class I>
struct flat_targets {
  std::span<const I> idx;
  std::int64_t n;
  first_bad* bad;

  static constexpr bool cheap_to_enumerate = true;
  std::int64_t sources() const { return static_cast<std::int64_t>(idx.size()); }

  template <class F>
  void each(F&& f) const {
    // The pointers and f are copied into the chunk's locals: a caller's
    // relaxed atomic stores would otherwise make the compiler reload them
    // from the captures after every element.
    parallel_for(sources(), [&, ix = idx.data(), n = n](std::int64_t lo, std::int64_t hi) {
      auto g = f;
      for (std::int64_t i = lo; i < hi; ++i) {
        const auto t = static_cast<std::int64_t>(ix[i]);
        if (in_range(t, n)) g(i, t);
        else bad->note(i);
      }
    });
  }

  template <class F>
  void each_in_order(F&& f) const {
    for (std::int64_t i = 0; i < sources(); ++i) {
      const auto t = static_cast<std::int64_t>(idx[static_cast<std::size_t>(i)]);
      if (in_range(t, n)) f(i, t);
      else bad->note(i);
    }
  }
};

// The first source position whose target an earlier position already took,
// or -1. Serial; names the offender after a parallel check failed.
template <class Targets>
std::int64_t first_repeat(const Targets& targets, std::int64_t n) {
  std::vector<unsigned char> taken(static_cast<std::size_t>(n), 0);
  std::int64_t first = -1;
  targets.each_in_order([&](std::int64_t i, std::int64_t t) {
    auto& mark = taken[static_cast<std::size_t>(t)];
    if (mark != 0 && first < 0) first = i;
    mark = 1;
  });
  return first;
}

// Whether elements of T can be stored with a relaxed atomic store that is a
// plain move (so racing stores of a bad input are defined, and cost nothing).
template <class T>
constexpr bool plain_atomic_store() {
  if constexpr (std::is_trivially_copyable_v<T>)
    return std::atomic_ref<T>::is_always_lock_free && std::atomic_ref<T>::required_alignment == alignof(T);
  else
    return false;
}

// A scatter in one random pass that says whether a target repeated: every
// source stores its value and a byte mark at its target (relaxed atomic
// stores: plain moves on x86, and defined when a bad input makes two sources
// race for one target), then one sequential pass counts the marks. The
// targets are distinct exactly when there are as many marks as sources; for
// a permutation (as many sources as targets) that means every target is
// written once. Returns false when a target repeated (those targets hold any
// one of their writers' values) or an index was out of range (noted in the
// targets' first_bad).
// A byte that is not a character type: a store through unsigned char* may
// alias any object, so the compiler would reload every captured pointer after
// each mark; a store of an enum aliases only that enum.
enum class scatter_mark : std::uint8_t { unset = 0, set = 1 };

template <class T, class Targets, class In>
bool scatter_marked(const Targets& targets, std::int64_t n, In in, T* o) {
  auto marks = buffer<scatter_mark>::filled(n, scatter_mark::unset);
  scatter_mark* mark = marks.data();
  // Captured by value, so each() can keep the pointers in registers.
  targets.each([mark, in, o](std::int64_t i, std::int64_t t) {
    const T v = in[i];
    std::atomic_ref<scatter_mark>(mark[t]).store(scatter_mark::set, std::memory_order_relaxed);
    std::atomic_ref<T>(o[t]).store(v, std::memory_order_relaxed);
  });
  std::atomic<std::int64_t> marked{0};
  for_each_block(n, tuning::flat_block, [&](std::int64_t, std::int64_t lo, std::int64_t hi) {
    std::int64_t count = 0;
    for (std::int64_t t = lo; t < hi; ++t) count += static_cast<std::uint8_t>(mark[t]);
    marked.fetch_add(count, std::memory_order_relaxed);
  });
  return !targets.bad->any() && marked.load() == targets.sources();
}

// o[t] = in[i] for every pair, when no target repeats; returns false (o then
// partly written) when one does. Two lock-free passes: pos[t] records one
// writer of t, then only the recorded writer stores its value, so no element
// of o is written twice even for bad input. P: a type for positions and
// targets. Targets whose enumeration is costly (segment_targets: a merge
// path walk per segment) are recorded in the first pass, and the second
// reads them back in a flat loop.
template <class P, class T, class Targets, class In>
bool scatter_distinct_with(const Targets& targets, std::int64_t n, In in, T* o) {
  auto pos = buffer<P>::for_overwrite(n);
  P* p = pos.data();
  std::atomic<bool> repeated{false};
  auto write_if_recorded = [&](std::int64_t i, std::int64_t t) {
    if (std::atomic_ref<P>(p[t]).load(std::memory_order_relaxed) == static_cast<P>(i)) o[t] = in[i];
    else if (!repeated.load(std::memory_order_relaxed)) repeated.store(true, std::memory_order_relaxed);
  };
  if constexpr (Targets::cheap_to_enumerate) {
    targets.each([&](std::int64_t i, std::int64_t t) {
      std::atomic_ref<P>(p[t]).store(static_cast<P>(i), std::memory_order_relaxed);
    });
    targets.each(write_if_recorded);
  } else {
    const std::int64_t k = targets.sources();
    auto recorded = buffer<P>::for_overwrite(k);
    P* r = recorded.data();
    targets.each([&](std::int64_t i, std::int64_t t) {
      r[i] = static_cast<P>(t);
      std::atomic_ref<P>(p[t]).store(static_cast<P>(i), std::memory_order_relaxed);
    });
    if (targets.bad->any()) return true;  // r has holes; the caller throws
    parallel_for(k, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) write_if_recorded(i, static_cast<std::int64_t>(r[i]));
    });
  }
  return !repeated.load();
}

template <class T, class Targets, class In>
bool scatter_distinct(const Targets& targets, std::int64_t n, In in, T* o) {
  if constexpr (plain_atomic_store<T>()) {
    return scatter_marked(targets, n, in, o);
  } else {
    constexpr std::int64_t narrow = std::numeric_limits<std::int32_t>::max();
    if (targets.sources() <= narrow && n <= narrow) return scatter_distinct_with<std::int32_t>(targets, n, in, o);
    return scatter_distinct_with<std::int64_t>(targets, n, in, o);
  }
}

// o[t] = in[i] for every pair, the largest i winning when a target repeats
// (o holds the defaults beforehand). One compare-and-swap per element: the
// path for input whose targets do repeat.
template <class T, class Targets>
void scatter_last_wins(const Targets& targets, std::int64_t n, const T* in, T* o) {
  auto winner = buffer<std::int64_t>::filled(n, -1);
  std::int64_t* w = winner.data();
  targets.each([&](std::int64_t i, std::int64_t t) {
    std::atomic_ref<std::int64_t> slot(w[t]);
    std::int64_t seen = slot.load(std::memory_order_relaxed);
    while (seen < i && !slot.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
    }
  });
  targets.each([&](std::int64_t i, std::int64_t t) {
    if (w[t] == i) o[t] = in[i];
  });
}

// A permutation scatter: o[t] = in[i], every target of [0, n) exactly once.
// Returns false when a target repeats (o is then partly written); an index
// out of range is noted in the targets' first_bad. `in` is a pointer to the
// sources or anything else with in[i] (positions_as).
template <class T, class Targets, class In>
bool scatter_permutation(const Targets& targets, std::int64_t n, In in, T* o) {
  if (targets.sources() <= tuning::serial_cutoff) {
    std::vector<unsigned char> taken(static_cast<std::size_t>(n), 0);
    bool distinct = true;
    targets.each_in_order([&](std::int64_t i, std::int64_t t) {
      auto& mark = taken[static_cast<std::size_t>(t)];
      distinct = distinct && mark == 0;
      mark = 1;
      o[t] = in[i];
    });
    return distinct;
  }
  if (targets.sources() != n) return false;  // cannot be a permutation
  return scatter_distinct(targets, n, in, o);
}

// o = def, then o[t] = in[i] for every pair, the later position winning when
// a target repeats.
template <class T, class Targets>
void scatter_over_defaults(const Targets& targets, std::int64_t n, const T* def, const T* in, T* o) {
  parallel_for(n, [&](std::int64_t lo, std::int64_t hi) { std::copy(def + lo, def + hi, o + lo); });
  if (targets.sources() <= tuning::serial_cutoff) {
    targets.each_in_order([&](std::int64_t i, std::int64_t t) { o[t] = in[i]; });
    return;
  }
  if (scatter_distinct(targets, n, in, o)) return;
  // A target repeats and o holds an arbitrary writer's value there: redo
  // the targets with the last writer winning (the defaults stay untouched,
  // as every target of the first pass is a target again).
  scatter_last_wins(targets, n, in, o);
}

}  // namespace detail

// result[indices[i]] = xs[i]; indices must be a permutation of [0, n).
template <contiguous_input R, contiguous_input Indices>
array<element_t<R>> permute_unchecked(const R& xs, const Indices& indices) {
  using T = element_t<R>;
  auto in = detail::as_span(xs);
  auto idx = detail::as_span(indices);
  auto out = buffer<T>::for_overwrite(detail::ssize(xs));
  T* o = out.data();
  detail::parallel_for(detail::ssize(xs), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) o[static_cast<std::size_t>(idx[i])] = in[i];
  });
  return std::move(out).freeze();
}

namespace detail {

// The sources of inverse_permutation: element i is i, as an I.
template <class I>
struct positions_as {
  I operator[](std::int64_t i) const noexcept { return static_cast<I>(i); }
};

// result[indices[i]] = in[i] for i in [0, n), checked to be a permutation;
// `op` names the caller in the errors.
template <class T, class In, class Indices>
array<T> permute_checked(const char* op, In in, const Indices& indices) {
  const std::int64_t n = ssize(indices);
  auto idx = as_span(indices);
  first_bad bad;
  const flat_targets<element_t<Indices>> targets{idx, n, &bad};
  auto out = buffer<T>::for_overwrite(n);
  const bool distinct = scatter_permutation(targets, n, in, out.data());
  if (!distinct || bad.any()) {
    // The failures are found again serially, so the first is named.
    const std::int64_t out_of_range = bad.any() ? bad.position() : n;
    const std::int64_t repeat = first_repeat(targets, n);
    if (repeat >= 0 && repeat < out_of_range)
      throw_out_of_range(op, "index ", static_cast<std::int64_t>(idx[static_cast<std::size_t>(repeat)]),
                         " at position ", repeat, " repeats: the indices are not a permutation");
    throw_out_of_range(op, "index ", static_cast<std::int64_t>(idx[static_cast<std::size_t>(out_of_range)]),
                       " at position ", out_of_range, " outside [0, ", n, ")");
  }
  return std::move(out).freeze();
}

}  // namespace detail

// result[indices[i]] = xs[i]: a scatter. Throws std::invalid_argument on a
// size mismatch and std::out_of_range unless indices is a permutation of
// [0, n), naming the first position whose index is out of range or repeats
// an earlier one.
template <contiguous_input R, contiguous_input Indices>
array<element_t<R>> permute(const R& xs, const Indices& indices) {
  detail::check_same_size("permute", "xs", detail::ssize(xs), "indices", detail::ssize(indices));
  return detail::permute_checked<element_t<R>>("permute", detail::as_span(xs).data(), indices);
}

// The inverse of a permutation: result[indices[i]] = i, in the indices'
// type; permute(iota(n), indices) without reading an iota. Throws
// std::out_of_range unless indices is a permutation of [0, n), naming the
// first position whose index is out of range or repeats an earlier one.
template <contiguous_input Indices>
array<element_t<Indices>> inverse_permutation(const Indices& indices) {
  using I = element_t<Indices>;
  return detail::permute_checked<I>("inverse_permutation", detail::positions_as<I>{}, indices);
}

// inverse_permutation without the checks: indices must be a permutation of
// [0, n).
template <contiguous_input Indices>
array<element_t<Indices>> inverse_permutation_unchecked(const Indices& indices) {
  using I = element_t<Indices>;
  auto idx = detail::as_span(indices);
  auto out = buffer<I>::for_overwrite(detail::ssize(indices));
  I* o = out.data();
  detail::parallel_for(detail::ssize(indices), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) o[static_cast<std::size_t>(idx[i])] = static_cast<I>(i);
  });
  return std::move(out).freeze();
}

// A copy of defaults with result[indices[i]] = xs[i]; when an index repeats,
// the value at the later position wins (deterministically). Throws
// std::invalid_argument on a size mismatch, std::out_of_range for an index
// outside [0, defaults.size()). O(n + k) work, no lock per element unless an
// index repeats.
template <contiguous_input D, contiguous_input R, contiguous_input Indices>
array<element_t<D>> permute_default(const D& defaults, const R& xs, const Indices& indices) {
  using T = element_t<D>;
  const std::int64_t n = detail::ssize(defaults);
  const std::int64_t k = detail::ssize(xs);
  detail::check_same_size("permute_default", "xs", k, "indices", detail::ssize(indices));
  auto idx = detail::as_span(indices);
  detail::first_bad bad;
  const detail::flat_targets<element_t<Indices>> targets{idx, n, &bad};
  auto out = buffer<T>::for_overwrite(n);
  detail::scatter_over_defaults(targets, n, detail::as_span(defaults).data(), detail::as_span(xs).data(),
                                out.data());
  if (bad.any())
    detail::throw_out_of_range("permute_default", "index ",
                               static_cast<std::int64_t>(idx[static_cast<std::size_t>(bad.position())]),
                               " at position ", bad.position(), " outside [0, ", n, ")");
  return std::move(out).freeze();
}

}  // namespace vseg
