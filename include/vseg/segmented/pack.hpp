// pack_s: keep the flagged elements of every segment. O(elements + segments).
#pragma once

#include <cstdint>
#include <span>

#include "vseg/array.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat/pack.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/segmented_array.hpp"

namespace vseg {

namespace detail {

// The descriptor of pack_s(s, ·, f): each segment's kept count, folded
// straight from the flags (no array of 0/1 counts is built). s covers f.
// O(elements + segments).
inline segd packed_segd(const segd& s, std::span<const bool> f) {
  auto counts = buffer<std::int64_t>::for_overwrite(s.segments());
  fold_segments<std::int64_t>(
      s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
      [&](std::int64_t, std::int64_t lo, std::int64_t hi, std::int64_t acc) {
        for (std::int64_t k = lo; k < hi; ++k) acc += f[static_cast<std::size_t>(k)] ? 1 : 0;
        return acc;
      },
      plus<std::int64_t>{}, counts.data());
  return segd::from_lengths(std::move(counts).freeze());
}

}  // namespace detail

// Per segment, the elements whose flag is true, with the new descriptor.
// Throws std::invalid_argument unless s covers data and flags.
// O(elements + segments).
template <contiguous_input R, contiguous_input Flags>
segmented_array<element_t<R>> pack_s(const segd& s, const R& data, const Flags& flags) {
  using T = element_t<R>;
  check_covers("pack_s", s, detail::ssize(data));
  detail::check_covers_argument("pack_s", s.elements(), "the flags", detail::ssize(flags));
  auto f = detail::as_span(flags);
  const std::int64_t m = s.segments();
  const std::int64_t n = s.elements();
  const std::int64_t block = tuning::flat_block;
  if (m > 0 && m <= n / block) {
    // Few segments (quicksort's partitions): the flat pack's per-block counts
    // give the kept count before any position p in at most one block's scan,
    // so the flags are read once, not twice.
    std::vector<std::int64_t> offsets;
    const std::int64_t total = detail::flag_offsets(f, offsets);
    auto kept_before = [&](std::int64_t p) {
      if (p == n) return total;
      const std::int64_t b = p / block;
      std::int64_t c = offsets[static_cast<std::size_t>(b)];
      for (std::int64_t i = b * block; i < p; ++i) c += f[static_cast<std::size_t>(i)] ? 1 : 0;
      return c;
    };
    auto counts = buffer<std::int64_t>::for_overwrite(m);
    std::int64_t* cnt = counts.data();
    detail::parallel_for(m, tuning::segments_per_task, [&](std::int64_t lo, std::int64_t hi) {
      std::int64_t before = kept_before(s.start(lo));
      for (std::int64_t j = lo; j < hi; ++j) {
        const std::int64_t after = kept_before(s.end(j));
        cnt[j] = after - before;
        before = after;
      }
    });
    return {segd::from_lengths(std::move(counts).freeze()),
            detail::pack_with_offsets<T>(detail::as_span(data), f, offsets, total)};
  }
  return {detail::packed_segd(s, f), pack(data, flags)};
}

}  // namespace vseg
