// replicate and expand on nested arrays: descriptor operations, no element
// is copied.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/index_buffers.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/saturating.hpp"
#include "vseg/flat.hpp"
#include "vseg/nested/nested.hpp"
#include "vseg/segd.hpp"

namespace vseg {

// [xs, xs, ..., xs] (n times): one physical segment named n times. O(1)
// amortised: the vsegids are a slice of a shared zero buffer (no page
// written). Throws std::invalid_argument for a negative n.
template <class T>
nested<T> replicate(std::int64_t n, const array<T>& xs) {
  if (n < 0) detail::throw_invalid("replicate", "negative count ", n);
  // One physical segment, all of xs: source 0 and start 0 are slices of the
  // shared zeros too, so the only allocation is the one length.
  auto physical = ssegd::from_arrays_unchecked(detail::shared_zeros<std::int64_t>(1),
                                               detail::shared_zeros<std::int64_t>(1),
                                               array<std::int64_t>{xs.size()}, "replicate");
  return nested<T>::from_vsegd_unchecked(
      {xs}, vsegd::from_vsegids_unchecked(detail::shared_zeros<std::int64_t>(n, "replicate"), std::move(physical)));
}

namespace detail {

// Throws std::invalid_argument naming `operation`, the first negative count
// and its position. Returns the count every segment has when they are all
// equal (found in the same pass), -1 otherwise or when there are none.
// O(counts).
inline std::int64_t check_counts(const char* operation, const array<std::int64_t>& counts) {
  const std::int64_t* c = counts.data();
  if (counts.size() == 0) return -1;
  const std::int64_t first = c[0];
  first_bad bad;
  std::atomic<bool> varied{false};
  parallel_for(counts.size(), [&](std::int64_t lo, std::int64_t hi) {
    std::int64_t differ = 0;
    for (std::int64_t i = lo; i < hi; ++i) {
      if (c[i] < 0) bad.note(i);
      differ |= c[i] ^ first;
    }
    if (differ != 0) varied.store(true, std::memory_order_relaxed);
  });
  if (bad.any())
    throw_invalid(operation, "negative count ", c[bad.position()], " for segment ", bad.position());
  return varied.load() ? -1 : first;
}

}  // namespace detail

// Lifted replicate: segment i of xss repeated counts[i] times. O(counts)
// when every count is equal (no id written), O(result segments) otherwise. Throws std::invalid_argument for a count of the wrong size or a
// negative count, std::overflow_error when the counts overflow.
template <class T>
nested<T> expand(const array<std::int64_t>& counts, const nested<T>& xss) {
  if (counts.size() != xss.size())
    detail::throw_invalid("expand", "counts has size ", counts.size(), " but the nested array has ",
                          xss.size(), " segments");
  if (xss.descriptor_segments() == 1) {
    // One physical segment (a replicated array, treeLookup's table): every
    // vsegid is 0, and so is every one of the result: a slice of the shared
    // zeros. O(counts) read, nothing written.
    const std::int64_t total = reduce(counts, detail::saturating_plus{});
    if (total >= 0) return xss.with_vsegids_unchecked(detail::shared_zeros<std::int64_t>(total, "expand"));
    // a negative count or an overflow: reported below
  }
  const std::int64_t each = detail::check_counts("expand", counts);
  if (each > 0) {
    // Every count equal (treeLookup's twos): the descriptor's repeat is
    // multiplied, no id is written; a chain of such expands composes into
    // one repeat (level fusion, vsegd.hpp's glossary). O(counts) read.
    return nested<T>::from_vsegd_unchecked({xss.blocks().begin(), xss.blocks().end()},
                                           xss.descriptor().repeated(each));
  }
  if (xss.identity_vsegids()) {
    // expand(counts, [0, 1, ..., n-1]) without materialising the iota.
    const segd s = segd::from_lengths(counts);
    auto out = buffer<std::int64_t>::for_overwrite(s.elements());
    std::int64_t* o = out.data();
    detail::for_each_segment_piece(s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
                                   [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                                     for (std::int64_t k = lo; k < hi; ++k) o[k] = j;
                                   });
    return xss.with_vsegids_unchecked(std::move(out).freeze());
  }
  return xss.with_vsegids_unchecked(expand(counts, xss.vsegids()));
}

// Lifted replicate by one count: every segment of xss repeated `each` times,
// as expand(fill(xss.size(), each), xss), but O(1) amortised: no count is
// read and no id written (the descriptor's repeat is multiplied, or a
// one-segment array's shared zeros sliced). The form a flattening compiler
// emits for a count it knows is constant (treeLookup's two halves). Throws
// std::invalid_argument for a negative count, std::overflow_error when the
// result's segment count passes int64.
template <class T>
nested<T> expand(std::int64_t each, const nested<T>& xss) {
  if (each < 0) detail::throw_invalid("expand", "negative count ", each, " for every segment");
  if (each == 0) return xss.with_vsegids_unchecked(array<std::int64_t>{});
  if (xss.descriptor_segments() == 1) {
    if (xss.size() > std::numeric_limits<std::int64_t>::max() / each)
      detail::throw_overflow("expand", "the counts sum past int64 (", xss.size(), " segments of ", each, ")");
    return xss.with_vsegids_unchecked(detail::shared_zeros<std::int64_t>(xss.size() * each, "expand"));
  }
  return nested<T>::from_vsegd_unchecked({xss.blocks().begin(), xss.blocks().end()},
                                         xss.descriptor().repeated(each));
}

}  // namespace vseg
