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
// the thread count. Only what the scan needs is spread (the keys, and the
// values when they are not constant); first_occurrences takes its flags
// back to input order by following the spread again (re-hashing the input
// instead of carrying every item's position), fused with the pack of the
// kept values.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>
#include <utility>
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

// A 64-bit hash of a key whose high bits are well mixed (Fibonacci
// hashing: the sort word or std::hash, its high half folded into the low
// one, times 2^64 / golden ratio). The buckets take its top bits, a
// bucket's table the bits below them; the low bits are not used.
inline std::uint64_t word_hash(std::uint64_t z) { return (z ^ (z >> 32)) * 0x9e3779b97f4a7c15ULL; }

template <class T>
std::uint64_t key_hash(const T& x) {
  if constexpr (radix_key<T>) return word_hash(static_cast<std::uint64_t>(radix_word(x)));
  else return word_hash(static_cast<std::uint64_t>(std::hash<T>{}(x)));
}

// The buckets of a spread: bucket d holds items [starts[d], starts[d + 1]);
// the items of fixed block b that fall into bucket d begin at
// offsets[b * buckets + d].
struct bucket_layout {
  int bits = 0;
  std::int64_t buckets = 1;
  std::int64_t block = 1;
  std::vector<std::int64_t> starts;
  std::vector<std::int64_t> offsets;

  // The bucket of an item with hash h.
  std::int64_t bucket_of(std::uint64_t h) const {
    return bits == 0 ? std::int64_t{0} : static_cast<std::int64_t>(h >> (64 - bits));
  }
  // The length of bucket d.
  std::int64_t length(std::int64_t d) const {
    return starts[static_cast<std::size_t>(d + 1)] - starts[static_cast<std::size_t>(d)];
  }
};

// Writes make(i) for i in [0, n) to out, stably grouped by the top bits of
// hash(i). O(n + blocks * buckets).
template <class Item, class Hash, class Make>
bucket_layout spread_by_hash(std::int64_t n, const Hash& hash, const Make& make, Item* out) {
  const std::int64_t wanted = std::max<std::int64_t>(1, n / tuning::dedup_bucket);
  bucket_layout layout;
  layout.bits = std::min(static_cast<int>(std::bit_width(static_cast<std::uint64_t>(wanted - 1))),
                         static_cast<int>(tuning::dedup_max_bucket_bits));
  layout.buckets = std::int64_t{1} << layout.bits;
  const std::int64_t buckets = layout.buckets;
  layout.block = std::max(tuning::radix_block, (n + tuning::radix_max_blocks - 1) / tuning::radix_max_blocks);
  const std::int64_t blocks = block_count(n, layout.block);
  std::vector<std::int64_t>& counts = layout.offsets;
  counts.assign(static_cast<std::size_t>(blocks * buckets), 0);
  for_each_block(n, layout.block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
    std::int64_t* c = counts.data() + b * buckets;
    for (std::int64_t i = lo; i < hi; ++i) ++c[layout.bucket_of(hash(i))];
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
  for_each_block(n, layout.block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
    std::vector<std::int64_t> c(counts.begin() + b * buckets, counts.begin() + (b + 1) * buckets);
    for (std::int64_t i = lo; i < hi; ++i) out[c[static_cast<std::size_t>(layout.bucket_of(hash(i)))]++] = make(i);
  });
  return layout;
}

// A private open-addressing table of (key, position) for scanning one
// bucket: find_or_add(hash, key, k) returns the position stored with an
// equal key, or stores (key, k) and returns k. The keys live in the slots,
// so a probe reads one cache line, not the bucket's items. reset(expected)
// sizes it to dedup_table_slack slots per expected distinct key (at least
// tuning::dedup_table_start slots) and it doubles when fuller than that:
// mostly empty, most probes end at their first slot.
// Reused across buckets by one task, which pass the last bucket's distinct
// count as the next one's estimate: the buckets are alike (hash spread), so
// the table seldom grows after the first.
template <class K, class I>
class bucket_table {
 public:
  // A table for the buckets of a spread by the top `bucket_bits` bits.
  explicit bucket_table(int bucket_bits) : skip_(bucket_bits) {}
  void reset(std::size_t expected) {
    const std::size_t want = std::bit_ceil(std::max<std::size_t>(static_cast<std::size_t>(tuning::dedup_table_start),
                                                                 tuning::dedup_table_slack * (expected + 1)));
    slots_.assign(want, slot{K{}, empty});
    resized();
    entries_ = 0;
  }
  I find_or_add(std::uint64_t hash, const K& key, I k) {
    if (static_cast<std::size_t>(tuning::dedup_table_slack) * (entries_ + 1) > slots_.size()) grow();
    std::uint64_t h = slot_of(hash);
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
  // How many keys it holds.
  std::size_t size() const { return entries_; }

 private:
  struct slot {
    K key;
    I position;
  };

  // The first slot to probe: the hash's bits just below the bucket's.
  std::uint64_t slot_of(std::uint64_t hash) const { return (hash << skip_) >> shift_; }
  void resized() {
    mask_ = slots_.size() - 1;
    shift_ = 64 - std::countr_zero(slots_.size());
  }
  void grow() {
    std::vector<slot> old(2 * slots_.size(), slot{K{}, empty});
    old.swap(slots_);
    resized();
    for (const slot& at : old) {
      if (at.position == empty) continue;
      std::uint64_t h = slot_of(key_hash(at.key));
      while (slots_[h].position != empty) h = (h + 1) & mask_;
      slots_[h] = at;
    }
  }

  static constexpr I empty = std::numeric_limits<I>::max();
  std::vector<slot> slots_;
  int skip_ = 0;
  int shift_ = 64;
  std::uint64_t mask_ = 0;
  std::size_t entries_ = 0;
};

// A private open-addressing set of the sort words of arithmetic keys, for
// scanning one bucket when only "seen before?" is asked (remove_duplicates):
// 8-byte slots holding the word itself, half of bucket_table's (key,
// position) slots, so the table of a bucket stays in L2. The word 0 marks
// an empty slot, so a key whose word is 0 is remembered by a flag. Sized
// and grown as bucket_table.
class word_set {
 public:
  // A set for the buckets of a spread by the top `bucket_bits` bits.
  explicit word_set(int bucket_bits) : skip_(bucket_bits) {}
  void reset(std::size_t expected) {
    const std::size_t want = std::bit_ceil(std::max<std::size_t>(static_cast<std::size_t>(tuning::dedup_table_start),
                                                                 tuning::dedup_table_slack * (expected + 1)));
    slots_.assign(want, 0);
    mask_ = slots_.size() - 1;
    shift_ = 64 - std::countr_zero(slots_.size());
    entries_ = 0;
    has_zero_ = false;
  }
  // Adds the word w (whose word_hash is hash); whether it was not there yet.
  bool insert(std::uint64_t hash, std::uint64_t w) {
    if (w == 0) {
      const bool fresh = !has_zero_;
      has_zero_ = true;
      entries_ += fresh ? 1 : 0;
      return fresh;
    }
    if (static_cast<std::size_t>(tuning::dedup_table_slack) * (entries_ + 1) > slots_.size()) grow();
    std::uint64_t h = slot_of(hash);
    for (;;) {
      const std::uint64_t at = slots_[h];
      if (at == 0) break;
      if (at == w) return false;
      h = (h + 1) & mask_;
    }
    slots_[h] = w;
    ++entries_;
    return true;
  }
  // How many words it holds.
  std::size_t size() const { return entries_; }

 private:
  // The first slot to probe: the hash's bits just below the bucket's.
  std::uint64_t slot_of(std::uint64_t hash) const { return (hash << skip_) >> shift_; }
  void grow() {
    std::vector<std::uint64_t> old(2 * slots_.size(), 0);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    shift_ = 64 - std::countr_zero(slots_.size());
    for (const std::uint64_t w : old) {
      if (w == 0) continue;
      std::uint64_t h = slot_of(word_hash(w));
      while (slots_[h] != 0) h = (h + 1) & mask_;
      slots_[h] = w;
    }
  }

  std::vector<std::uint64_t> slots_;
  int skip_ = 0;
  int shift_ = 64;
  std::uint64_t mask_ = 0;
  std::size_t entries_ = 0;
  bool has_zero_ = false;
};

// body(d, table) for every bucket d of layout, in parallel, with a Table
// (bucket_table or word_set) per task. A task takes
// a run of about tuning::dedup_task_buckets buckets and reuses one
// table, reset for each bucket with the last one's distinct count: a task
// of one bucket would grow a table from the smallest size every time (each
// doubling re-inserts every key and maps fresh pages).
template <class Table, class Body>
void for_each_bucket(const bucket_layout& layout, const Body& body) {
  parallel_for(layout.buckets, tuning::dedup_task_buckets, [&](std::int64_t lo, std::int64_t hi) {
    Table table(layout.bits);
    std::size_t expected = 0;
    for (std::int64_t d = lo; d < hi; ++d) {
      table.reset(expected);
      body(d, table);
      expected = table.size();
    }
  });
}

// The first occurrence of every value of xs[0, n), in input order; I holds
// a position below n (not its largest value). O(n) expected work.
//
// The scan of a bucket writes a first-occurrence flag per item in bucket
// order and counts the flags of every (block, bucket) chunk of the spread,
// so every input block knows where its kept values go; one pass over the
// input then walks each block's bucket cursors as the spread did and
// writes the flagged values straight to the result (no flags in input
// order, no separate pack reading the input again).
template <class T, class I>
array<T> first_occurrences(const T* xs, std::int64_t n) {
  auto spread = buffer<T>::for_overwrite(n);
  T* s = spread.data();
  const auto hash = [xs](std::int64_t i) { return key_hash(xs[i]); };
  const auto layout = spread_by_hash<T>(n, hash, [xs](std::int64_t i) { return xs[i]; }, s);
  const std::int64_t buckets = layout.buckets, blocks = block_count(n, layout.block);
  // The end of block b's chunk of bucket d in the spread.
  const auto chunk_end = [&](std::int64_t b, std::int64_t d) {
    return b + 1 < blocks ? layout.offsets[static_cast<std::size_t>((b + 1) * buckets + d)]
                          : layout.starts[static_cast<std::size_t>(d + 1)];
  };
  auto flags = buffer<bool>::for_overwrite(n);
  bool* f = flags.data();
  std::vector<std::int64_t> kept(static_cast<std::size_t>(blocks * buckets), 0);
  // Whether the k-th item of the spread is its key's first, in a scan of
  // its bucket from the bucket's start: arithmetic keys ask a set of their
  // words, other keys a table of (key, position).
  using table_type = std::conditional_t<radix_key<T>, word_set, bucket_table<T, I>>;
  const auto is_first = [s](table_type& table, std::int64_t k, std::int64_t start) {
    const T& x = s[k];
    if constexpr (radix_key<T>) {
      const auto w = static_cast<std::uint64_t>(radix_word(x));
      return table.insert(word_hash(w), w);
    } else {
      const auto at = static_cast<I>(k - start);
      return table.find_or_add(key_hash(x), x, at) == at;
    }
  };
  for_each_bucket<table_type>(layout, [&](std::int64_t d, table_type& table) {
    const std::int64_t start = layout.starts[static_cast<std::size_t>(d)];
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t lo = layout.offsets[static_cast<std::size_t>(b * buckets + d)], hi = chunk_end(b, d);
      std::int64_t count = 0;
      for (std::int64_t k = lo; k < hi; ++k) {
        const bool first = is_first(table, k, start);
        f[k] = first;
        count += first ? 1 : 0;
      }
      kept[static_cast<std::size_t>(b * buckets + d)] = count;
    }
  });
  // Where each block's kept values begin in the result.
  std::vector<std::int64_t> out_at(static_cast<std::size_t>(blocks + 1), 0);
  for (std::int64_t b = 0; b < blocks; ++b) {
    std::int64_t c = 0;
    for (std::int64_t d = 0; d < buckets; ++d) c += kept[static_cast<std::size_t>(b * buckets + d)];
    out_at[static_cast<std::size_t>(b + 1)] = out_at[static_cast<std::size_t>(b)] + c;
  }
  auto out = buffer<T>::for_overwrite(out_at.back());
  T* o = out.data();
  for_each_block(n, layout.block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
    std::vector<std::int64_t> c(layout.offsets.begin() + b * buckets, layout.offsets.begin() + (b + 1) * buckets);
    T* to = o + out_at[static_cast<std::size_t>(b)];
    const std::int64_t count = out_at[static_cast<std::size_t>(b + 1)] - out_at[static_cast<std::size_t>(b)];
    // No branch per element (the flags are as good as random): every value
    // is stored at the next free slot, which advances only past a kept one;
    // the loop ends at the block's last kept value, so no store lands
    // beyond the block's share of the result.
    std::int64_t k = 0;
    for (std::int64_t i = lo; i < hi && k < count; ++i) {
      to[k] = xs[i];
      k += f[c[static_cast<std::size_t>(layout.bucket_of(hash(i)))]++] ? 1 : 0;
    }
  });
  return std::move(out).freeze();
}

// A key with its running fold.
template <class K, class V>
struct keyed {
  K key;
  V value;
};

// The distinct keys of keys[0, n) (in bucket order, not sorted), each with
// the monoid's left-to-right fold of its occurrences' values in input
// order. The spread carries make(i); the scan folds value_of(item) under
// key_of(item). O(n) expected work; n below 2^32 - 1.
template <class K, class V, class Item, class Make, class KeyOf, class ValueOf, class Monoid>
std::pair<array<K>, array<V>> hash_reduce(const K* keys, std::int64_t n, const Make& make, const KeyOf& key_of,
                                          const ValueOf& value_of, const Monoid& m) {
  auto spread = buffer<Item>::for_overwrite(n);
  const Item* s = spread.data();
  const auto layout = spread_by_hash<Item>(n, [keys](std::int64_t i) { return key_hash(keys[i]); }, make, spread.data());
  // Each bucket folds into its own list of distinct keys (in order of first
  // occurrence); the table maps a key to its place in the list.
  std::vector<std::vector<keyed<K, V>>> folds(static_cast<std::size_t>(layout.buckets));
  for_each_bucket<bucket_table<K, std::uint32_t>>(layout, [&](std::int64_t d, bucket_table<K, std::uint32_t>& table) {
    const Item* first = s + layout.starts[static_cast<std::size_t>(d)];
    const std::int64_t len = layout.length(d);
    auto& out = folds[static_cast<std::size_t>(d)];
    for (std::int64_t k = 0; k < len; ++k) {
      const K key = key_of(first[k]);
      const auto count = static_cast<std::uint32_t>(out.size());
      const std::uint32_t at = table.find_or_add(key_hash(key), key, count);
      if (at == count) out.push_back(keyed<K, V>{key, m(m.identity(), value_of(first[k]))});
      else out[at].value = m(out[at].value, value_of(first[k]));
    }
  });
  std::vector<std::int64_t> at(static_cast<std::size_t>(layout.buckets + 1), 0);
  for (std::int64_t d = 0; d < layout.buckets; ++d)
    at[static_cast<std::size_t>(d + 1)] = at[static_cast<std::size_t>(d)] + static_cast<std::int64_t>(folds[static_cast<std::size_t>(d)].size());
  auto ko = buffer<K>::for_overwrite(at.back());
  auto vo = buffer<V>::for_overwrite(at.back());
  parallel_for(layout.buckets, 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t d = lo; d < hi; ++d) {
      const auto& f = folds[static_cast<std::size_t>(d)];
      const std::int64_t base = at[static_cast<std::size_t>(d)];
      for (std::size_t j = 0; j < f.size(); ++j) {
        ko[base + static_cast<std::int64_t>(j)] = f[j].key;
        vo[base + static_cast<std::int64_t>(j)] = f[j].value;
      }
    }
  });
  return {std::move(ko).freeze(), std::move(vo).freeze()};
}

}  // namespace vseg::detail
