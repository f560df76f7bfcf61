// rank_s: the stable rank of every element inside its segment (VCODE's
// RANK_UP and RANK_DOWN). O(n log n) work; O(n) for one segment of
// arithmetic keys (not float) longer than tuning::radix_small (a radix sort).
//
// The result is a permutation of every segment: result[k] is the position
// element k takes when its segment is sorted stably, ascending
// (rank_order::up) or descending (rank_order::down); equal keys keep their
// order in both directions. Feeding it to permute_s sorts the data.
//
// Keys are mapped to unsigned 64-bit words that order as the values do
// (the radix-sort encoding: sign bit flipped for integers; for floats the
// bits are flipped for negatives), so -0.0 ranks before +0.0 and a NaN ranks
// by its bits, never breaking the sort's ordering requirements.
//
// To sort the segments themselves, call sort_s (vseg/algorithm/sort.hpp):
// one call instead of rank_s + permute_s, and a radix sort for arithmetic
// keys.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/radix_sort.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/segd.hpp"
#include "vseg/tuning.hpp"

namespace vseg {

enum class rank_order { up, down };

namespace detail {

// An unsigned word that orders as the key does.
template <class T>
std::uint64_t order_word(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    const auto bits = std::bit_cast<std::uint64_t>(static_cast<double>(x));
    return (bits >> 63) != 0 ? ~bits : bits | (std::uint64_t{1} << 63);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) ^ (std::uint64_t{1} << 63);
  } else {
    return static_cast<std::uint64_t>(x);
  }
}

// Sorts (word, position) pairs; positions are distinct, so any sort is stable.
inline void sort_pairs(std::pair<std::uint64_t, std::int64_t>* first, std::pair<std::uint64_t, std::int64_t>* last) {
  if (last - first > tuning::serial_cutoff) parallel_sort(first, last);
  else std::sort(first, last);
}

// rank_s_as over one segment of arithmetic keys longer than
// tuning::radix_small, by the stable radix sort of their words with their
// positions: the order of sort_pairs (equal words keep their positions'
// order), in O(passes * n) instead of O(n log n) (Delaunay's one RANK_UP of
// 138k INTs took 4-5% of its run in the comparison sort).
template <class I, class T>
array<I> rank_one_segment_by_radix(std::span<const T> in, rank_order order) {
  using W = radix_word_t<T>;
  const std::int64_t n = ssize(in);
  auto words = buffer<W>::for_overwrite(n);
  W* w = words.data();
  const bool down = order == rank_order::down;
  parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) {
      const W x = radix_word(in[static_cast<std::size_t>(k)]);
      w[k] = down ? static_cast<W>(~x) : x;
    }
  });
  auto out = buffer<I>::for_overwrite(n);
  I* o = out.data();
  // Keys already in order (Barnes-Hut's are, 4 of 90 times over 87k) rank
  // as their positions, in one pass.
  if (std::is_sorted(w, w + n)) {
    parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t r = lo; r < hi; ++r) o[r] = static_cast<I>(r);
    });
    return std::move(out).freeze();
  }
  // Positions as 32-bit words (the caller checks n fits): half the traffic of the passes.
  auto words_tmp = buffer<W>::for_overwrite(n);
  auto at = buffer<std::uint32_t>::for_overwrite(n);
  auto at_tmp = buffer<std::uint32_t>::for_overwrite(n);
  std::uint32_t* p = at.data();
  for (std::int64_t k = 0; k < n; ++k) p[k] = static_cast<std::uint32_t>(k);
  radix_sort(w, words_tmp.data(), p, at_tmp.data(), n);
  parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t r = lo; r < hi; ++r) o[p[r]] = static_cast<I>(r);
  });
  return std::move(out).freeze();
}

}  // namespace detail

// Per segment, the stable rank of every key (see the header comment).
// Throws std::invalid_argument unless s covers keys.
template <contiguous_input R>
array<std::int64_t> rank_s(const segd& s, const R& keys, rank_order order);

// As rank_s, with ranks of any integer type I wide enough for the segments.
template <class I, contiguous_input R>
array<I> rank_s_as(const segd& s, const R& keys, rank_order order) {
  check_covers("rank_s", s, detail::ssize(keys));
  auto in = detail::as_span(keys);
  const std::int64_t n = s.elements();
  // float keys are ranked by their double words below; their own 32-bit words
  // could order two NaNs differently.
  if constexpr (detail::radix_key<element_t<R>> && !std::is_same_v<element_t<R>, float>)
    if (s.segments() == 1 && n > tuning::radix_small && n <= std::int64_t{UINT32_MAX})
      return detail::rank_one_segment_by_radix<I>(in, order);
  using item = std::pair<std::uint64_t, std::int64_t>;
  auto items = buffer<item>::for_overwrite(n);
  item* it = items.data();
  const bool down = order == rank_order::down;
  detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) {
      const std::uint64_t w = detail::order_word(in[k]);
      it[k] = {down ? ~w : w, k};
    }
  });
  auto out = buffer<I>::for_overwrite(n);
  I* o = out.data();
  // Segments are sorted independently; a long one sorts in parallel itself.
  detail::parallel_for(s.segments(), tuning::segments_per_task, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t j = lo; j < hi; ++j) {
      item* first = it + s.start(j);
      item* last = first + s.length(j);
      detail::sort_pairs(first, last);
      for (item* p = first; p != last; ++p) o[p->second] = static_cast<I>(p - first);
    }
  });
  return std::move(out).freeze();
}

template <contiguous_input R>
array<std::int64_t> rank_s(const segd& s, const R& keys, rank_order order) {
  return rank_s_as<std::int64_t>(s, keys, order);
}

}  // namespace vseg
