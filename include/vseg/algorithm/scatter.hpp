// scatter and scatter_into: dest[ids[i]] = values[i] into a copy of dest or
// into caller memory, with a rule for ids that repeat:
//
//   last_wins{}    the value of the highest position i (the default);
//   first_wins{}   the value of the lowest position i;
//   a monoid / op  (plus{}, minimum{}, maximum{}, any op(T, T) -> T): every
//                  value is folded into the existing one in increasing i,
//                  dest[t] = op(...op(op(dest[t], v_i1), v_i2)..., v_iN),
//                  so a floating-point sum has the same bits on any number
//                  of threads.
//
// The last-wins scatter runs on the engine of vseg/detail/scatter.hpp (one
// random pass with marks when the ids are distinct). A combining scatter
// first checks whether the ids are distinct (one pass of byte marks) and then
// combines in place in parallel; only when an id repeats does it sort the
// (id, position) pairs, whose keys are unique, so the order is deterministic.
// A scatter of few sources into a large destination (hundreds to thousands
// of destination elements per source: tuning::sparse_scatter_ratio_*) sorts
// the pairs under every rule, so its work follows the sources, not dest.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "vseg/algorithm/gather.hpp"
#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/detail/scatter.hpp"
#include "vseg/flat/permute.hpp"
#include "vseg/tuning.hpp"

namespace vseg {

// The combining rule of a scatter: the lowest position's value wins.
struct first_wins {};
// The combining rule of a scatter: the highest position's value wins.
struct last_wins {};

namespace detail {

// o[t] = in[i] for the lowest i of every target: one compare-and-swap per
// source to find the winner, then the winners write. O(sources + n).
template <class T, class Targets>
void scatter_first_wins(const Targets& targets, std::int64_t n, const T* in, T* o) {
  auto winner = buffer<std::int64_t>::filled(n, std::numeric_limits<std::int64_t>::max());
  std::int64_t* w = winner.data();
  targets.each([&](std::int64_t i, std::int64_t t) {
    std::atomic_ref<std::int64_t> slot(w[t]);
    std::int64_t seen = slot.load(std::memory_order_relaxed);
    while (i < seen && !slot.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
    }
  });
  targets.each([&](std::int64_t i, std::int64_t t) {
    if (w[t] == i) o[t] = in[i];
  });
}

// Whether the in-range targets are pairwise distinct: one pass of relaxed
// byte exchanges. O(sources + n).
template <class Targets>
bool targets_distinct(const Targets& targets, std::int64_t n) {
  auto marks = buffer<scatter_mark>::filled(n, scatter_mark::unset);
  scatter_mark* mark = marks.data();
  std::atomic<bool> repeated{false};
  targets.each([&](std::int64_t, std::int64_t t) {
    if (std::atomic_ref<scatter_mark>(mark[t]).exchange(scatter_mark::set, std::memory_order_relaxed) ==
        scatter_mark::set)
      repeated.store(true, std::memory_order_relaxed);
  });
  return !repeated.load();
}

// The (target, position) pairs of the sources, sorted: each target's run in
// increasing position. The pairs are distinct, so any sort orders them the
// same. O(sources log sources).
template <class I>
std::vector<std::pair<std::int64_t, std::int64_t>> sorted_targets(std::span<const I> idx) {
  const auto k = static_cast<std::int64_t>(idx.size());
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs(static_cast<std::size_t>(k));
  parallel_for(k, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i)
      pairs[static_cast<std::size_t>(i)] = {static_cast<std::int64_t>(idx[static_cast<std::size_t>(i)]), i};
  });
  parallel_sort(pairs.begin(), pairs.end());
  return pairs;
}

// o[t] for every target's run of the sorted pairs: the run's first source
// (first_wins), its last (last_wins), or o[t] folded with all of them in
// increasing position (an op). Each chunk takes the runs that start in it.
// O(sources).
template <class T, class Combine>
void scatter_by_runs(const std::vector<std::pair<std::int64_t, std::int64_t>>& pairs, const T* in, T* o,
                     const Combine& combine) {
  const auto k = static_cast<std::int64_t>(pairs.size());
  const auto* p = pairs.data();
  parallel_for(k, [&](std::int64_t lo, std::int64_t hi) {
    std::int64_t r = lo;
    while (r > 0 && r < hi && p[r].first == p[r - 1].first) ++r;
    while (r < hi) {
      const std::int64_t t = p[r].first;
      if constexpr (std::is_same_v<Combine, first_wins>) {
        o[t] = in[p[r].second];
        while (r < k && p[r].first == t) ++r;
      } else if constexpr (std::is_same_v<Combine, last_wins>) {
        while (r + 1 < k && p[r + 1].first == t) ++r;
        o[t] = in[p[r++].second];
      } else {
        T acc = o[t];
        for (; r < k && p[r].first == t; ++r) acc = combine(acc, in[p[r].second]);
        o[t] = acc;
      }
    }
  });
}

// o[t] = op(o[t], in[i]) for every pair, in increasing i per target. The
// targets must be in range. O(sources + n) when they are distinct,
// O(sources log sources) when one repeats.
template <class T, class I, class Op>
void scatter_combine(std::span<const I> idx, std::int64_t n, const T* in, T* o, const Op& op) {
  const auto k = static_cast<std::int64_t>(idx.size());
  if (k <= tuning::serial_cutoff) {
    for (std::int64_t i = 0; i < k; ++i) {
      const auto t = static_cast<std::int64_t>(idx[static_cast<std::size_t>(i)]);
      o[t] = op(o[t], in[i]);
    }
    return;
  }
  first_bad bad;
  const flat_targets<I> targets{idx, n, &bad};
  if (targets_distinct(targets, n)) {
    targets.each([&](std::int64_t i, std::int64_t t) { o[t] = op(o[t], in[i]); });
    return;
  }
  scatter_by_runs(sorted_targets(idx), in, o, op);
}

// dest[ids[i]] = values[i] by the rule `combine`, into dest; the checks first,
// so nothing is written when they fail.
template <class T, class I, class Combine>
void scatter_checked(const char* op, std::span<T> dest, std::span<const I> idx, std::span<const T> values,
                     const Combine& combine) {
  check_same_size(op, "ids", static_cast<long long>(idx.size()), "values", static_cast<long long>(values.size()));
  const auto n = static_cast<std::int64_t>(dest.size());
  const auto k = static_cast<std::int64_t>(idx.size());
  check_ids(op, idx, n, "the size of dest");
  T* o = dest.data();
  const T* in = values.data();
  // Few sources into a large destination: sorting them costs less than the
  // winners (first-wins) or marks (the others), one per destination element,
  // the other paths fill.
  constexpr std::int64_t sparse_ratio = std::is_same_v<Combine, first_wins> ? tuning::sparse_scatter_ratio_winners
                                                                             : tuning::sparse_scatter_ratio_marks;
  if (k > tuning::serial_cutoff && k < n / sparse_ratio) {
    scatter_by_runs(sorted_targets(idx), in, o, combine);
    return;
  }
  if constexpr (std::is_same_v<Combine, last_wins> || std::is_same_v<Combine, first_wins>) {
    constexpr bool last = std::is_same_v<Combine, last_wins>;
    if (k <= tuning::serial_cutoff) {
      // In order for last-wins, in reverse for first-wins: the winner writes last.
      for (std::int64_t j = 0; j < k; ++j) {
        const std::int64_t i = last ? j : k - 1 - j;
        o[static_cast<std::int64_t>(idx[static_cast<std::size_t>(i)])] = in[i];
      }
      return;
    }
    first_bad bad;
    const flat_targets<I> targets{idx, n, &bad};
    if constexpr (last) {
      scatter_later_wins(targets, n, in, o);
    } else {
      scatter_first_wins(targets, n, in, o);
    }
  } else {
    static_assert(std::is_invocable_r_v<T, const Combine&, const T&, const T&>,
                  "combine must be first_wins, last_wins or an operation T(T, T) such as vseg::plus<T>");
    scatter_combine(idx, n, in, o, combine);
  }
}

// dest[ids[i]] = value for every i, into dest; the checks first. Repeated
// ids write the same value, so one parallel pass of relaxed stores suffices
// (no marks, no winner to find).
template <class T, class I>
void scatter_value_checked(const char* op, std::span<T> dest, std::span<const I> idx, const T& value) {
  const auto n = static_cast<std::int64_t>(dest.size());
  const auto k = static_cast<std::int64_t>(idx.size());
  check_ids(op, idx, n, "the size of dest");
  T* o = dest.data();
  if constexpr (std::atomic_ref<T>::is_always_lock_free) {
    detail::parallel_for(k, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i)
        std::atomic_ref<T>(o[static_cast<std::int64_t>(idx[static_cast<std::size_t>(i)])])
            .store(value, std::memory_order_relaxed);
    });
  } else {
    for (std::int64_t i = 0; i < k; ++i) o[static_cast<std::int64_t>(idx[static_cast<std::size_t>(i)])] = value;
  }
}

}  // namespace detail

// dest[ids[i]] = values[i] in caller memory (a span, vector, ...), repeated
// ids resolved by combine (last_wins by default, first_wins, or a monoid
// folded in increasing i). O(ids + dest) work; O(ids log ids) for a monoid
// with repeated ids. Throws std::invalid_argument on a size mismatch and
// std::out_of_range naming the position and the id; nothing is written then.
template <class Dest, contiguous_input Indices, contiguous_input Values, class Combine = last_wins>
  requires std::ranges::contiguous_range<Dest&> && std::ranges::sized_range<Dest&>
void scatter_into(Dest&& dest, const Indices& ids, const Values& values, const Combine& combine = {}) {
  using T = std::ranges::range_value_t<Dest&>;
  static_assert(std::is_same_v<T, element_t<Values>>, "values must have dest's element type");
  std::span<T> out(std::ranges::data(dest), std::ranges::size(dest));
  detail::scatter_checked("scatter_into", out, detail::as_span(ids), detail::as_span(values), combine);
}

// dest[ids[i]] = value for every i, in caller memory (the sieve's "strike
// out these positions"); repeated ids are harmless. O(ids) work, one pass.
// Throws std::out_of_range naming the position and the id; nothing is
// written then.
template <class Dest, contiguous_input Indices>
  requires std::ranges::contiguous_range<Dest&> && std::ranges::sized_range<Dest&>
void scatter_into(Dest&& dest, const Indices& ids, const std::ranges::range_value_t<Dest&>& value) {
  using T = std::ranges::range_value_t<Dest&>;
  std::span<T> out(std::ranges::data(dest), std::ranges::size(dest));
  detail::scatter_value_checked("scatter_into", out, detail::as_span(ids), value);
}

// A copy of dest with dest[ids[i]] = values[i], repeated ids resolved by
// combine (last_wins by default). O(ids + dest) work; O(ids log ids) for a
// monoid with repeated ids. Throws as scatter_into, naming scatter.
template <contiguous_input D, contiguous_input Indices, contiguous_input Values, class Combine = last_wins>
array<element_t<D>> scatter(const D& dest, const Indices& ids, const Values& values, const Combine& combine = {}) {
  using T = element_t<D>;
  static_assert(std::is_same_v<T, element_t<Values>>, "values must have dest's element type");
  auto d = detail::as_span(dest);
  auto out = buffer<T>::for_overwrite(detail::ssize(dest));
  T* o = out.data();
  detail::parallel_for(out.size(), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) o[i] = d[static_cast<std::size_t>(i)];
  });
  detail::scatter_checked("scatter", out.span(), detail::as_span(ids), detail::as_span(values), combine);
  return std::move(out).freeze();
}

}  // namespace vseg
