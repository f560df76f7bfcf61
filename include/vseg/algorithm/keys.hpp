// Operations on keys: reduce_by_key, group_by_key, histogram_by_key and
// histogram.
//
// The *_by_key operations list the distinct keys in ascending order and
// every key's values in input order. group_by_key, and the others for keys
// that are not arithmetic or ordered otherwise than by std::less or
// std::greater, sort the pairs stably (vseg/algorithm/sort.hpp) and fold
// the runs with fold_s; reduce_by_key and histogram_by_key on arithmetic
// keys instead fold every key left to right in input order while hashing
// (detail/hash_buckets.hpp) and then sort only the distinct keys. Either
// way the order of combination is fixed, so floating-point results are the
// same on any number of threads. Keys are distinct as the sort orders them: for floating point by
// IEEE 754's totalOrder, so -0.0 and +0.0 are two keys and NaNs with the
// same bits one key.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <tuple>
#include <utility>
#include <vector>

#include "vseg/algorithm/sort.hpp"
#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/hash_buckets.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat/pack.hpp"
#include "vseg/flat/permute.hpp"
#include "vseg/monoid.hpp"
#include "vseg/nested/nested.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/fold.hpp"
#include "vseg/tuning.hpp"

namespace vseg {

namespace detail {

// The runs of equal keys in sorted keys: the first key of each run and the
// descriptor of the runs. O(n).
template <class K, class Less>
std::pair<array<K>, segd> key_runs(const array<K>& sorted, const Less& less) {
  const std::int64_t n = sorted.size();
  const key_order<K, Less> order{less};
  auto heads = buffer<bool>::for_overwrite(n);
  bool* h = heads.data();
  const K* k = sorted.data();
  parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) h[i] = i == 0 || order(k[i - 1], k[i]);
  });
  const array<std::int64_t> starts = pack_index(std::move(heads).freeze());
  const std::int64_t runs = starts.size();
  auto lengths = buffer<std::int64_t>::for_overwrite(runs);
  std::int64_t* len = lengths.data();
  const std::int64_t* st = starts.data();
  parallel_for(runs, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t j = lo; j < hi; ++j) len[j] = (j + 1 < runs ? st[j + 1] : n) - st[j];
  });
  return {bpermute_unchecked(sorted, starts), segd::from_lengths(std::move(lengths).freeze())};
}

// Whether the *_by_key operations hash instead of sorting all n pairs:
// arithmetic keys under std::less or std::greater (only then does the sort
// of the distinct keys give the order of the full sort), and positions that
// fit the bucket tables' 32 bits.
template <class K, class Less>
bool hash_by_key(std::int64_t n) {
  return radix_direction<K, Less>() != 0 && n < std::int64_t{std::numeric_limits<std::uint32_t>::max()};
}

// Sorts the pairs (k[i], v[i]), i in [0, n), stably by order into ko, vo,
// serially: by insertion up to insertion_cutoff (no allocation), otherwise
// std::stable_sort of the positions. O(n^2), resp. O(n log n), work.
template <class K, class V, class Order>
void sort_pairs_serial(const K* k, const V* v, K* ko, V* vo, std::int64_t n, const Order& order) {
  if (n <= insertion_cutoff) {
    for (std::int64_t i = 0; i < n; ++i) {
      K x = k[i];
      V y = v[i];
      std::int64_t j = i;
      for (; j > 0 && order(x, ko[j - 1]); --j) {
        ko[j] = std::move(ko[j - 1]);
        vo[j] = std::move(vo[j - 1]);
      }
      ko[j] = std::move(x);
      vo[j] = std::move(y);
    }
    return;
  }
  std::vector<std::int64_t> at(static_cast<std::size_t>(n));
  std::iota(at.begin(), at.end(), std::int64_t{0});
  std::stable_sort(at.begin(), at.end(), [&](std::int64_t a, std::int64_t b) { return order(k[a], k[b]); });
  for (std::int64_t i = 0; i < n; ++i) {
    ko[i] = k[at[static_cast<std::size_t>(i)]];
    vo[i] = v[at[static_cast<std::size_t>(i)]];
  }
}

}  // namespace detail

// One entry per distinct key, keys ascending by less, each value the
// monoid's fold of that key's values in input order. Throws
// std::invalid_argument when the sizes differ. O(n) work for arithmetic
// keys (radix sort), O(n log n) otherwise.
template <contiguous_input RK, contiguous_input RV, class Monoid = plus<element_t<RV>>, class Less = std::less<>>
  requires monoid_for<Monoid, element_t<RV>>
std::pair<array<element_t<RK>>, array<element_t<RV>>> reduce_by_key(const RK& keys, const RV& values,
                                                                      Monoid monoid = {}, Less less = {}) {
  using K = element_t<RK>;
  using V = element_t<RV>;
  const std::int64_t n = detail::ssize(keys);
  detail::check_same_size("reduce_by_key", "keys", n, "values", detail::ssize(values));
  if (detail::hash_by_key<K, Less>(n)) {
    // Fold per distinct key by hashing, then sort only the distinct keys.
    using item = detail::keyed<K, V>;
    const K* k = detail::as_span(keys).data();
    const V* v = detail::as_span(values).data();
    auto [ks, vs] = detail::hash_reduce<K, V, item>(
        k, n, [k, v](std::int64_t i) { return item{k[i], v[i]}; }, [](const item& x) { return x.key; },
        [](const item& x) { return x.value; }, monoid);
    return sort_by_key(ks, vs, less);
  }
  auto [sorted_keys, sorted_values] = sort_by_key(keys, values, less);
  auto [distinct, runs] = detail::key_runs(sorted_keys, less);
  return {std::move(distinct),
          detail::fold_s_checked<element_t<RV>>("reduce_by_key", runs, sorted_values.span(), monoid)};
}

// reduce_by_key within every segment of s: segment j of the result holds
// segment j's distinct keys ascending by less, each with the monoid's fold
// of its values in input order (from the identity, left to right). Returns
// (the result's descriptor, its keys, its values). Throws
// std::invalid_argument when the sizes differ or s does not cover them.
// O(n log L) work for segments shorter than tuning::serial_cutoff (L their
// length; a segment of up to 32 is sorted by insertion, without
// allocating), O(n) for longer ones with arithmetic keys.
template <contiguous_input RK, contiguous_input RV, class Monoid = plus<element_t<RV>>, class Less = std::less<>>
  requires monoid_for<Monoid, element_t<RV>>
std::tuple<segd, array<element_t<RK>>, array<element_t<RV>>> reduce_by_key_s(const segd& s, const RK& keys,
                                                                             const RV& values, Monoid monoid = {},
                                                                             Less less = {}) {
  using K = element_t<RK>;
  using V = element_t<RV>;
  const std::int64_t n = detail::ssize(keys);
  detail::check_same_size("reduce_by_key_s", "keys", n, "values", detail::ssize(values));
  check_covers("reduce_by_key_s", s, n);
  const K* k = detail::as_span(keys).data();
  const V* v = detail::as_span(values).data();
  const detail::key_order<K, Less> order{less};
  // Pass 1: every segment's pairs sorted by key (short segments serially,
  // many at a time; a long one in parallel) and its distinct keys counted.
  auto sorted_keys = buffer<K>::for_overwrite(n);
  auto sorted_values = buffer<V>::for_overwrite(n);
  auto counts = buffer<std::int64_t>::for_overwrite(s.segments());
  K* sk = sorted_keys.data();
  V* sv = sorted_values.data();
  std::int64_t* c = counts.data();
  detail::parallel_for(s.segments(), tuning::segments_per_task, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t j = lo; j < hi; ++j) {
      const std::int64_t start = s.start(j);
      const std::int64_t length = s.length(j);
      if (length > tuning::serial_cutoff) {
        detail::sort_by_key_into(k + start, v + start, sk + start, sv + start, length, less);
      } else {
        detail::sort_pairs_serial(k + start, v + start, sk + start, sv + start, length, order);
      }
      std::int64_t distinct = length > 0 ? 1 : 0;
      for (std::int64_t i = start + 1; i < start + length; ++i) distinct += order(sk[i - 1], sk[i]) ? 1 : 0;
      c[j] = distinct;
    }
  });
  // Pass 2: every run of equal keys folded into its place in the result.
  segd shape = segd::from_lengths(std::move(counts).freeze());
  auto out_keys = buffer<K>::for_overwrite(shape.elements());
  auto out_values = buffer<V>::for_overwrite(shape.elements());
  K* ok = out_keys.data();
  V* ov = out_values.data();
  detail::parallel_for(s.segments(), tuning::segments_per_task, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t j = lo; j < hi; ++j) {
      const std::int64_t end = s.start(j) + s.length(j);
      std::int64_t at = shape.start(j);
      for (std::int64_t i = s.start(j); i < end; ++at) {
        V acc = monoid(monoid.identity(), sv[i]);
        const std::int64_t first = i;
        for (++i; i < end && !order(sk[first], sk[i]); ++i) acc = monoid(acc, sv[i]);
        ok[at] = sk[first];
        ov[at] = std::move(acc);
      }
    }
  });
  return {std::move(shape), std::move(out_keys).freeze(), std::move(out_values).freeze()};
}

// The distinct keys ascending by less, each with its values in input order
// (segment j of the nested array belongs to key j). Throws
// std::invalid_argument when the sizes differ. O(n) work for arithmetic
// keys, O(n log n) otherwise.
template <contiguous_input RK, contiguous_input RV, class Less = std::less<>>
std::pair<array<element_t<RK>>, nested<element_t<RV>>> group_by_key(const RK& keys, const RV& values,
                                                                     Less less = {}) {
  detail::check_same_size("group_by_key", "keys", detail::ssize(keys), "values", detail::ssize(values));
  auto [sorted_keys, sorted_values] = sort_by_key(keys, values, less);
  auto [distinct, runs] = detail::key_runs(sorted_keys, less);
  return {std::move(distinct), nested<element_t<RV>>::from_segd(runs, std::move(sorted_values))};
}

// The distinct keys ascending by less, with how often each occurs. O(n)
// work for arithmetic keys, O(n log n) otherwise.
template <contiguous_input RK, class Less = std::less<>>
std::pair<array<element_t<RK>>, array<std::int64_t>> histogram_by_key(const RK& keys, Less less = {}) {
  using K = element_t<RK>;
  const std::int64_t n = detail::ssize(keys);
  if (detail::hash_by_key<K, Less>(n)) {
    // Only the keys are spread: every value is 1.
    const K* k = detail::as_span(keys).data();
    auto [ks, cs] = detail::hash_reduce<K, std::int64_t, K>(
        k, n, [k](std::int64_t i) { return k[i]; }, [](const K& x) { return x; },
        [](const K&) { return std::int64_t{1}; }, plus<std::int64_t>{});
    return sort_by_key(ks, cs, less);
  }
  auto [distinct, runs] = detail::key_runs(sort(keys, less), less);
  return {std::move(distinct), runs.lengths()};
}

// counts[b] = how many ids equal b, for b in [0, buckets). Throws
// std::invalid_argument for negative buckets and std::out_of_range naming
// the first position whose id is outside [0, buckets). O(n + buckets)
// work: per-block counts when there are few buckets, atomic increments
// otherwise.
template <contiguous_input RI>
  requires detail::integer_index<element_t<RI>>
array<std::int64_t> histogram(const RI& bucket_ids, std::int64_t buckets) {
  if (buckets < 0) detail::throw_invalid("histogram", "buckets is ", buckets, ", must be at least 0");
  const auto ids = detail::as_span(bucket_ids);
  const std::int64_t n = detail::ssize(bucket_ids);
  const std::int64_t block = tuning::flat_block;
  const std::int64_t blocks = detail::block_count(n, block);
  detail::first_bad bad;
  auto out = buffer<std::int64_t>::filled(buckets, 0);
  std::int64_t* counts = out.data();
  if (blocks <= 1 || buckets * blocks <= 4 * n) {
    // Few buckets: one row of counts per fixed block, summed per bucket.
    std::vector<std::int64_t> rows(static_cast<std::size_t>(blocks * buckets), 0);
    detail::for_each_block(n, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
      std::int64_t* row = rows.data() + b * buckets;
      for (std::int64_t i = lo; i < hi; ++i) {
        const auto id = static_cast<std::int64_t>(ids[static_cast<std::size_t>(i)]);
        if (detail::in_range(id, buckets)) ++row[id];
        else bad.note(i);
      }
    });
    detail::parallel_for(buckets, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t b = 0; b < blocks; ++b)
        for (std::int64_t k = lo; k < hi; ++k) counts[k] += rows[static_cast<std::size_t>(b * buckets + k)];
    });
  } else {
    // Many buckets: relaxed atomic increments (integer sums, so the counts
    // do not depend on the order).
    detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) {
        const auto id = static_cast<std::int64_t>(ids[static_cast<std::size_t>(i)]);
        if (detail::in_range(id, buckets)) std::atomic_ref<std::int64_t>(counts[id]).fetch_add(1, std::memory_order_relaxed);
        else bad.note(i);
      }
    });
  }
  if (bad.any())
    detail::throw_out_of_range("histogram", "id ", static_cast<std::int64_t>(ids[static_cast<std::size_t>(bad.position())]),
                               " at position ", bad.position(), " outside [0, ", buckets, ")");
  return std::move(out).freeze();
}

}  // namespace vseg
