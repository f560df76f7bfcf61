// sort, sort_by_key and sort_s: stable sorts, flat and per segment.
//
// Arithmetic keys ordered by std::less or std::greater take the radix path
// (detail/radix_sort.hpp): O(n * passes) work, at most 8 passes of 8 bits.
// Floating-point keys are then ordered totally, by IEEE 754's totalOrder:
// -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN (NaNs by their bits),
// so -0.0 sorts before +0.0 and NaNs never break the sort. Any other order
// takes the parallel stable merge sort (detail/merge_sort.hpp): O(n log n)
// work; `less` must then be a strict weak order on the values given.
//
// A stable sort has exactly one result, so every result here is the same
// on any number of threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/merge_sort.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/radix_sort.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/nested/concat.hpp"
#include "vseg/nested/nested.hpp"
#include "vseg/segd.hpp"
#include "vseg/tuning.hpp"

namespace vseg {

namespace detail {

// Which way the radix path sorts keys of type T ordered by Less: +1
// ascending (std::less), -1 descending (std::greater), 0 not at all.
template <class T, class Less>
constexpr int radix_direction() {
  if constexpr (!radix_key<T>) return 0;
  else if constexpr (std::is_same_v<Less, std::less<T>> || std::is_same_v<Less, std::less<>>) return 1;
  else if constexpr (std::is_same_v<Less, std::greater<T>> || std::is_same_v<Less, std::greater<>>) return -1;
  else return 0;
}

// The order every key operation uses for T under Less: on the radix path
// the total order of the words (so a short input, sorted by comparison,
// agrees with a long one), otherwise less itself.
template <class T, class Less>
struct key_order {
  Less less;
  bool operator()(const T& a, const T& b) const {
    constexpr int direction = radix_direction<T, Less>();
    if constexpr (direction > 0) return radix_word(a) < radix_word(b);
    else if constexpr (direction < 0) return radix_word(b) < radix_word(a);
    else return less(a, b);
  }
};

// The radix word of x for the given direction (descending: complemented).
template <int Direction, class T>
radix_word_t<T> directed_word(const T& x) noexcept {
  const auto w = radix_word(x);
  return Direction > 0 ? w : static_cast<radix_word_t<T>>(~w);
}

template <int Direction, class T>
T from_directed_word(radix_word_t<T> w) noexcept {
  return from_radix_word<T>(Direction > 0 ? w : static_cast<radix_word_t<T>>(~w));
}

// Sorts in[0, n) stably into out[0, n) (in may be out). O(n * passes) on
// the radix path, O(n log n) otherwise.
template <class T, class Less>
void sort_into(const T* in, T* out, std::int64_t n, const Less& less) {
  constexpr int direction = radix_direction<T, Less>();
  if (n <= 1) {
    if (n == 1) out[0] = in[0];
    return;
  }
  if constexpr (direction != 0) {
    using W = radix_word_t<T>;
    auto words = buffer<W>::for_overwrite(n);
    auto tmp = buffer<W>::for_overwrite(n);
    W* w = words.data();
    parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) w[i] = directed_word<direction>(in[i]);
    });
    radix_sort<W, no_payload>(w, tmp.data(), nullptr, nullptr, n);
    parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) out[i] = from_directed_word<direction, T>(w[i]);
    });
  } else {
    auto tmp = buffer<T>::for_overwrite(n);
    merge_sort(in, out, tmp.data(), n, less);
  }
}

// Up to this length a segment of sort_s is sorted by insertion: no
// temporary buffer (std::stable_sort allocates one per call, which costs
// more than sorting a few dozen elements).
inline constexpr std::int64_t insertion_cutoff = 32;

// Sorts in[0, n) stably into out[0, n) by inserting each element after the
// last one not greater than it (in and out do not overlap). O(n^2) work.
template <class T, class Order>
void insertion_sort_into(const T* in, T* out, std::int64_t n, const Order& order) {
  for (std::int64_t i = 0; i < n; ++i) {
    T x = in[i];
    std::int64_t j = i;
    for (; j > 0 && order(x, out[j - 1]); --j) out[j] = std::move(out[j - 1]);
    out[j] = std::move(x);
  }
}

// Sorts keys with values carried along into ko, vo. O(n * passes) on the
// radix path, O(n log n) otherwise.
template <class K, class V, class Less>
void sort_by_key_into(const K* keys, const V* values, K* ko, V* vo, std::int64_t n, const Less& less) {
  constexpr int direction = radix_direction<K, Less>();
  if constexpr (direction != 0) {
    using W = radix_word_t<K>;
    // The values ride along when they are plain data; otherwise their
    // positions do and the values are gathered at the end.
    using P = std::conditional_t<std::is_trivially_copyable_v<V>, V, std::int64_t>;
    auto words = buffer<W>::for_overwrite(n);
    auto wtmp = buffer<W>::for_overwrite(n);
    auto pay = buffer<P>::for_overwrite(n);
    auto ptmp = buffer<P>::for_overwrite(n);
    W* w = words.data();
    P* p = pay.data();
    parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) {
        w[i] = directed_word<direction>(keys[i]);
        if constexpr (std::is_same_v<P, V>) p[i] = values[i];
        else p[i] = i;
      }
    });
    radix_sort<W, P>(w, wtmp.data(), p, ptmp.data(), n);
    parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) {
        ko[i] = from_directed_word<direction, K>(w[i]);
        if constexpr (std::is_same_v<P, V>) vo[i] = p[i];
        else vo[i] = values[p[i]];
      }
    });
  } else {
    using item = std::pair<K, V>;
    auto items = buffer<item>::for_overwrite(n);
    auto tmp = buffer<item>::for_overwrite(n);
    item* it = items.data();
    parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) it[i] = item(keys[i], values[i]);
    });
    auto by_key = [&less](const item& a, const item& b) { return less(a.first, b.first); };
    merge_sort(it, it, tmp.data(), n, by_key);
    parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) {
        ko[i] = it[i].first;
        vo[i] = it[i].second;
      }
    });
  }
}

}  // namespace detail

// The elements of xs in ascending order of less, stably (equal elements
// keep their order). O(n) work for arithmetic keys with std::less or
// std::greater (radix), O(n log n) otherwise; see the header comment.
template <contiguous_input R, class Less = std::less<>>
array<element_t<R>> sort(const R& xs, Less less = {}) {
  using T = element_t<R>;
  const std::int64_t n = detail::ssize(xs);
  auto out = buffer<T>::for_overwrite(n);
  detail::sort_into(detail::as_span(xs).data(), out.data(), n, less);
  return std::move(out).freeze();
}

// The keys sorted stably by less, and the values moved with their keys.
// Throws std::invalid_argument when the sizes differ. O(n) work for
// arithmetic keys with std::less or std::greater, O(n log n) otherwise.
template <contiguous_input RK, contiguous_input RV, class Less = std::less<>>
std::pair<array<element_t<RK>>, array<element_t<RV>>> sort_by_key(const RK& keys, const RV& values, Less less = {}) {
  using K = element_t<RK>;
  using V = element_t<RV>;
  const std::int64_t n = detail::ssize(keys);
  detail::check_same_size("sort_by_key", "keys", n, "values", detail::ssize(values));
  auto ko = buffer<K>::for_overwrite(n);
  auto vo = buffer<V>::for_overwrite(n);
  detail::sort_by_key_into(detail::as_span(keys).data(), detail::as_span(values).data(), ko.data(), vo.data(), n,
                           less);
  return {std::move(ko).freeze(), std::move(vo).freeze()};
}

// Every segment of s sorted stably by less, in place of the segment (the
// segments keep their positions and lengths). Throws std::invalid_argument
// unless s covers xs. O(n) work for arithmetic keys with std::less or
// std::greater plus O(n log L) for the segments shorter than
// tuning::serial_cutoff (L their length; up to 32 elements by insertion,
// O(n * 32) at most), O(n log n) otherwise.
template <contiguous_input R, class Less = std::less<>>
array<element_t<R>> sort_s(const segd& s, const R& xs, Less less = {}) {
  using T = element_t<R>;
  check_covers("sort_s", s, detail::ssize(xs));
  const T* in = detail::as_span(xs).data();
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  const detail::key_order<T, Less> order{less};
  // Short segments are sorted serially, many at a time; a long one sorts
  // in parallel itself.
  detail::parallel_for(s.segments(), tuning::segments_per_task, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t j = lo; j < hi; ++j) {
      const std::int64_t start = s.start(j);
      const std::int64_t length = s.length(j);
      if (length > tuning::serial_cutoff) {
        detail::sort_into(in + start, o + start, length, less);
      } else if (length <= detail::insertion_cutoff) {
        detail::insertion_sort_into(in + start, o + start, length, order);
      } else {
        std::copy(in + start, in + start + length, o + start);
        std::stable_sort(o + start, o + start + length, order);
      }
    }
  });
  return std::move(out).freeze();
}

// Every virtual segment of xss sorted stably by less, as a nested array
// laid out contiguously (replicated segments are copied, once per
// occurrence). O(virtual elements) plus the sort's work, as sort_s above.
template <class T, class Less = std::less<>>
nested<T> sort_s(const nested<T>& xss, Less less = {}) {
  const segd shape = xss.shape();
  return nested<T>::from_segd(shape, sort_s(shape, concat(xss), less));
}

}  // namespace vseg
