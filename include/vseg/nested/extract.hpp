// extract and slice_l on nested arrays: descriptor operations, no element is
// copied.
#pragma once

#include <cstdint>
#include <utility>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/index_buffers.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/streaming_store.hpp"
#include "vseg/nested/nested.hpp"

namespace vseg {

// Virtual segments [start, start + len). O(1): a slice of the vsegids
// (O(virtual segments) for a repeated descriptor, whose ids are computed).
// Throws std::out_of_range for a range outside the array.
template <class T>
nested<T> extract(const nested<T>& xss, std::int64_t start, std::int64_t len) {
  if (start < 0 || len < 0 || start > xss.size() || len > xss.size() - start)
    detail::throw_out_of_range("extract", "segments [", start, ", ", start, " + ", len,
                               ") outside a nested array of ", xss.size(), " segments");
  return xss.with_vsegids_unchecked(xss.vsegids().slice(start, len));
}

// Lifted slice: [xss[k][starts[k] .. starts[k] + lengths[k]) | k]. Makes one
// physical segment per virtual segment (identity vsegids, not stored),
// copying no element. O(segments). Throws std::out_of_range for a slice
// outside its segment.
template <class T>
nested<T> slice_l(const nested<T>& xss, const array<std::int64_t>& starts,
                  const array<std::int64_t>& lengths) {
  const std::int64_t n = xss.size();
  detail::check_same_size("slice_l", "starts", starts.size(), "segments", n);
  detail::check_same_size("slice_l", "lengths", lengths.size(), "segments", n);
  // With one data block every source is 0: a slice of the shared zeros,
  // not an array written per call.
  const bool one_block = xss.blocks().size() <= 1;
  auto sources = buffer<std::int64_t>::for_overwrite(one_block ? 0 : n);
  auto new_starts = buffer<std::int64_t>::for_overwrite(n);
  // The ids are walked, not read: a repeated descriptor (expand by equal
  // counts, treeLookup's levels) stores none. Raw pointers, captured by
  // value: the loop reloads nothing per segment.
  const vsegd& d = xss.descriptor();
  const std::int64_t *plen = xss.physical_lengths().data(), *psrc = xss.physical_sources().data(),
                     *pst = xss.physical_starts().data(), *st = starts.data(), *ln = lengths.data();
  std::int64_t *so = sources.data(), *ns = new_starts.data();
  detail::first_bad bad;
  // The new starts go around the cache when they are larger than it
  // (detail/streaming_store.hpp): treeLookup's last levels.
  detail::with_store_for(n * 8, [&]<class Store>(Store) {
    detail::parallel_for(n, [=, &d, &bad](std::int64_t lo, std::int64_t hi) {
      d.for_each_vsegid(lo, hi, [=, &bad](std::int64_t k, std::int64_t p) {
        const std::int64_t len = plen[p];
        if (st[k] < 0 || ln[k] < 0 || st[k] > len || ln[k] > len - st[k]) bad.note(k);
        if (!one_block) so[k] = psrc[p];
        Store::put(ns + k, pst[p] + st[k]);
      });
      Store::fence();
    });
  });
  if (bad.any()) {
    const std::int64_t k = bad.position();
    detail::throw_out_of_range("slice_l", "slice [", starts[k], ", ", starts[k], " + ", lengths[k],
                               ") outside segment ", k, " of length ", xss.length(k));
  }
  // Valid by construction: every slice was checked to lie inside its segment.
  auto physical = ssegd::from_arrays_unchecked(
      one_block ? detail::shared_zeros<std::int64_t>(n, "slice_l") : std::move(sources).freeze(),
      std::move(new_starts).freeze(), lengths, "slice_l");
  return nested<T>::from_vsegd_unchecked({xss.blocks().begin(), xss.blocks().end()},
                                         vsegd::identity(std::move(physical)));
}

}  // namespace vseg
