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
// longer one is asked for. The previous buffer lives on while an array
// still slices it. The cache holds the iota only weakly, so an unused one
// is freed; it keeps the zeros (address space, not memory) mapped up to a
// size until a longer one replaces them (shared_zeros). The zeros are
// anonymous memory that is never written: untouched pages cost no physical
// memory, and reading them maps the kernel's shared zero page. O(1) per
// call, amortised, except that a grown iota buffer is written once (O(n)).
#pragma once

#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/tuning.hpp"

namespace vseg::detail {

// An index buffer the system would not give: a std::bad_alloc (so existing
// handlers still catch it) whose what() names the operation and the count.
class index_buffer_alloc_error : public std::bad_alloc {
 public:
  explicit index_buffer_alloc_error(std::string what) : what_(std::move(what)) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

// The most elements of type I one index buffer may hold: its byte count must
// fit in std::ptrdiff_t. Larger requests throw std::length_error.
template <class I>
constexpr std::int64_t max_index_buffer_elements() {
  return std::numeric_limits<std::ptrdiff_t>::max() / static_cast<std::int64_t>(sizeof(I));
}

// Throws std::length_error naming `operation` and n when n > limit. O(1).
inline void check_index_buffer_size(const char* operation, std::int64_t n, std::int64_t limit,
                                    std::size_t element_bytes) {
  if (n > limit)
    throw std::length_error(message(operation, n, " indices of ", element_bytes,
                                    " bytes pass the 2^63-byte limit of one buffer (at most ", limit, ")"));
}

// The smallest power of two >= n (and >= 2^16), or n itself when that power
// would exceed `limit` (n <= limit): the zeros cost address space only. O(log n).
inline std::int64_t zeros_capacity(std::int64_t n, std::int64_t limit) {
  std::int64_t c = tuning::index_buffer_step;
  while (c < n) {
    if (c > limit / 2) return n;  // doubling would pass the limit (or 2^63)
    c *= 2;
  }
  return c;
}

// n rounded up to a multiple of 2^16, or n itself when that would exceed
// `limit` (n <= limit): the iota is real memory. O(1).
inline std::int64_t iota_capacity(std::int64_t n, std::int64_t limit) {
  constexpr std::int64_t step = tuning::index_buffer_step;
  if (n > limit - (step - 1)) return n;
  return (n + step - 1) / step * step;
}

// Anonymous zero pages for `bytes` bytes, unmapped when the last owner goes;
// index_buffer_alloc_error naming `operation` and the n asked for when the
// system refuses. O(1).
inline std::shared_ptr<const void> map_zero_pages(std::int64_t bytes, const char* operation,
                                                  std::int64_t n) {
  void* p = ::mmap(nullptr, static_cast<std::size_t>(bytes), PROT_READ,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    const int code = errno;
    throw index_buffer_alloc_error(message(operation, "cannot map ", bytes, " bytes of zeros for ", n,
                                           " indices: ", std::strerror(code)));
  }
#ifdef MADV_HUGEPAGE
  // Read faults then map the kernel's huge zero page: one fault per 2 MiB
  // instead of one per 4 KiB page (where transparent huge pages are on or
  // "madvise"). Only advice: a refusal changes nothing but the fault count.
  if (bytes >= (std::int64_t{2} << 20)) (void)::madvise(p, static_cast<std::size_t>(bytes), MADV_HUGEPAGE);
#endif
  return std::shared_ptr<const void>(p, [bytes](const void* q) {
    ::munmap(const_cast<void*>(q), static_cast<std::size_t>(bytes));
  });
}

// Whether every byte of v is zero (so n copies of v are n * sizeof(T) zero
// bytes, as a fresh anonymous page holds). O(sizeof(T)).
template <class T>
bool all_zero_bytes(const T& v) noexcept {
  static_assert(std::is_trivially_copyable_v<T>);
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  for (unsigned char b : bytes)
    if (b != 0) return false;
  return true;
}

// n zeros of type I, sharing one never-written buffer. O(1) amortised.
// Throws std::length_error when n·sizeof(I) bytes exceed 2^63, and
// index_buffer_alloc_error when the system refuses the address space; both
// name `operation` (the caller, e.g. "replicate") and n.
//
// A mapping of at most tuning::shared_zeros_kept_bytes stays mapped after
// its last slice is dropped: the pages a read has faulted in (each mapping
// the kernel's zero page) stay faulted in, so the next call of the same
// size costs no mmap, no munmap and no page fault. A larger one lives only
// while a slice holds it (address space is not free without bound).
template <class I>
array<I> shared_zeros(std::int64_t n, const char* operation = "shared_zeros") {
  static std::mutex lock;
  static std::weak_ptr<const void> cached;
  static std::shared_ptr<const void> kept;  // the cached mapping, while small enough
  static std::int64_t cached_size = 0;
  if (n <= 0) return array<I>{};
  constexpr std::int64_t limit = max_index_buffer_elements<I>();
  check_index_buffer_size(operation, n, limit, sizeof(I));
  std::lock_guard<std::mutex> guard(lock);
  std::shared_ptr<const void> owner = cached.lock();
  if (!owner || cached_size < n) {
    const std::int64_t size = zeros_capacity(n, limit);
    const std::int64_t bytes = size * static_cast<std::int64_t>(sizeof(I));
    owner = map_zero_pages(bytes, operation, n);
    // Only now: a failed mapping leaves the cache describing the old buffer.
    cached = owner;
    cached_size = size;
    kept = bytes <= tuning::shared_zeros_kept_bytes ? owner : nullptr;
  }
  const I* data = static_cast<const I*>(owner.get());
  return array<I>::adopt(std::move(owner), data, n);
}

// [0, 1, ..., n-1] of type I, sharing one buffer. O(1) amortised; O(n) when
// the buffer grows. Throws std::length_error when n·sizeof(I) bytes exceed
// 2^63, and index_buffer_alloc_error when the memory cannot be had; both
// name `operation` and n.
template <class I>
array<I> shared_iota(std::int64_t n, const char* operation = "shared_iota") {
  static std::mutex lock;
  static std::weak_ptr<const void> cached;
  static std::int64_t cached_size = 0;
  if (n <= 0) return array<I>{};
  constexpr std::int64_t limit = max_index_buffer_elements<I>();
  check_index_buffer_size(operation, n, limit, sizeof(I));
  std::lock_guard<std::mutex> guard(lock);
  std::shared_ptr<const void> owner = cached.lock();
  if (!owner || cached_size < n) {
    const std::int64_t size = iota_capacity(n, limit);
    auto b = [&] {
      try {
        return buffer<I>::for_overwrite(size);
      } catch (const std::bad_alloc&) {
        throw index_buffer_alloc_error(message(operation, "cannot allocate ", size, " indices of ",
                                               sizeof(I), " bytes for an iota of ", n));
      }
    }();
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
