// remove_duplicates, unique and unique_s: dropping repeated values.
//
// Values are equal as keys are elsewhere (vseg/algorithm/keys.hpp): for
// arithmetic types when their sort words are (so for floating point -0.0
// and +0.0 differ and NaNs with the same bits are equal; otherwise ==),
// for other types by == (remove_duplicates also needs std::hash). unique
// and unique_s take another equality as an argument.
//
// remove_duplicates hashes (detail/hash_buckets.hpp): the values are
// spread stably into buckets by the high bits of their hash (one
// counting-sort pass), then each bucket, small enough for the cache, is
// scanned in input order with a private hash table, so the first
// occurrence of every value is the one flagged whatever the thread count;
// one more pass over the input, re-hashing it to follow each block's
// items through the buckets, writes the flagged values in input order. notes/algorithms.md has the sort-based
// alternative and why it lost.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "vseg/algorithm/sort.hpp"
#include "vseg/array.hpp"
#include "vseg/detail/hash_buckets.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/radix_sort.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat/pack.hpp"
#include "vseg/flat/permute.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/segmented_array.hpp"
#include "vseg/tuning.hpp"

namespace vseg {

// The first occurrence of every value of xs, in input order. T must be
// arithmetic or have std::hash and ==. O(n) expected work.
template <contiguous_input R>
array<element_t<R>> remove_duplicates(const R& xs) {
  using T = element_t<R>;
  const std::int64_t n = detail::ssize(xs);
  const T* in = detail::as_span(xs).data();
  if (n <= std::numeric_limits<std::uint32_t>::max() - 1) return detail::first_occurrences<T, std::uint32_t>(in, n);
  return detail::first_occurrences<T, std::uint64_t>(in, n);
}

// xs without the elements equal (by eq) to the element before them: the
// first of every run of equal values, as std::unique keeps. O(n).
template <contiguous_input R, class Equal = detail::key_equal>
array<element_t<R>> unique(const R& xs, Equal eq = {}) {
  using T = element_t<R>;
  const std::int64_t n = detail::ssize(xs);
  const T* in = detail::as_span(xs).data();
  auto keep = buffer<bool>::for_overwrite(n);
  bool* k = keep.data();
  detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) k[i] = i == 0 || !eq(in[i - 1], in[i]);
  });
  return pack(xs, std::move(keep).freeze());
}

// unique within every segment of s: each segment keeps the first of every
// run of equal values (and its first element). Throws
// std::invalid_argument unless s covers xs. O(n + segments log n).
template <contiguous_input R, class Equal = detail::key_equal>
segmented_array<element_t<R>> unique_s(const segd& s, const R& xs, Equal eq = {}) {
  using T = element_t<R>;
  check_covers("unique_s", s, detail::ssize(xs));
  const std::int64_t n = s.elements();
  const T* in = detail::as_span(xs).data();
  auto keep = buffer<bool>::for_overwrite(n);
  bool* k = keep.data();
  detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) k[i] = i == 0 || !eq(in[i - 1], in[i]);
  });
  detail::parallel_for(s.segments(), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t j = lo; j < hi; ++j)
      if (s.length(j) > 0) k[s.start(j)] = true;
  });
  const array<std::int64_t> kept = pack_index(std::move(keep).freeze());
  // A segment's new start: how many kept positions lie before its old one.
  auto lengths = buffer<std::int64_t>::for_overwrite(s.segments());
  std::int64_t* len = lengths.data();
  detail::parallel_for(s.segments(), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t j = lo; j < hi; ++j) {
      const auto first = std::lower_bound(kept.begin(), kept.end(), s.start(j));
      const auto last = std::lower_bound(first, kept.end(), s.end(j));
      len[j] = last - first;
    }
  });
  return {segd::from_lengths(std::move(lengths).freeze()), bpermute_unchecked(xs, kept)};
}

}  // namespace vseg
