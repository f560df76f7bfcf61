// How a kernel writes one long output stream: a plain store, or a streaming
// (non-temporal) store that bypasses the cache. When the output is larger
// than the cache, a plain store first reads every line it writes (the
// read-for-ownership), traffic the streaming store does not pay. Used where
// the output is written one entry at a time in order: slice_l's starts
// (extract.hpp), index_l's gathers (expression.hpp) and a repeated
// descriptor's ids (vsegd.hpp). Tried and rejected for the per-segment
// results of a segmented fold, whose small stores interleave with the
// reads. Measurements: notes/bench.md and notes/bench-primitives.md.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "vseg/tuning.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace vseg::detail {

// *p = v, through the cache. fence() does nothing.
struct plain_store {
  template <class T>
  static void put(T* p, const T& v) {
    *p = v;
  }
  static void fence() {}
};

// *p = v without reading p's line first (x86-64: movnti). Every block of
// work ends with fence(), so its stores are visible before the task that
// made them is seen to finish. Types other than 8-byte trivially copyable
// ones, and other machines, take the plain store.
struct streaming_store {
  template <class T>
  static void put(T* p, const T& v) {
#if defined(__x86_64__)
    if constexpr (sizeof(T) == 8 && std::is_trivially_copyable_v<T>)
      _mm_stream_si64(reinterpret_cast<long long*>(p), std::bit_cast<long long>(v));
    else
      *p = v;
#else
    *p = v;
#endif
  }
  static void fence() {
#if defined(__x86_64__)
    _mm_sfence();
#endif
  }
};

// f(streaming_store{}) when the output takes at least
// tuning::streaming_store_min_bytes (more than the cache: its lines would be
// evicted before anyone read them), f(plain_store{}) otherwise. O(1) + f.
template <class F>
decltype(auto) with_store_for(std::int64_t output_bytes, F&& f) {
  if (output_bytes >= tuning::streaming_store_min_bytes) return f(streaming_store{});
  return f(plain_store{});
}

}  // namespace vseg::detail
