// Stable partitions: partition / partition_s (k-way, by bucket ids) and
// split / split_s (3-way around a pivot: <, ==, >; the quicksort step).
//
// Every result is a segmented_array: segment b (flat) or segment j·k + b
// (segmented, segment-major) holds the elements of bucket b, in input order.
// Up to max_fixed_buckets buckets, a partition is a counting sort per
// segment on the merge-path machinery: a segmented fold counts every
// segment's buckets, and a segmented scan of the counts places every element
// (O(elements + k · segments) work, each element read twice and written
// once). More buckets take one pack_s per bucket, the packed blocks
// interleaved segment by segment as a nested array over k blocks and
// concatenated (O(k · (elements + segments)) work).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "vseg/algorithm/gather.hpp"
#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat.hpp"
#include "vseg/nested/concat.hpp"
#include "vseg/nested/nested.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/pack.hpp"
#include "vseg/segmented/segmented_array.hpp"

namespace vseg {

namespace detail {

// Throws std::invalid_argument naming `operation` unless 1 <= k and
// segments · k fits in int64.
inline void check_bucket_count(const char* operation, std::int64_t k, std::int64_t segments) {
  if (k < 1) throw_invalid(operation, "bucket count k = ", k, ", must be at least 1");
  if (segments > 0 && k > std::numeric_limits<std::int64_t>::max() / segments)
    throw_overflow(operation, segments, " segments of ", k, " buckets exceed 2^63-1 segments");
}

// The bucket counts of a piece of a segment, and their sum (a monoid).
template <std::int64_t K>
struct bucket_counts {
  std::array<std::int64_t, K> c{};
};

template <std::int64_t K>
struct add_bucket_counts {
  static bucket_counts<K> identity() { return {}; }
  bucket_counts<K> operator()(bucket_counts<K> a, const bucket_counts<K>& b) const {
    for (std::int64_t i = 0; i < K; ++i) a.c[static_cast<std::size_t>(i)] += b.c[static_cast<std::size_t>(i)];
    return a;
  }
};

// The partition by K buckets (ids checked) as a counting sort per segment:
// count each segment's buckets (fold), then place every element at its
// bucket's start plus the count of its bucket before it (scan); both are
// balanced over elements plus segments. O(elements + K · segments).
template <std::int64_t K, class T, class B>
segmented_array<T> partition_fixed(const segd& s, const T* in, const B* bucket) {
  using counts = bucket_counts<K>;
  const std::int64_t m = s.segments(), n = s.elements();
  auto ends = [&](std::int64_t j) { return s.end(j); };
  auto count_range = [bucket](std::int64_t, std::int64_t lo, std::int64_t hi, counts acc) {
    for (std::int64_t e = lo; e < hi; ++e) ++acc.c[static_cast<std::size_t>(bucket[e])];
    return acc;
  };
  auto per_segment = buffer<counts>::for_overwrite(m);
  const counts* cnt = per_segment.data();
  fold_segments<counts>(m, n, ends, count_range, add_bucket_counts<K>{}, per_segment.data());
  const segd out_s = segd::from_lengths(
      tabulate(m * K, [cnt](std::int64_t q) { return cnt[q / K].c[static_cast<std::size_t>(q % K)]; }));
  auto out = buffer<T>::for_overwrite(n);
  T* o = out.data();
  auto place_range = [&](std::int64_t j, std::int64_t lo, std::int64_t hi, counts acc) {
    std::array<std::int64_t, K> at;  // where bucket b's next element goes
    for (std::int64_t b = 0; b < K; ++b)
      at[static_cast<std::size_t>(b)] = out_s.start(j * K + b) + acc.c[static_cast<std::size_t>(b)];
    for (std::int64_t e = lo; e < hi; ++e) o[at[static_cast<std::size_t>(bucket[e])]++] = in[e];
    return acc;  // the running counts are not needed past the piece
  };
  scan_segments<counts>(m, n, ends, count_range, place_range, add_bucket_counts<K>{});
  return {out_s, std::move(out).freeze()};
}

// Buckets up to which partition_fixed (counts kept in registers) is used.
inline constexpr std::int64_t max_fixed_buckets = 8;

// The stable k-way partition of every segment of s by bucket ids in [0, k)
// (checked by the caller): segment j·k + b of the result holds the elements
// of segment j whose bucket is b. O(elements + k · segments) up to
// max_fixed_buckets buckets, O(k · (elements + segments)) beyond.
template <class T, class B>
segmented_array<T> partition_by_buckets(const segd& s, const array<T>& xs, std::span<const B> buckets,
                                          std::int64_t k) {
  if (k == 1) return {s, xs};
  const T* in = xs.data();
  const B* bk = buckets.data();
  switch (k) {
    case 2: return partition_fixed<2>(s, in, bk);
    case 3: return partition_fixed<3>(s, in, bk);
    case 4: return partition_fixed<4>(s, in, bk);
    case 5: return partition_fixed<5>(s, in, bk);
    case 6: return partition_fixed<6>(s, in, bk);
    case 7: return partition_fixed<7>(s, in, bk);
    case 8: return partition_fixed<8>(s, in, bk);
    default: break;
  }
  const std::int64_t m = s.segments();
  std::vector<segmented_array<T>> packed;
  packed.reserve(static_cast<std::size_t>(k));
  for (std::int64_t b = 0; b < k; ++b)
    packed.push_back(pack_s(s, xs, map([b](B x) { return static_cast<std::int64_t>(x) == b; }, buckets)));
  // Result segment j·k + b is segment j of the b-th packed block.
  auto piece = [&](auto field) {
    return tabulate(m * k, [&, field](std::int64_t q) { return field(q / k, q % k); });
  };
  const array<std::int64_t> sources = piece([](std::int64_t, std::int64_t b) { return b; });
  const array<std::int64_t> starts =
      piece([&](std::int64_t j, std::int64_t b) { return packed[static_cast<std::size_t>(b)].descriptor.start(j); });
  const array<std::int64_t> lengths =
      piece([&](std::int64_t j, std::int64_t b) { return packed[static_cast<std::size_t>(b)].descriptor.length(j); });
  std::vector<array<T>> blocks;
  for (auto& p : packed) blocks.push_back(p.data);
  const auto rows = nested<T>::from_descriptors_unchecked(std::move(blocks), sources, starts, lengths,
                                                           shared_iota<std::int64_t>(m * k, "partition_s"));
  return {segd::from_lengths(lengths), concat(rows)};
}

}  // namespace detail

// Within every segment of s, a stable k-way partition: result segment j·k + b
// holds the elements of segment j with bucket b, in input order.
// O(elements + k · segments) work for k <= 8, O(k · (elements + segments)) beyond. Throws std::invalid_argument for k < 1
// or sizes that s does not cover, std::out_of_range naming the position and
// the bucket outside [0, k).
template <class T, contiguous_input Buckets>
segmented_array<T> partition_s(const segd& s, const array<T>& xs, const Buckets& buckets, std::int64_t k) {
  check_covers("partition_s", s, xs.size());
  detail::check_covers_argument("partition_s", s.elements(), "the buckets", detail::ssize(buckets));
  detail::check_bucket_count("partition_s", k, s.segments());
  detail::check_ids("partition_s", detail::as_span(buckets), k, "the bucket count k", "bucket");
  return detail::partition_by_buckets(s, xs, detail::as_span(buckets), k);
}

// A stable k-way partition: segment b holds the elements with bucket b, in
// input order (k segments). O(elements + k) work for k <= 8, O(k · elements) beyond. Throws as partition_s,
// naming partition.
template <class T, contiguous_input Buckets>
segmented_array<T> partition(const array<T>& xs, const Buckets& buckets, std::int64_t k) {
  detail::check_same_size("partition", "xs", xs.size(), "buckets", detail::ssize(buckets));
  detail::check_bucket_count("partition", k, 1);
  detail::check_ids("partition", detail::as_span(buckets), k, "the bucket count k", "bucket");
  return detail::partition_by_buckets(segd::single(xs.size()), xs, detail::as_span(buckets), k);
}

// Every segment j of s split stably into segments 3j, 3j+1, 3j+2 holding its
// elements less than, equivalent to and greater than pivots[j] (by less).
// O(elements + segments) work. Throws std::invalid_argument unless s covers
// xs and there is one pivot per segment.
template <class T, class Less = std::less<>>
segmented_array<T> split_s(const segd& s, const array<T>& xs, const array<T>& pivots, Less less = {}) {
  check_covers("split_s", s, xs.size());
  if (pivots.size() != s.segments())
    detail::throw_invalid("split_s", "pivots has size ", pivots.size(), " but the segment descriptor has ",
                          s.segments(), " segments");
  // The side of every element: 0 (<), 1 (==) or 2 (>) of its segment's pivot.
  auto side = buffer<std::uint8_t>::for_overwrite(xs.size());
  std::uint8_t* o = side.data();
  detail::for_each_segment_piece(s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
                                 [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                                   const T& p = pivots[j];
                                   for (std::int64_t e = lo; e < hi; ++e)
                                     o[e] = less(xs[e], p) ? 0 : (less(p, xs[e]) ? 2 : 1);
                                 });
  return detail::partition_fixed<3>(s, xs.data(), side.data());
}

// xs split stably into 3 segments: the elements less than, equivalent to and
// greater than pivot (by less). O(elements) work.
template <class T, class Less = std::less<>>
segmented_array<T> split(const array<T>& xs, const T& pivot, Less less = {}) {
  return split_s(segd::single(xs.size()), xs, array<T>{pivot}, std::move(less));
}

}  // namespace vseg
