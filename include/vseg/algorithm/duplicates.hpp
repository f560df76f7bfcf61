// remove_duplicates, unique and unique_s: dropping repeated values.
//
// Values are equal as keys are elsewhere (vseg/algorithm/keys.hpp): for
// arithmetic types when their sort words are (so for floating point -0.0
// and +0.0 differ and NaNs with the same bits are equal; otherwise ==),
// for other types by == (remove_duplicates also needs std::hash). unique
// and unique_s take another equality as an argument.
//
// remove_duplicates hashes: the values are spread stably into buckets by
// the high bits of their hash (one counting-sort pass), then each bucket,
// small enough for the cache, is scanned in input order with a private
// hash table, so the first occurrence of every value is the one kept
// whatever the thread count. Notes/algorithms.md has the sort-based
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
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/radix_sort.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat/pack.hpp"
#include "vseg/flat/permute.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/segmented_array.hpp"
#include "vseg/tuning.hpp"

namespace vseg {

namespace detail {

// Key equality (see the header comment).
struct key_equal {
  template <class T>
  bool operator()(const T& a, const T& b) const {
    if constexpr (radix_key<T>) return radix_word(a) == radix_word(b);
    else return a == b;
  }
};

// A well-mixed 64-bit hash of a key (the splitmix64 finaliser over the
// sort word or std::hash).
template <class T>
std::uint64_t key_hash(const T& x) {
  std::uint64_t z;
  if constexpr (radix_key<T>) z = static_cast<std::uint64_t>(radix_word(x));
  else z = static_cast<std::uint64_t>(std::hash<T>{}(x));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A value and its position, spread into a bucket.
template <class T, class I>
struct bucketed {
  T value;
  I position;
};

// keep[i] = whether xs[i] is the first occurrence of its value; I holds a
// position below n (not its largest value). O(n) expected work.
template <class T, class I>
void mark_first_occurrences(const T* xs, std::int64_t n, bool* keep) {
  // Buckets of about tuning::dedup_bucket values; a power of two, so the
  // top bits of the hash pick one.
  const std::int64_t wanted = std::max<std::int64_t>(1, n / tuning::dedup_bucket);
  const int bits = std::min(static_cast<int>(std::bit_width(static_cast<std::uint64_t>(wanted - 1))),
                            static_cast<int>(tuning::dedup_max_bucket_bits));
  const std::int64_t buckets = std::int64_t{1} << bits;
  auto bucket_of = [bits](const T& x) {
    return bits == 0 ? std::int64_t{0} : static_cast<std::int64_t>(key_hash(x) >> (64 - bits));
  };
  // One stable counting-sort pass over fixed blocks, as in radix_sort.
  const std::int64_t block = std::max(tuning::radix_block, (n + tuning::radix_max_blocks - 1) / tuning::radix_max_blocks);
  const std::int64_t blocks = block_count(n, block);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(blocks * buckets), 0);
  for_each_block(n, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
    std::int64_t* c = counts.data() + b * buckets;
    for (std::int64_t i = lo; i < hi; ++i) ++c[bucket_of(xs[i])];
  });
  std::vector<std::int64_t> starts(static_cast<std::size_t>(buckets + 1));
  std::int64_t total = 0;
  for (std::int64_t d = 0; d < buckets; ++d) {
    starts[static_cast<std::size_t>(d)] = total;
    for (std::int64_t b = 0; b < blocks; ++b) {
      std::int64_t& c = counts[static_cast<std::size_t>(b * buckets + d)];
      const std::int64_t k = c;
      c = total;
      total += k;
    }
  }
  starts[static_cast<std::size_t>(buckets)] = n;
  using item = bucketed<T, I>;
  auto spread = buffer<item>::for_overwrite(n);
  item* s = spread.data();
  for_each_block(n, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
    std::int64_t* c = counts.data() + b * buckets;
    for (std::int64_t i = lo; i < hi; ++i) s[c[bucket_of(xs[i])]++] = item{xs[i], static_cast<I>(i)};
  });
  // Each bucket in input order, with a private open-addressing table of
  // positions in the bucket (`empty`: none).
  constexpr I empty = std::numeric_limits<I>::max();
  parallel_for(buckets, 1, [&](std::int64_t lo, std::int64_t hi) {
    std::vector<I> table;
    for (std::int64_t d = lo; d < hi; ++d) {
      const item* first = s + starts[static_cast<std::size_t>(d)];
      const std::int64_t len = starts[static_cast<std::size_t>(d + 1)] - starts[static_cast<std::size_t>(d)];
      const std::uint64_t size = std::bit_ceil(static_cast<std::uint64_t>(2 * len + 2));
      const std::uint64_t mask = size - 1;
      table.assign(size, empty);
      for (std::int64_t k = 0; k < len; ++k) {
        std::uint64_t h = key_hash(first[k].value) & mask;
        bool seen = false;
        for (;;) {
          const I at = table[h];
          if (at == empty) break;
          if (key_equal{}(first[at].value, first[k].value)) {
            seen = true;
            break;
          }
          h = (h + 1) & mask;
        }
        if (!seen) table[h] = static_cast<I>(k);
        keep[first[k].position] = !seen;
      }
    }
  });
}

}  // namespace detail

// The first occurrence of every value of xs, in input order. T must be
// arithmetic or have std::hash and ==. O(n) expected work.
template <contiguous_input R>
array<element_t<R>> remove_duplicates(const R& xs) {
  using T = element_t<R>;
  const std::int64_t n = detail::ssize(xs);
  const T* in = detail::as_span(xs).data();
  auto keep = buffer<bool>::for_overwrite(n);
  if (n <= std::numeric_limits<std::uint32_t>::max() - 1)
    detail::mark_first_occurrences<T, std::uint32_t>(in, n, keep.data());
  else
    detail::mark_first_occurrences<T, std::uint64_t>(in, n, keep.data());
  return pack(xs, std::move(keep).freeze());
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
