// vseg's buffer allocator. The policy and its reasons are in
// include/vseg/detail/allocator.hpp; the measurements in notes/allocator.md.
#include "vseg/detail/allocator.hpp"

#include "vseg/detail/error.hpp"
#include "vseg/tuning.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <utility>

#include <sys/mman.h>
#include <unistd.h>

// Under AddressSanitizer a block the allocator keeps is poisoned, so that a
// read through a dangling array is still reported although the memory was
// never given back to malloc.
#if defined(__SANITIZE_ADDRESS__)
#define VSEG_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VSEG_ASAN 1
#endif
#endif
#if defined(VSEG_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace vseg {

buffer_allocation_error::buffer_allocation_error(std::size_t bytes) noexcept {
  if (bytes == static_cast<std::size_t>(-1))
    std::snprintf(message_, sizeof message_, "vseg::buffer: cannot allocate more than %zu bytes", bytes);
  else
    std::snprintf(message_, sizeof message_, "vseg::buffer: cannot allocate %zu bytes", bytes);
}

namespace {

void poison(void* p, std::size_t n) noexcept {
#if defined(VSEG_ASAN)
  ASAN_POISON_MEMORY_REGION(p, n);
#else
  (void)p, (void)n;
#endif
}

void unpoison(void* p, std::size_t n) noexcept {
#if defined(VSEG_ASAN)
  ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
  (void)p, (void)n;
#endif
}

constexpr std::size_t kib = std::size_t{1} << 10;
// The policy's constants live in vseg/tuning.hpp.
constexpr auto small_limit = static_cast<std::size_t>(tuning::allocator_small_limit);  // below: operator new
constexpr auto pool_threshold = static_cast<std::size_t>(tuning::allocator_pool_threshold);  // from here: the pool
constexpr auto class_unit = static_cast<std::size_t>(tuning::allocator_class_bytes);  // class c: blocks of c units
constexpr std::size_t classes = pool_threshold / class_unit + 1;
constexpr auto thread_depth = static_cast<int>(tuning::allocator_thread_depth);  // blocks per class and thread
constexpr auto thread_cache_bytes = static_cast<std::size_t>(tuning::allocator_thread_cache_bytes);
constexpr std::size_t granule = 4 * kib;             // pool blocks are whole pages
constexpr std::size_t huge_page = 2048 * kib;
constexpr std::size_t max_request = std::size_t{1} << 46;  // 64 TiB
constexpr std::size_t malloc_alignment = alignof(std::max_align_t);

// malloc, or aligned_alloc for over-aligned blocks; nullptr on failure.
void* system_allocate(std::size_t bytes, std::size_t alignment) noexcept {
  if (bytes == 0) bytes = 1;
  if (alignment <= malloc_alignment) return std::malloc(bytes);
  const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  return rounded < bytes ? nullptr : std::aligned_alloc(alignment, rounded);
}

// Blocks below 1 KiB (and over-aligned ones below 64 KiB): the global
// operator new, as std::make_shared used; a program that replaces it (the
// VCODE tool keeps a per-thread cache of small blocks) serves these too.
void* small_allocate(std::size_t bytes, std::size_t alignment) noexcept {
  if (alignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__) return ::operator new(bytes, std::nothrow);
  return ::operator new(bytes, std::align_val_t{alignment}, std::nothrow);
}

void small_release(void* p, std::size_t alignment) noexcept {
  if (alignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__) ::operator delete(p);
  else ::operator delete(p, std::align_val_t{alignment});
}

// ---------------------------------------------------------------------------
// Blocks of 1 to 64 KiB: per thread, a last-in-first-out stack per size
// class. Results of operations on a few thousand elements are made and
// dropped in loops (the VCODE interpreter: ~40 per iteration of radix);
// handing out the block just freed keeps a loop's working set in the CPU
// cache, where glibc's bins cycle through many blocks. Trivially
// destructible, so it stays usable until its thread ends; the blocks it
// holds are freed by flush_at_exit, after which it is closed.
struct thread_cache {
  std::array<std::array<void*, thread_depth>, classes> blocks;
  std::array<int, classes> count;
  std::size_t bytes;
  bool closed;
};
thread_local constinit thread_cache cache{};

struct thread_cache_flush {
  ~thread_cache_flush() {
    for (std::size_t c = 0; c < classes; ++c)
      while (cache.count[c] > 0) {
        void* p = cache.blocks[c][static_cast<std::size_t>(--cache.count[c])];
        unpoison(p, c * class_unit);
        std::free(p);
      }
    cache.bytes = 0;
    cache.closed = true;
  }
};
thread_local thread_cache_flush flush_at_exit;

void* cached_allocate(std::size_t c) noexcept {
  if (cache.count[c] > 0) {
    void* p = cache.blocks[c][static_cast<std::size_t>(--cache.count[c])];
    cache.bytes -= c * class_unit;
    unpoison(p, c * class_unit);
    return p;
  }
  return std::malloc(c * class_unit);
}

void cached_release(void* p, std::size_t c) noexcept {
  const std::size_t size = c * class_unit;
  if (!cache.closed && cache.count[c] < thread_depth && cache.bytes + size <= thread_cache_bytes) {
    (void)&flush_at_exit;  // its destructor frees what the thread keeps
    cache.blocks[c][static_cast<std::size_t>(cache.count[c]++)] = p;
    cache.bytes += size;
    poison(p, size);
    return;
  }
  std::free(p);
}

// ---------------------------------------------------------------------------
// Blocks of 64 KiB and more: one address range reserved once (address space
// only), advised for transparent huge pages as a whole before anything
// touches it, carved by best fit with coalescing. A freed block stays mapped
// (its pages warm) while the free bytes are within the limit. The range is
// never unmapped; handing memory back is MADV_DONTNEED on free ranges.
class pool {
 public:
  // A block of `bytes` bytes (page aligned), or nullptr when the range is
  // used up or could not be reserved: the caller then asks malloc.
  void* allocate(std::size_t bytes) {
    const std::size_t need = round_up(bytes);
    std::lock_guard<std::mutex> lock(m_);
    if (!reserve()) {
      ++stats_.fallback_blocks;
      return nullptr;
    }
    std::size_t at = 0;
    bool backed = false;
    if (auto best = by_size_.lower_bound({need, 0}); best != by_size_.end()) {
      // The smallest free range that fits; what is left of it stays free.
      const auto [size, offset] = *best;
      backed = by_address_.at(offset).backed;
      erase_free(offset);
      at = offset;
      if (size > need) insert_free(at + need, size - need, backed);
    } else {
      // Nothing fits: carve from the end of the carved part, starting at
      // the last free range if it reaches that end.
      at = used_;
      if (!by_address_.empty()) {
        const auto last = std::prev(by_address_.end());
        if (last->first + last->second.size == used_) at = last->first;
      }
      if (need > reserved_ - at) {
        ++stats_.fallback_blocks;
        return nullptr;
      }
      if (at != used_) {
        backed = by_address_.at(at).backed;
        erase_free(at);
      }
      used_ = at + need;
    }
    ++(backed ? stats_.reused_blocks : stats_.fresh_blocks);
    in_use_ += need;
    char* block = base_.load(std::memory_order_relaxed) + at;
    unpoison(block, need);
    return block;
  }

  // Whether p came from allocate(). Called for every freed block, by any
  // thread, also before the range exists: base_ is published (release)
  // after reserved_ is set.
  bool owns(const void* p) const noexcept {
    const char* base = base_.load(std::memory_order_acquire);
    const auto* c = static_cast<const char*>(p);
    return base != nullptr && c >= base && c < base + reserved_;
  }

  // Takes back a block of `bytes` bytes from allocate(): merged with its
  // free neighbours, kept mapped, and the largest free ranges handed back
  // while the cached bytes are over the limit.
  void release(void* p, std::size_t bytes) noexcept {
    std::size_t size = round_up(bytes);
    poison(p, size);
    std::lock_guard<std::mutex> lock(m_);
    std::size_t at = static_cast<std::size_t>(static_cast<char*>(p) - base_.load(std::memory_order_relaxed));
    in_use_ -= size;
    if (auto next = by_address_.find(at + size); next != by_address_.end()) {
      size += next->second.size;
      erase_free(next->first);
    }
    if (auto prev = by_address_.lower_bound(at); prev != by_address_.begin()) {
      --prev;
      if (prev->first + prev->second.size == at) {
        at = prev->first;
        size += prev->second.size;
        erase_free(at);
      }
    }
    // A merged range counts as mapped whole, although a neighbour may have
    // been handed back already: cached_ may overstate, never understate.
    insert_free(at, size, true);
    trim(limit_);
  }

  void set_limit(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(m_);
    limit_ = bytes;
    trim(limit_);
  }

  std::size_t limit() {
    std::lock_guard<std::mutex> lock(m_);
    return limit_;
  }

  void set_fresh_pages(fresh_pages policy) {
    std::lock_guard<std::mutex> lock(m_);
    fresh_ = policy;
    if (base_.load(std::memory_order_relaxed) == nullptr) return;  // reserve() advises the whole range
    // From the first huge page not yet carved: a huge page that holds used
    // blocks keeps the pages it has.
    const std::size_t from = (used_ + huge_page - 1) / huge_page * huge_page;
    if (from < reserved_) advise(from, reserved_ - from);
  }

  fresh_pages fresh_policy() {
    std::lock_guard<std::mutex> lock(m_);
    return fresh_;
  }

  void release_all() {
    std::lock_guard<std::mutex> lock(m_);
    trim(0);
  }

  allocator_statistics stats() {
    std::lock_guard<std::mutex> lock(m_);
    allocator_statistics s = stats_;
    s.cache_limit = static_cast<std::int64_t>(limit_);
    s.cached_bytes = static_cast<std::int64_t>(cached_);
    s.in_use_bytes = static_cast<std::int64_t>(in_use_);
    s.pool_bytes = static_cast<std::int64_t>(used_);
    return s;
  }

 private:
  struct free_range {
    std::size_t size;
    bool backed;  // its pages may be mapped (counted in cached_)
  };

  static std::size_t round_up(std::size_t bytes) { return (bytes + granule - 1) / granule * granule; }

  void insert_free(std::size_t at, std::size_t size, bool backed) {
    by_address_.emplace(at, free_range{size, backed});
    by_size_.emplace(size, at);
    if (backed) cached_ += size;
  }

  void erase_free(std::size_t at) {
    const auto it = by_address_.find(at);
    by_size_.erase({it->second.size, at});
    if (it->second.backed) cached_ -= it->second.size;
    by_address_.erase(it);
  }

  // Hands back the largest mapped free ranges until at most `target` bytes
  // are cached. Largest first: the fewest calls, and a small range is the
  // likeliest to be asked for again soon.
  void trim(std::size_t target) noexcept {
    for (auto it = by_size_.rbegin(); it != by_size_.rend() && cached_ > target; ++it) {
      free_range& r = by_address_.at(it->second);
      if (!r.backed) continue;
      char* p = base_.load(std::memory_order_relaxed) + it->second;
      // Under ASan the range is poisoned; madvise does not read it.
      madvise(p, r.size, MADV_DONTNEED);
      r.backed = false;
      cached_ -= r.size;
      stats_.released_bytes += static_cast<std::int64_t>(r.size);
    }
  }

  bool reserve() {
    if (base_.load(std::memory_order_relaxed) != nullptr) return true;
    if (tried_) return false;
    tried_ = true;
    // Address space for the machine's memory twice over (NORESERVE: no
    // commitment until touched), at most 1 TiB.
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const std::size_t physical = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                                                       : std::size_t{8} << 30;
    const std::size_t want = std::min(std::size_t{1} << 40, 2 * physical);
    void* p = mmap(nullptr, want + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    const std::uintptr_t base = (reinterpret_cast<std::uintptr_t>(p) + huge_page - 1) & ~(huge_page - 1);
    reserved_ = want;
    base_.store(reinterpret_cast<char*>(base), std::memory_order_release);
    advise(0, want);
    return true;
  }

  // Advises [at, at + size) of the range for the fresh-page policy. Advice
  // only: huge pages are ignored where transparent huge pages are off. A
  // fresh 80 MB result faults in 40 huge pages instead of 20,000 small ones.
  void advise(std::size_t at, std::size_t size) {
    madvise(base_.load(std::memory_order_relaxed) + at, size,
            fresh_ == fresh_pages::huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  }

  static std::size_t default_limit() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return std::size_t{1} << 30;
    return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 8;
  }

  std::mutex m_;
  std::atomic<char*> base_{nullptr};
  std::size_t reserved_ = 0;
  std::size_t used_ = 0;     // the carved prefix of the range
  std::size_t in_use_ = 0;   // bytes of live blocks
  std::size_t cached_ = 0;   // bytes of free ranges that may be mapped
  std::size_t limit_ = default_limit();
  bool tried_ = false;
  fresh_pages fresh_ = fresh_pages::huge;
  std::map<std::size_t, free_range> by_address_;             // offset -> range
  std::set<std::pair<std::size_t, std::size_t>> by_size_;    // (size, offset)
  allocator_statistics stats_;
};

// Never destroyed: arrays may be freed during static destruction.
pool& shared_pool() {
  static pool* p = new pool;
  return *p;
}

}  // namespace

allocator_statistics allocator_stats() { return shared_pool().stats(); }

void set_buffer_cache_limit(std::int64_t bytes) {
  if (bytes < 0) detail::throw_invalid("set_buffer_cache_limit", "negative limit ", bytes, " bytes");
  shared_pool().set_limit(static_cast<std::size_t>(bytes));
}

std::int64_t buffer_cache_limit() { return static_cast<std::int64_t>(shared_pool().limit()); }

void release_buffer_cache() { shared_pool().release_all(); }

void set_fresh_pages(fresh_pages policy) {
  if (policy != fresh_pages::huge && policy != fresh_pages::small)
    detail::throw_invalid("set_fresh_pages", "unknown policy ", static_cast<int>(policy));
  shared_pool().set_fresh_pages(policy);
}

fresh_pages fresh_page_policy() { return shared_pool().fresh_policy(); }

namespace detail {

void* buffer_allocate(std::size_t bytes, std::size_t alignment) {
  // More than any machine has: refused before malloc sees it (under ASan a
  // request past its maximum would abort instead of returning nullptr).
  if (bytes > max_request) throw buffer_allocation_error(bytes);
  void* p = nullptr;
  if (bytes >= pool_threshold) {
    p = shared_pool().allocate(bytes);
    if (p == nullptr) p = system_allocate(bytes, alignment);
  } else if (bytes >= small_limit && alignment <= malloc_alignment) {
    p = cached_allocate((bytes + class_unit - 1) / class_unit);
  } else {
    p = small_allocate(bytes, alignment);
  }
  if (p == nullptr) throw buffer_allocation_error(bytes);
  return p;
}

void buffer_deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept {
  if (p == nullptr) return;
  if (bytes >= pool_threshold) {
    if (shared_pool().owns(p)) shared_pool().release(p, bytes);
    else std::free(p);
  } else if (bytes >= small_limit && alignment <= malloc_alignment) {
    cached_release(p, (bytes + class_unit - 1) / class_unit);
  } else {
    small_release(p, alignment);
  }
}

}  // namespace detail
}  // namespace vseg
