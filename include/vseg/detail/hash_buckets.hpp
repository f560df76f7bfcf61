// Hashing in cache-sized buckets: the engine of remove_duplicates and of
// reduce_by_key and histogram_by_key for arithmetic keys
// (vseg/algorithm/duplicates.hpp, keys.hpp). O(n) expected work.
//
// The items are spread stably into 2^bits buckets by the top bits of their
// key's hash (one counting-sort pass over fixed blocks, as a radix pass),
// so each bucket holds its items in input order and is small enough for a
// private hash table in the cache. Scanning a bucket from its first item
// then sees every key's occurrences in input order: the first occurrence
// and a left-to-right fold of a key's values come out the same whatever
// the thread count.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/radix_sort.hpp"
#include "vseg/tuning.hpp"

namespace vseg::detail {

// Key equality: for arithmetic types the equality of their sort words (so
// -0.0 and +0.0 differ, NaNs with the same bits are equal), else ==.
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

// The buckets of a spread: bucket d holds items [starts[d], starts[d + 1]).
struct bucket_layout {
  std::int64_t buckets = 1;
  std::vector<std::int64_t> starts;
};

// Writes make(i) for i in [0, n) to out, stably grouped by the top bits of
// hash(i). O(n + blocks * buckets).
template <class Item, class Hash, class Make>
bucket_layout spread_by_hash(std::int64_t n, const Hash& hash, const Make& make, Item* out) {
  const std::int64_t wanted = std::max<std::int64_t>(1, n / tuning::dedup_bucket);
  const int bits = std::min(static_cast<int>(std::bit_width(static_cast<std::uint64_t>(wanted - 1))),
                            static_cast<int>(tuning::dedup_max_bucket_bits));
  bucket_layout layout;
  layout.buckets = std::int64_t{1} << bits;
  const std::int64_t buckets = layout.buckets;
  auto bucket_of = [&](std::int64_t i) {
    return bits == 0 ? std::int64_t{0} : static_cast<std::int64_t>(hash(i) >> (64 - bits));
  };
  const std::int64_t block = std::max(tuning::radix_block, (n + tuning::radix_max_blocks - 1) / tuning::radix_max_blocks);
  const std::int64_t blocks = block_count(n, block);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(blocks * buckets), 0);
  for_each_block(n, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
    std::int64_t* c = counts.data() + b * buckets;
    for (std::int64_t i = lo; i < hi; ++i) ++c[bucket_of(i)];
  });
  layout.starts.resize(static_cast<std::size_t>(buckets + 1));
  std::int64_t total = 0;
  for (std::int64_t d = 0; d < buckets; ++d) {
    layout.starts[static_cast<std::size_t>(d)] = total;
    for (std::int64_t b = 0; b < blocks; ++b) {
      std::int64_t& c = counts[static_cast<std::size_t>(b * buckets + d)];
      const std::int64_t k = c;
      c = total;
      total += k;
    }
  }
  layout.starts[static_cast<std::size_t>(buckets)] = n;
  for_each_block(n, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
    std::int64_t* c = counts.data() + b * buckets;
    for (std::int64_t i = lo; i < hi; ++i) out[c[bucket_of(i)]++] = make(i);
  });
  return layout;
}

// A private open-addressing table of (key, position) for scanning one
// bucket: find_or_add(hash, key, k) returns the position stored with an
// equal key, or stores (key, k) and returns k. The keys live in the slots,
// so a probe reads one cache line, not the bucket's items. It starts at
// tuning::dedup_table_start slots and doubles before it is half full, so
// it stays near twice the bucket's distinct keys and in the cache. Reused
// across buckets by one task.
template <class K, class I>
class bucket_table {
 public:
  void reset() {
    slots_.assign(static_cast<std::size_t>(tuning::dedup_table_start), slot{K{}, empty});
    mask_ = slots_.size() - 1;
    entries_ = 0;
  }
  I find_or_add(std::uint64_t hash, const K& key, I k) {
    if (2 * (entries_ + 1) > slots_.size()) grow();
    std::uint64_t h = hash & mask_;
    for (;;) {
      const slot& at = slots_[h];
      if (at.position == empty) break;
      if (key_equal{}(at.key, key)) return at.position;
      h = (h + 1) & mask_;
    }
    slots_[h] = slot{key, k};
    ++entries_;
    return k;
  }

 private:
  struct slot {
    K key;
    I position;
  };

  void grow() {
    std::vector<slot> old(2 * slots_.size(), slot{K{}, empty});
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const slot& at : old) {
      if (at.position == empty) continue;
      std::uint64_t h = key_hash(at.key) & mask_;
      while (slots_[h].position != empty) h = (h + 1) & mask_;
      slots_[h] = at;
    }
  }

  static constexpr I empty = std::numeric_limits<I>::max();
  std::vector<slot> slots_;
  std::uint64_t mask_ = 0;
  std::size_t entries_ = 0;
};

// A key with its running fold, spread into a bucket.
template <class K, class V>
struct keyed {
  K key;
  V value;
};

// The distinct keys of keys[0, n) (in bucket order, not sorted), each with
// the monoid's left-to-right fold of value(i) over its occurrences in input
// order. O(n) expected work.
template <class K, class V, class Value, class Monoid>
std::pair<array<K>, array<V>> hash_reduce(const K* keys, std::int64_t n, const Value& value, const Monoid& m) {
  using item = keyed<K, V>;
  auto spread = buffer<item>::for_overwrite(n);
  item* s = spread.data();
  const auto layout = spread_by_hash<item>(
      n, [keys](std::int64_t i) { return key_hash(keys[i]); },
      [&](std::int64_t i) { return item{keys[i], value(i)}; }, s);
  // Each bucket folds in place: its j-th distinct key goes to its j-th
  // item, which the scan has already read.
  std::vector<std::int64_t> distinct(static_cast<std::size_t>(layout.buckets + 1), 0);
  parallel_for(layout.buckets, 1, [&](std::int64_t lo, std::int64_t hi) {
    bucket_table<K, std::uint32_t> table;
    for (std::int64_t d = lo; d < hi; ++d) {
      item* first = s + layout.starts[static_cast<std::size_t>(d)];
      const std::int64_t len = layout.starts[static_cast<std::size_t>(d + 1)] - layout.starts[static_cast<std::size_t>(d)];
      table.reset();
      std::uint32_t count = 0;
      for (std::int64_t k = 0; k < len; ++k) {
        const item x = first[k];
        const std::uint32_t at = table.find_or_add(key_hash(x.key), x.key, count);
        if (at == count) first[count++] = item{x.key, m(m.identity(), x.value)};
        else first[at].value = m(first[at].value, x.value);
      }
      distinct[static_cast<std::size_t>(d)] = count;
    }
  });
  std::int64_t total = 0;
  for (auto& c : distinct) {
    const std::int64_t k = c;
    c = total;
    total += k;
  }
  auto ko = buffer<K>::for_overwrite(total);
  auto vo = buffer<V>::for_overwrite(total);
  parallel_for(layout.buckets, 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t d = lo; d < hi; ++d) {
      const item* first = s + layout.starts[static_cast<std::size_t>(d)];
      const std::int64_t at = distinct[static_cast<std::size_t>(d)];
      for (std::int64_t j = 0; j < distinct[static_cast<std::size_t>(d + 1)] - at; ++j) {
        ko[at + j] = first[j].key;
        vo[at + j] = first[j].value;
      }
    }
  });
  return {std::move(ko).freeze(), std::move(vo).freeze()};
}

}  // namespace vseg::detail
