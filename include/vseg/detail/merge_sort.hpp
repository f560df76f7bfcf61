// A parallel stable merge sort for any strict weak order: the path of
// vseg::sort and sort_by_key when the order is not an arithmetic key's <
// (vseg/algorithm/sort.hpp). O(n log n) work, O(log^2 n) span per round.
//
// Runs of tuning::merge_run elements are sorted serially (std::stable_sort),
// then pairs of neighbouring runs are merged in rounds, each run twice as
// long as the last. A round is cut into pieces of tuning::merge_piece
// output elements; a piece finds where it starts in its two inputs by a
// binary search (the merge path's co-rank), so one long merge uses every
// core. Ties take the left run's element first, which keeps the sort stable.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "vseg/detail/parallel.hpp"
#include "vseg/tuning.hpp"

namespace vseg::detail {

// How many of the first d elements of the stable merge of a[0, na) and
// b[0, nb) come from a. O(log min(na, nb)).
template <class T, class Less>
std::int64_t merge_corank(const T* a, std::int64_t na, const T* b, std::int64_t nb, std::int64_t d,
                          const Less& less) {
  std::int64_t lo = std::max<std::int64_t>(0, d - nb);
  std::int64_t hi = std::min(d, na);
  // a[i] is among the first d exactly when it precedes b[d - i - 1],
  // i.e. when !(b[d - i - 1] < a[i]); that holds for i below the answer.
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (!less(b[d - mid - 1], a[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Merges output elements [out_lo, out_hi) of the stable merge of src[lo,
// mid) and src[mid, hi) into dst (same positions).
template <class T, class Less>
void merge_part(const T* src, T* dst, std::int64_t lo, std::int64_t mid, std::int64_t hi, std::int64_t out_lo,
                std::int64_t out_hi, const Less& less) {
  const T* a = src + lo;
  const T* b = src + mid;
  const std::int64_t na = mid - lo;
  const std::int64_t nb = hi - mid;
  const std::int64_t i0 = merge_corank(a, na, b, nb, out_lo - lo, less);
  const std::int64_t i1 = merge_corank(a, na, b, nb, out_hi - lo, less);
  const std::int64_t j0 = out_lo - lo - i0;
  const std::int64_t j1 = out_hi - lo - i1;
  std::merge(a + i0, a + i1, b + j0, b + j1, dst + out_lo, less);
}

// Number of merge rounds after the runs are sorted.
inline int merge_rounds(std::int64_t n) {
  int rounds = 0;
  for (std::int64_t width = tuning::merge_run; width < n; width *= 2) ++rounds;
  return rounds;
}

// Sorts in[0, n) stably by less into out; tmp has room for n (in may be
// out). O(n log n).
template <class T, class Less>
void merge_sort(const T* in, T* out, T* tmp, std::int64_t n, const Less& less) {
  const int rounds = merge_rounds(n);
  // The runs start in whichever buffer makes the last round end in out.
  T* src = rounds % 2 == 0 ? out : tmp;
  T* dst = rounds % 2 == 0 ? tmp : out;
  for_each_block(n, tuning::merge_run, [&](std::int64_t, std::int64_t lo, std::int64_t hi) {
    if (in + lo != src + lo) std::copy(in + lo, in + hi, src + lo);
    std::stable_sort(src + lo, src + hi, less);
  });
  for (std::int64_t width = tuning::merge_run; width < n; width *= 2) {
    // Output pieces; each merges its share of every pair it overlaps.
    for_each_block(n, tuning::merge_piece, [&](std::int64_t, std::int64_t out_lo, std::int64_t out_hi) {
      std::int64_t at = out_lo;
      while (at < out_hi) {
        const std::int64_t lo = at / (2 * width) * (2 * width);
        const std::int64_t mid = std::min(lo + width, n);
        const std::int64_t hi = std::min(lo + 2 * width, n);
        const std::int64_t end = std::min(hi, out_hi);
        if (mid == hi) std::copy(src + at, src + end, dst + at);  // a lone run
        else merge_part(src, dst, lo, mid, hi, at, end, less);
        at = end;
      }
    });
    std::swap(src, dst);
  }
}

}  // namespace vseg::detail
