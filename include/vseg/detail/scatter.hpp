// The scatter engine behind permute, permute_default, inverse_permutation
// (flat/permute.hpp) and permute_s, permute_default_s
// (segmented/permute.hpp). O(sources + targets) work each.
//
// A scatter is given as "targets": an object with sources() (the number of
// source positions), each(f) calling f(i, t) for every source i and its
// in-range target t in parallel, each_in_order(f) doing the same serially in
// increasing i, a first_bad* `bad` where out-of-range positions are noted,
// and cheap_to_enumerate (whether each() may run twice). flat_targets
// (flat/permute.hpp) and segment_targets (segmented/permute.hpp) are the two.
//
// No lock is taken per element. A parallel scatter stores each value and a
// byte mark at its target in one random pass, then counts the marks in a
// sequential one: as many marks as sources proves the targets distinct,
// which is all permute needs to know and the common case of permute_default
// (scatter_marked). Element types without plain atomic stores first record
// one writer per target and let only it write (scatter_distinct_with).
// permute_default, where the later position wins a repeated target, gives
// each thread a range of targets to store in order instead
// (scatter_last_wins_by_range), on a few threads always and on many only
// once the marks found a repeat. Up to
// tuning::serial_cutoff sources the named serial versions
// (scatter_permutation_serial, scatter_over_defaults_serial) run instead.
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
#include "vseg/tuning.hpp"

namespace vseg::detail {
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
// (o holds the defaults, or any value, beforehand): one serial pass in
// increasing i, so the last store to each target is the last position's.
// No temporary and no atomic: the parallel compare-and-swap per element it
// replaced (the largest position winning in an int64 array of n) took
// 14-46 ms for 1M random targets on 1-2 threads against 3-6 ms for this
// pass (notes/vcode.md, "vseg primitives, driven by the interpreter"). O(sources).
template <class T, class Targets>
void scatter_last_wins(const Targets& targets, const T* in, T* o) {
  targets.each_in_order([in, o](std::int64_t i, std::int64_t t) { o[t] = in[i]; });
}

// scatter_last_wins on every thread: the targets [0, n) are cut into one
// range per thread, and each thread walks all the pairs in increasing i,
// storing only those whose target lies in its range. A target is written by
// one thread only, in order, so the later position wins with no atomic, no
// mark and no buffer, whatever the thread count. Every thread reads every
// index (a sequential read) to do its share of the random stores; the
// stores are what the serial pass waits on (Delaunay at 100,000 points:
// DPERMUTEs of 0.9M INTs with 264k repeated targets into 2.7M).
// O(sources * threads + n) work, O(sources + n / threads) span.
template <class T, class Targets>
void scatter_last_wins_by_range(const Targets& targets, std::int64_t n, const T* in, T* o) {
  const std::int64_t ranges = std::min<std::int64_t>(loop_threads(), n / tuning::serial_cutoff);
  if (ranges <= 1) return scatter_last_wins(targets, in, o);
  parallel_for(ranges, 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t r = lo; r < hi; ++r) {
      const std::int64_t first = n / ranges * r + std::min(r, n % ranges);
      const auto size = static_cast<std::uint64_t>(n / ranges + (r < n % ranges ? 1 : 0));
      if constexpr (std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>) {
        // A store outside the range lands here instead: no branch to
        // mispredict (on random targets and two threads, 4.4 ms with the
        // branch against 1.2 ms without).
        T elsewhere{};
        targets.each_in_order([in, o, first, size, &elsewhere](std::int64_t i, std::int64_t t) {
          T* to = static_cast<std::uint64_t>(t - first) < size ? o + t : &elsewhere;
          *to = in[i];
        });
      } else {
        targets.each_in_order([in, o, first, size](std::int64_t i, std::int64_t t) {
          if (static_cast<std::uint64_t>(t - first) < size) o[t] = in[i];
        });
      }
    }
  });
}

// o[t] = in[i] for every pair over o's present values, the later position
// winning when a target repeats, in parallel. On up to
// tuning::scatter_by_range_threads_max threads, by target ranges; on more,
// first the marked scatter, which is all it takes when no target repeats,
// and only when one does, by target ranges (the defaults stay untouched, as
// every target of the first pass is a target again). O(sources + n) work
// on many threads, O(sources * threads + n) on few.
template <class T, class Targets>
void scatter_later_wins(const Targets& targets, std::int64_t n, const T* in, T* o) {
  if (loop_threads() <= tuning::scatter_by_range_threads_max) return scatter_last_wins_by_range(targets, n, in, o);
  if (scatter_distinct(targets, n, in, o) || targets.bad->any()) return;
  scatter_last_wins_by_range(targets, n, in, o);
}

// The serial version of scatter_permutation: o[t] = in[i] in increasing i;
// false when a target repeats. O(sources + n).
template <class T, class Targets, class In>
bool scatter_permutation_serial(const Targets& targets, std::int64_t n, In in, T* o) {
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

// A permutation scatter: o[t] = in[i], every target of [0, n) exactly once.
// Returns false when a target repeats (o is then partly written); an index
// out of range is noted in the targets' first_bad. `in` is a pointer to the
// sources or anything else with in[i] (positions_as). O(sources + n).
template <class T, class Targets, class In>
bool scatter_permutation(const Targets& targets, std::int64_t n, In in, T* o) {
  if (targets.sources() <= tuning::serial_cutoff) return scatter_permutation_serial(targets, n, in, o);
  if (targets.sources() != n) return false;  // cannot be a permutation
  return scatter_distinct(targets, n, in, o);
}

// The serial version of scatter_over_defaults: o = def, then o[t] = in[i] in
// increasing i (so the later position wins). O(sources + n).
template <class T, class Targets>
void scatter_over_defaults_serial(const Targets& targets, std::int64_t n, const T* def, const T* in, T* o) {
  std::copy(def, def + n, o);
  targets.each_in_order([&](std::int64_t i, std::int64_t t) { o[t] = in[i]; });
}

// o[t] = in[i] for every pair over o's present values (the defaults), the
// later position winning when a target repeats; an index out of range is
// noted in the targets' first_bad. O(sources + n).
template <class T, class Targets>
void scatter_onto(const Targets& targets, std::int64_t n, const T* in, T* o) {
  if (targets.sources() <= tuning::serial_cutoff) return scatter_last_wins(targets, in, o);
  scatter_later_wins(targets, n, in, o);
}

// o = def, then o[t] = in[i] for every pair, the later position winning when
// a target repeats. O(sources + n).
template <class T, class Targets>
void scatter_over_defaults(const Targets& targets, std::int64_t n, const T* def, const T* in, T* o) {
  if (targets.sources() <= tuning::serial_cutoff && n <= tuning::serial_cutoff)
    return scatter_over_defaults_serial(targets, n, def, in, o);
  parallel_for(n, [&](std::int64_t lo, std::int64_t hi) { std::copy(def + lo, def + hi, o + lo); });
  scatter_onto(targets, n, in, o);
}

}  // namespace vseg::detail
