// The checked gather shared by bpermute and index_l's one-segment path:
// o[k] = src[ix[k]], every index checked against the source length.
//
// Why blocks: a check inside the gather loop (compare, branch to the
// cold path that notes a bad position) made a random gather over 2^24
// int64 indices 1.5-2.5x slower than the unchecked loop (notes/bench.md,
// treeLookup). Checking a block of indices first (branch-free, from L1)
// and then gathering it with the plain loop costs the same as the
// unchecked gather: the indices of a block are re-read from L1, and the
// loop keeps as many misses in flight as the unchecked one.
#pragma once

#include <algorithm>
#include <cstdint>

#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/streaming_store.hpp"
#include "vseg/tuning.hpp"

namespace vseg::detail {

// o[k] = src[ix[k]] for k in [lo, hi), written with Store
// (streaming_store.hpp; the caller fences); a k whose index lies outside
// [0, len) is noted in `bad` and its o[k] left unwritten. O(hi - lo).
template <class T, class I, class Store = plain_store>
void gather_checked(const T* src, std::int64_t len, const I* ix, std::int64_t lo, std::int64_t hi, T* o,
                    first_bad& bad) {
  for (std::int64_t b = lo; b < hi; b += tuning::gather_check_block) {
    const std::int64_t e = std::min(b + tuning::gather_check_block, hi);
    bool good = true;
    if constexpr (integer_index<I>) good = all_in_range(ix, b, e, len);
    else good = false;
    if (good) [[likely]] {
      for (std::int64_t k = b; k < e; ++k) Store::put(o + k, src[static_cast<std::int64_t>(ix[k])]);
    } else {
      for (std::int64_t k = b; k < e; ++k) {
        const auto i = static_cast<std::int64_t>(ix[k]);
        if (in_range(i, len)) o[k] = src[i];
        else bad.note(k);
      }
    }
  }
}

}  // namespace vseg::detail
