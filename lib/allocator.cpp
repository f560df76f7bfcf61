// vseg's buffer allocator. The policy and its reasons are in
// include/vseg/detail/allocator.hpp; the measurements in notes/allocator.md.
#include "vseg/detail/allocator.hpp"

#include "vseg/detail/error.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/tuning.hpp"

#include <boost/container/static_vector.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
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
// From here blocks take huge pages under fresh_pages::by_block_size.
constexpr auto small_page_block_limit = static_cast<std::size_t>(tuning::allocator_small_page_block_limit);
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
// only) as two halves, one advised for transparent huge pages and one
// against them before anything touches it, each carved by best fit with
// coalescing. The fresh-page policy picks the half a block comes from (by
// default: by the block's size, see set_fresh_pages). A freed block stays
// mapped (its pages warm) while the free bytes are within the limit. The
// range is never unmapped; handing memory back is MADV_DONTNEED on free
// ranges.
class pool {
 public:
  // A block of `bytes` bytes (page aligned), or nullptr when its half of the
  // range is used up or could not be reserved: the caller then asks malloc.
  void* allocate(std::size_t bytes) {
    const std::size_t need = round_up(bytes);
    // Asked before the lock: oneTBB's count takes a lock of its own.
    const bool worker = detail::loop_threads() > 1;
    const carved c = carve(need, worker);
    // Outside the lock: populating 16 MiB takes a few milliseconds.
    if (c.start_toucher) start_toucher();
    if (c.populate) populate_pages(c.block, need);
    if (c.probe) probe_huge_page(c.block, need);
    return c.block;
  }

  // Whether p came from allocate(). Called for every freed block, by any
  // thread, also before the range exists: base_ is published (release)
  // after half_size_ is set.
  bool owns(const void* p) const noexcept {
    const char* base = base_.load(std::memory_order_acquire);
    const auto* c = static_cast<const char*>(p);
    return base != nullptr && c >= base && c < base + 2 * half_size_;
  }

  // Takes back a block of `bytes` bytes from allocate(): merged with its
  // free neighbours in its half, kept mapped, and the largest free ranges
  // handed back while the cached bytes are over the limit.
  void release(void* p, std::size_t bytes) noexcept {
    const std::size_t size = round_up(bytes);
    poison(p, size);
    std::lock_guard<std::mutex> lock(m_);
    const auto offset = static_cast<std::size_t>(static_cast<char*>(p) - base_.load(std::memory_order_relaxed));
    half& h = halves_[offset < half_size_ ? huge_half : small_half];
    in_use_ -= size;
    free_range_at(h, static_cast<std::size_t>(static_cast<char*>(p) - h.base), size, true);
    trim(limit_);
  }

  void set_touch_ahead(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(m_);
    touch_ahead_ = round_up(bytes);
  }

  std::size_t touch_ahead() {
    std::lock_guard<std::mutex> lock(m_);
    return touch_ahead_;
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
    huge_cold_ = false;
    // Undo the small-page advice of cold probes' blocks (probe_huge_page):
    // the half is one huge-page mapping again.
    if (huge_half_split_) madvise(halves_[huge_half].base, half_size_, MADV_HUGEPAGE);
    huge_half_split_ = false;
  }

  void set_cold_cost(std::int64_t nanoseconds) {
    std::lock_guard<std::mutex> lock(m_);
    cold_ns_ = nanoseconds;
  }

  fresh_pages fresh_policy() {
    std::lock_guard<std::mutex> lock(m_);
    return fresh_;
  }

  void release_all() {
    std::lock_guard<std::mutex> lock(m_);
    ++generation_;
    trim(0);
  }

  allocator_statistics stats() {
    std::lock_guard<std::mutex> lock(m_);
    allocator_statistics s = stats_;
    s.cache_limit = static_cast<std::int64_t>(limit_);
    s.cached_bytes = static_cast<std::int64_t>(cached_);
    s.in_use_bytes = static_cast<std::int64_t>(in_use_);
    s.peak_in_use_bytes = static_cast<std::int64_t>(peak_in_use_);
    s.pool_bytes = static_cast<std::int64_t>(halves_[0].used + halves_[1].used);
    s.untouched_bytes = static_cast<std::int64_t>(untouched_);
    s.huge_pages_cold = huge_cold_;
    return s;
  }

 private:
  // A block carved for allocate() (nullptr: none), and whether to populate
  // it: a small-page block some of whose pages may be unmapped (never
  // touched, or handed back). start_toucher: the carve also queued a range
  // to be touched ahead, and no worker is at the queue yet. probe: a large
  // block of untouched huge-page memory under fresh_pages::by_cost, whose
  // first write allocate() times.
  struct carved {
    char* block = nullptr;
    bool populate = false;
    bool start_toucher = false;
    bool probe = false;
  };

  // A range of the small-page half set aside to be touched ahead.
  struct ahead_range {
    std::size_t at = 0;
    std::size_t bytes = 0;
    std::uint64_t generation = 0;  // release_all()s before it was set aside
  };

  // worker: a worker thread may touch memory ahead.
  carved carve(std::size_t need, bool worker) {
    std::lock_guard<std::mutex> lock(m_);
    if (!reserve()) {
      ++stats_.fallback_blocks;
      return {};
    }
    half& h = halves_[half_for(need)];
    std::size_t at = 0;
    bool backed = false;
    bool past_end = false;  // carved at the end of the carved part
    if (auto best = h.by_size.lower_bound({need, 0}); best != h.by_size.end()) {
      // The smallest free range that fits; what is left of it stays free.
      const auto [size, offset] = *best;
      backed = h.by_address.at(offset).backed;
      erase_free(h, offset);
      at = offset;
      if (size > need) insert_free(h, at + need, size - need, backed);
    } else {
      // Nothing fits: carve from the end of the carved part, starting at
      // the last free range if it reaches that end.
      at = h.used;
      if (!h.by_address.empty()) {
        const auto last = std::prev(h.by_address.end());
        if (last->first + last->second.size == h.used) at = last->first;
      }
      if (need > half_size_ - at) {
        ++stats_.fallback_blocks;
        return {};
      }
      if (at != h.used) erase_free(h, at);
      h.used = at + need;  // past the old end: some pages never touched
      past_end = true;
    }
    ++(backed ? stats_.reused_blocks : stats_.fresh_blocks);
    in_use_ += need;
    peak_in_use_ = std::max(peak_in_use_, in_use_);
    char* block = h.base + at;
    unpoison(block, need);
    carved c{block, !backed && &h == &halves_[small_half]};
    c.probe = !backed && &h == &halves_[huge_half] && fresh_ == fresh_pages::by_cost && !huge_cold_;
    // Past the small-page half's old end: set the next touch_ahead_ bytes
    // aside for an idle worker to touch, unless that many wait already or
    // the cache has no room for them.
    if (worker && c.populate && past_end && untouched_ < touch_ahead_ && cached_ + untouched_ + touch_ahead_ <= limit_ &&
        to_touch_.size() < to_touch_.capacity() && h.used < half_size_) {
      const ahead_range r{h.used, std::min(touch_ahead_, half_size_ - h.used), generation_};
      to_touch_.push_back(r);
      h.used += r.bytes;
      untouched_ += r.bytes;
      c.start_toucher = !toucher_running_;
      toucher_running_ = true;
    }
    return c;
  }

  // Has an idle worker touch the queued ranges (touch_queued). The task
  // holds only `this`, so that nothing of it is on the heap: a task still
  // queued at exit leaks nothing (LeakSanitizer). Without a worker to take
  // it, the queued ranges are freed untouched.
  void start_toucher() noexcept {
    try {
      if (detail::run_when_idle([this] { touch_queued(); })) return;
    } catch (...) {  // std::bad_alloc queueing the task: the block itself is fine
    }
    std::lock_guard<std::mutex> lock(m_);
    for (const ahead_range& r : to_touch_) {
      free_range_at(halves_[small_half], r.at, r.bytes, false);
      untouched_ -= r.bytes;
    }
    to_touch_.clear();
    toucher_running_ = false;
  }

  // On the worker: touches the queued ranges, oldest first, until none is left.
  void touch_queued() noexcept {
    for (;;) {
      ahead_range r;
      {
        std::lock_guard<std::mutex> lock(m_);
        if (to_touch_.empty()) {
          toucher_running_ = false;
          return;
        }
        r = to_touch_.front();
        to_touch_.erase(to_touch_.begin());
      }
      touch_ahead_pieces(r.at, r.bytes, r.generation);
    }
  }

  // On the worker: populates each piece and reads a byte of each of its
  // pages (a fresh page's cost on this VM is at the first access from user
  // space, notes/allocator.md "Touched ahead"; a write where populating is
  // not supported), then frees it. Nothing else uses the range until then.
  // A piece touched after a release_all() since carve set it aside is
  // handed back too: the cache was asked to be empty.
  void touch_ahead_pieces(std::size_t at, std::size_t bytes, std::uint64_t generation) noexcept {
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    constexpr auto piece = static_cast<std::size_t>(tuning::allocator_touch_piece_bytes);
    char* const base = halves_[small_half].base;
    for (std::size_t done = 0; done < bytes;) {
      const std::size_t size = std::min(piece, bytes - done);
      char* p = base + at + done;
      if (populate_pages(p, size))
        for (std::size_t q = 0; q < size; q += page) (void)*static_cast<volatile const char*>(p + q);
      else
        for (std::size_t q = 0; q < size; q += page) *static_cast<volatile char*>(p + q) = 0;
      poison(p, size);
      std::lock_guard<std::mutex> lock(m_);
      const bool keep = generation == generation_;
      if (!keep) {
        madvise(p, size, MADV_DONTNEED);
        stats_.released_bytes += static_cast<std::int64_t>(size);
      }
      free_range_at(halves_[small_half], at + done, size, keep);
      stats_.touched_ahead_bytes += static_cast<std::int64_t>(size);
      done += size;
      untouched_ -= size;
      trim(limit_);
    }
  }

  // Faults in the pages of a fresh small-page block in one call instead of
  // one fault per 4 KiB page on first write (notes/allocator.md, "Fresh
  // small pages populated"). Advice only: before Linux 5.14 (EINVAL) the
  // pages fault in as they are written, and the block is usable either way.
  // Returns whether the pages are populated.
  static bool populate_pages(void* block, std::size_t bytes) noexcept {
    static std::atomic<bool> unsupported{false};
    if (unsupported.load(std::memory_order_relaxed)) return false;
    if (madvise(block, bytes, MADV_POPULATE_WRITE) == 0) return true;
    if (errno == EINVAL) unsupported.store(true, std::memory_order_relaxed);
    return false;
  }

  struct free_range {
    std::size_t size;
    bool backed;  // its pages may be mapped (counted in cached_)
  };

  // One half of the range: its own free ranges and carved prefix. Offsets
  // are from its base.
  struct half {
    char* base = nullptr;
    std::size_t used = 0;                                    // the carved prefix
    std::map<std::size_t, free_range> by_address;            // offset -> range
    std::set<std::pair<std::size_t, std::size_t>> by_size;   // (size, offset)
  };
  static constexpr std::size_t huge_half = 0;  // the lower half
  static constexpr std::size_t small_half = 1;

  static std::size_t round_up(std::size_t bytes) { return (bytes + granule - 1) / granule * granule; }

  // The half a block of `need` bytes comes from under the policy. Under
  // by_cost with huge pages cold, a large block still takes a free
  // huge-page range whose pages are mapped (its cost is paid), else small
  // pages. Under the lock.
  std::size_t half_for(std::size_t need) const noexcept {
    switch (fresh_) {
      case fresh_pages::huge: return huge_half;
      case fresh_pages::small: return small_half;
      case fresh_pages::by_block_size: break;
      case fresh_pages::by_cost:
        if (need >= small_page_block_limit && huge_cold_) {
          const half& h = halves_[huge_half];
          const auto best = h.by_size.lower_bound({need, 0});
          return best != h.by_size.end() && h.by_address.at(best->second).backed ? huge_half : small_half;
        }
        break;
    }
    return need < small_page_block_limit ? small_half : huge_half;
  }

  // Times the first write to the first whole huge page of a fresh block
  // (blocks of by_cost's probes are 16 MiB and more, so one is inside) and
  // marks huge pages cold when it took longer than cold_ns_. The block is
  // the caller's and not yet written, so the byte written is of no account.
  //
  // A cold probe also moves the rest of its block, past the probed page, to
  // small pages, populated in one call: the caller is about to write all of
  // it, and at the cost just timed a fresh 80 MB block's 39 further huge
  // pages cost several times what its small pages do (notes/allocator.md,
  // "A cold probe's block"). set_fresh_pages advises the half for huge
  // pages again.
  void probe_huge_page(char* block, std::size_t need) noexcept {
    const auto aligned = (reinterpret_cast<std::uintptr_t>(block) + huge_page - 1) & ~(huge_page - 1);
    if (aligned + huge_page > reinterpret_cast<std::uintptr_t>(block) + need) return;
    const auto start = std::chrono::steady_clock::now();
    *reinterpret_cast<volatile char*>(aligned) = 0;
    const auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
    bool cold = false;
    {
      std::lock_guard<std::mutex> lock(m_);
      ++stats_.huge_page_probes;
      cold = took.count() > cold_ns_;
      if (cold) {
        huge_cold_ = true;
        huge_half_split_ = true;
      }
    }
    char* rest = reinterpret_cast<char*>(aligned) + huge_page;
    if (!cold || rest >= block + need) return;
    const auto bytes = static_cast<std::size_t>(block + need - rest);
    if (madvise(rest, bytes, MADV_NOHUGEPAGE) == 0) populate_pages(rest, bytes);
  }

  // Makes [at, at + size) of h a free range, merged with its free
  // neighbours; backed: its pages may be mapped. Under the lock.
  void free_range_at(half& h, std::size_t at, std::size_t size, bool backed) {
    if (auto next = h.by_address.find(at + size); next != h.by_address.end()) {
      size += next->second.size;
      erase_free(h, next->first);
    }
    if (auto prev = h.by_address.lower_bound(at); prev != h.by_address.begin()) {
      --prev;
      if (prev->first + prev->second.size == at) {
        at = prev->first;
        size += prev->second.size;
        erase_free(h, at);
      }
    }
    // A merged range counts as mapped whole, although a neighbour may have
    // been handed back already: cached_ may overstate, never understate.
    insert_free(h, at, size, backed);
  }

  void insert_free(half& h, std::size_t at, std::size_t size, bool backed) {
    h.by_address.emplace(at, free_range{size, backed});
    h.by_size.emplace(size, at);
    if (backed) cached_ += size;
  }

  void erase_free(half& h, std::size_t at) {
    const auto it = h.by_address.find(at);
    h.by_size.erase({it->second.size, at});
    if (it->second.backed) cached_ -= it->second.size;
    h.by_address.erase(it);
  }

  // Hands back the largest mapped free ranges, the huge-page half's first,
  // until at most `target` bytes are cached. Largest first: the fewest
  // calls, and a small range is the likeliest to be asked for again soon.
  void trim(std::size_t target) noexcept {
    for (half& h : halves_)
      for (auto it = h.by_size.rbegin(); it != h.by_size.rend() && cached_ > target; ++it) {
        free_range& r = h.by_address.at(it->second);
        if (!r.backed) continue;
        // Under ASan the range is poisoned; madvise does not read it.
        madvise(h.base + it->second, r.size, MADV_DONTNEED);
        r.backed = false;
        cached_ -= r.size;
        stats_.released_bytes += static_cast<std::int64_t>(r.size);
      }
  }

  bool reserve() {
    if (base_.load(std::memory_order_relaxed) != nullptr) return true;
    if (tried_) return false;
    tried_ = true;
    // Address space for the machine's memory twice over per half
    // (NORESERVE: no commitment until touched), at most 1 TiB each.
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const std::size_t physical = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                                                       : std::size_t{8} << 30;
    const std::size_t want = (std::min(std::size_t{1} << 40, 2 * physical) + huge_page - 1) / huge_page * huge_page;
    void* p = mmap(nullptr, 2 * want + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) return false;
    char* base = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(p) + huge_page - 1) & ~(huge_page - 1));
    // Advice only: huge pages are ignored where transparent huge pages are
    // off. A fresh 80 MB result faults in 40 huge pages instead of 20,000
    // small ones.
    madvise(base, want, MADV_HUGEPAGE);
    madvise(base + want, want, MADV_NOHUGEPAGE);
    halves_[huge_half].base = base;
    halves_[small_half].base = base + want;
    half_size_ = want;
    base_.store(base, std::memory_order_release);
    return true;
  }

  static std::size_t default_limit() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return std::size_t{1} << 30;
    return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 8;
  }

  std::mutex m_;
  std::atomic<char*> base_{nullptr};
  std::size_t half_size_ = 0;  // bytes of each half
  std::array<half, 2> halves_;
  std::size_t in_use_ = 0;       // bytes of live blocks
  std::size_t peak_in_use_ = 0;  // the most in_use_ has been
  std::size_t cached_ = 0;       // bytes of free ranges that may be mapped
  std::size_t limit_ = default_limit();
  bool tried_ = false;
  fresh_pages fresh_ = fresh_pages::by_block_size;
  bool huge_cold_ = false;  // by_cost: a probe was over cold_ns_
  bool huge_half_split_ = false;  // a cold probe's block advised for small pages since set_fresh_pages
  std::int64_t cold_ns_ = tuning::allocator_cold_huge_page_ns;
  std::size_t touch_ahead_ = static_cast<std::size_t>(tuning::allocator_touch_ahead_bytes);
  std::size_t untouched_ = 0;  // bytes set aside by carve and not touched yet
  // Ranges set aside and not yet taken by the worker (at most two wait: a
  // range is set aside only while less than touch_ahead_ bytes are untouched).
  boost::container::static_vector<ahead_range, 4> to_touch_;
  bool toucher_running_ = false;  // a task is queued or at work on to_touch_
  std::uint64_t generation_ = 0;  // release_all() calls so far
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
  if (policy != fresh_pages::huge && policy != fresh_pages::small && policy != fresh_pages::by_block_size &&
      policy != fresh_pages::by_cost)
    detail::throw_invalid("set_fresh_pages", "unknown policy ", static_cast<int>(policy));
  shared_pool().set_fresh_pages(policy);
}

void set_cold_huge_page_cost(std::int64_t nanoseconds) {
  if (nanoseconds < 0) detail::throw_invalid("set_cold_huge_page_cost", "negative cost ", nanoseconds, " ns");
  shared_pool().set_cold_cost(nanoseconds);
}

fresh_pages fresh_page_policy() { return shared_pool().fresh_policy(); }

void set_touch_ahead(std::int64_t bytes) {
  if (bytes < 0) detail::throw_invalid("set_touch_ahead", "negative size ", bytes, " bytes");
  shared_pool().set_touch_ahead(static_cast<std::size_t>(bytes));
}

std::int64_t touch_ahead() { return static_cast<std::int64_t>(shared_pool().touch_ahead()); }

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
