// LSD radix sort of unsigned key words, optionally carrying a payload, and
// the order-preserving words of arithmetic keys. The fast path of
// vseg::sort, sort_by_key, sort_s and the *_by_key operations
// (vseg/algorithm/sort.hpp). O(passes * (n + blocks * radix)) work.
//
// Keys are mapped to unsigned words that order as the values do (the sign
// bit flipped for signed integers; for floating point, all bits flipped for
// negatives and the sign bit set for the rest), so the order is a total
// one: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN, NaNs among
// themselves by their bits (IEEE 754's totalOrder).
//
// Each pass sorts stably by one digit of radix_bits bits: every fixed block
// counts its digits, the counts are scanned digit-major then block-minor,
// and every block writes its elements at its offsets in input order. A
// pass whose digit is the same for every key is skipped. A stable sort has
// one result, so neither the blocks nor the thread count can change it.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "vseg/detail/parallel.hpp"
#include "vseg/tuning.hpp"

namespace vseg::detail {

// Arithmetic types the radix path sorts (long double has no word of 64 bits).
template <class T>
inline constexpr bool radix_key = std::is_arithmetic_v<T> && !std::is_same_v<T, long double>;

// The word type of a radix key: 32 bits for keys of up to 4 bytes.
template <class T>
using radix_word_t = std::conditional_t<sizeof(T) <= 4, std::uint32_t, std::uint64_t>;

// The unsigned word that orders as x does (see the header comment).
template <class T>
radix_word_t<T> radix_word(T x) noexcept {
  using W = radix_word_t<T>;
  constexpr W top = W{1} << (sizeof(W) * 8 - 1);
  if constexpr (std::is_same_v<T, bool>) {
    return static_cast<W>(x ? 1 : 0);
  } else if constexpr (std::is_floating_point_v<T>) {
    using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    const auto bits = static_cast<W>(std::bit_cast<U>(x));
    return (bits & top) != 0 ? static_cast<W>(~bits) : static_cast<W>(bits | top);
  } else if constexpr (std::is_signed_v<T>) {
    using S = std::make_signed_t<W>;
    return static_cast<W>(static_cast<W>(static_cast<S>(x)) ^ top);
  } else {
    return static_cast<W>(x);
  }
}

// The key whose word is w: the inverse of radix_word.
template <class T>
T from_radix_word(radix_word_t<T> w) noexcept {
  using W = radix_word_t<T>;
  constexpr W top = W{1} << (sizeof(W) * 8 - 1);
  if constexpr (std::is_same_v<T, bool>) {
    return w != 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    const W bits = (w & top) != 0 ? static_cast<W>(w ^ top) : static_cast<W>(~w);
    return std::bit_cast<T>(static_cast<U>(bits));
  } else if constexpr (std::is_signed_v<T>) {
    using S = std::make_signed_t<W>;
    return static_cast<T>(static_cast<S>(w ^ top));
  } else {
    return static_cast<T>(w);
  }
}

// For the radix path without a payload.
struct no_payload {};

// Sorts keys[0, n) stably by word, moving pay[i] with keys[i] (P =
// no_payload: none). tmp_keys and tmp_pay have room for n; the result ends
// in keys and pay. O(passes * (n + blocks * radix)).
template <class W, class P>
void radix_sort(W* keys, W* tmp_keys, P* pay, P* tmp_pay, std::int64_t n) {
  constexpr bool carry = !std::is_same_v<P, no_payload>;
  constexpr int radix_bits = static_cast<int>(tuning::radix_bits);
  constexpr std::int64_t radix = std::int64_t{1} << radix_bits;
  constexpr W mask = static_cast<W>(radix - 1);
  if (n <= 1) return;
  if (n <= tuning::radix_small) {
    // Too small for digit passes: a stable comparison sort on the words.
    std::vector<std::pair<W, std::int64_t>> items(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) items[static_cast<std::size_t>(i)] = {keys[i], i};
    std::sort(items.begin(), items.end());  // positions break ties: stable
    for (std::int64_t i = 0; i < n; ++i) {
      tmp_keys[i] = items[static_cast<std::size_t>(i)].first;
      if constexpr (carry) tmp_pay[i] = pay[items[static_cast<std::size_t>(i)].second];
    }
    std::copy(tmp_keys, tmp_keys + n, keys);
    if constexpr (carry) std::copy(tmp_pay, tmp_pay + n, pay);
    return;
  }
  // Fixed blocks (their count depends on n only), at least one per
  // radix_block elements.
  const std::int64_t block = std::max(tuning::radix_block, (n + tuning::radix_max_blocks - 1) / tuning::radix_max_blocks);
  const std::int64_t blocks = block_count(n, block);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(blocks * radix));
  W* src = keys;
  W* dst = tmp_keys;
  P* psrc = pay;
  P* pdst = tmp_pay;
  for (int shift = 0; shift < static_cast<int>(sizeof(W) * 8); shift += radix_bits) {
    for_each_block(n, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
      std::int64_t* c = counts.data() + b * radix;
      std::fill(c, c + radix, 0);
      for (std::int64_t i = lo; i < hi; ++i) ++c[(src[i] >> shift) & mask];
    });
    // Offsets, digit-major then block-minor; a digit holding every key
    // means the pass would not move anything.
    std::int64_t total = 0;
    bool trivial = false;
    for (std::int64_t d = 0; d < radix; ++d) {
      const std::int64_t before = total;
      for (std::int64_t b = 0; b < blocks; ++b) {
        std::int64_t& c = counts[static_cast<std::size_t>(b * radix + d)];
        const std::int64_t k = c;
        c = total;
        total += k;
      }
      if (total - before == n) trivial = true;
    }
    if (trivial) continue;
    for_each_block(n, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
      std::int64_t* c = counts.data() + b * radix;
      for (std::int64_t i = lo; i < hi; ++i) {
        const W w = src[i];
        const std::int64_t to = c[(w >> shift) & mask]++;
        dst[to] = w;
        if constexpr (carry) pdst[to] = psrc[i];
      }
    });
    std::swap(src, dst);
    std::swap(psrc, pdst);
  }
  if (src != keys) {
    parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
      std::copy(src + lo, src + hi, keys + lo);
      if constexpr (carry) std::copy(psrc + lo, psrc + hi, pay + lo);
    });
  }
}

}  // namespace vseg::detail
