// Shared read-only index arrays: n zeros and 0, 1, ..., n-1.
//
// Descriptors are full of them: replicate(n, xs) names physical segment 0
// n times, and a nested array built from a contiguous descriptor has
// sources [0, 0, ...] and vsegids [0, 1, 2, ...]. Filling a fresh array per
// call made replicate an O(n) write (134 MB for the 16.7 M rows of a 256^3
// stencil, on every SpMV) and cost 8 bytes per row per descriptor. (Such an
// array's identity vsegids are not stored at all now; nested::vsegids()
// hands out the iota below only when an operation asks for them.)
//
// Both arrays are slices of one process-wide buffer, grown (to the next
// power of two for the zeros, to a multiple of 2^16 for the iota) when a
// longer one is asked for. The previous buffer lives
// on while an array still slices it; the cache holds it only weakly, so an
// unused buffer is freed. The zeros are anonymous memory that is never
// written: untouched pages cost no physical memory, and reading them maps
// the kernel's shared zero page. O(1) per call, amortised, except that a
// grown iota buffer is written once (O(n)).
#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <new>

#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"

namespace vseg::detail {

// The smallest power of two >= n (and >= 2^16): the zeros cost address
// space only.
inline std::int64_t zeros_capacity(std::int64_t n) {
  std::int64_t c = std::int64_t{1} << 16;
  while (c < n) c *= 2;
  return c;
}

// n rounded up to a multiple of 2^16: the iota is real memory.
inline std::int64_t iota_capacity(std::int64_t n) {
  constexpr std::int64_t step = std::int64_t{1} << 16;
  return (n + step - 1) / step * step;
}

// Anonymous zero pages for `bytes` bytes, unmapped when the last owner goes.
inline std::shared_ptr<const void> map_zero_pages(std::int64_t bytes) {
  void* p = ::mmap(nullptr, static_cast<std::size_t>(bytes), PROT_READ,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return std::shared_ptr<const void>(p, [bytes](const void* q) {
    ::munmap(const_cast<void*>(q), static_cast<std::size_t>(bytes));
  });
}

// n zeros of type I, sharing one never-written buffer. O(1) amortised.
template <class I>
array<I> shared_zeros(std::int64_t n) {
  static std::mutex lock;
  static std::weak_ptr<const void> cached;
  static std::int64_t cached_size = 0;
  if (n <= 0) return array<I>{};
  std::lock_guard<std::mutex> guard(lock);
  std::shared_ptr<const void> owner = cached.lock();
  if (!owner || cached_size < n) {
    cached_size = zeros_capacity(n);
    owner = map_zero_pages(cached_size * static_cast<std::int64_t>(sizeof(I)));
    cached = owner;
  }
  const I* data = static_cast<const I*>(owner.get());
  return array<I>::adopt(std::move(owner), data, n);
}

// [0, 1, ..., n-1] of type I, sharing one buffer. O(1) amortised; O(n) when
// the buffer grows.
template <class I>
array<I> shared_iota(std::int64_t n) {
  static std::mutex lock;
  static std::weak_ptr<const void> cached;
  static std::int64_t cached_size = 0;
  if (n <= 0) return array<I>{};
  std::lock_guard<std::mutex> guard(lock);
  std::shared_ptr<const void> owner = cached.lock();
  if (!owner || cached_size < n) {
    const std::int64_t size = iota_capacity(n);
    auto b = buffer<I>::for_overwrite(size);
    I* out = b.data();
    parallel_for(size, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) out[i] = static_cast<I>(i);
    });
    array<I> full = std::move(b).freeze();
    owner = std::shared_ptr<const void>(std::make_shared<array<I>>(full), full.data());
    cached = owner;
    cached_size = size;
  }
  const I* data = static_cast<const I*>(owner.get());
  return array<I>::adopt(std::move(owner), data, n);
}

}  // namespace vseg::detail
