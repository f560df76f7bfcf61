// The memory policy of the vseg-vcode tool; see heap.hpp.
#include "heap.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <algorithm>

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

// Vectors of millions of elements are first touched page by page: with 4 KiB
// pages, faulting in a fresh 80 MB vector costs more system time than the
// operation itself (dotp.10000000: 0.15 s of 0.3 s; radix.1000000: 2,400
// faults, a sixth of its run). The tool therefore asks for transparent huge
// pages (advice, ignored where THP is off; here the mode is `madvise`), as
// glibc's glibc.malloc.hugetlb=1 tunable does, which a program cannot set
// for itself:
//  - configure_heap() makes the heap grow in 64 MiB steps (M_TOP_PAD) and
//    keep what is freed (M_TRIM_THRESHOLD, M_MMAP_THRESHOLD: no block is
//    mmap'd), and starts the heap's free space on a huge-page boundary that
//    is advised before anything touches it (start_heap_on_huge_page);
//  - after a block of 64 KiB or more, the part of the heap that has grown
//    since the last advice is marked MADV_HUGEPAGE, so later blocks of any
//    size land on huge pages (but for the 2 MiB region where malloc wrote
//    the grown heap's first header);
//  - blocks of 256 KiB and more do not use glibc at all but a region of
//    their own, advised as a whole up front (big_blocks); only if that
//    region cannot be had do they fall back to the heap.
// Where the VM's free pages have been handed back to the host, a first
// touch costs ~3 ms per MiB instead of ~0.2 (notes/vcode.md); a helper
// thread that populated the heap ahead of use (MADV_POPULATE_WRITE) was
// tried and measured no faster once the heap started on a boundary.
namespace {
constexpr std::size_t huge_page = std::size_t{2} << 20;
constexpr std::size_t big_block = std::size_t{64} << 10;
constexpr std::size_t heap_step = std::size_t{64} << 20;

std::uintptr_t align_up(std::uintptr_t x) { return (x + huge_page - 1) & ~(huge_page - 1); }
std::uintptr_t align_down(std::uintptr_t x) { return x & ~(huge_page - 1); }

void advise(std::uintptr_t from, std::uintptr_t to) {
  if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
}

// The end of the part of the main heap already advised (0: none yet).
std::atomic<std::uintptr_t> advised_end{0};

void advise_heap_growth(std::uintptr_t block) {
  const auto top = align_down(reinterpret_cast<std::uintptr_t>(sbrk(0)));
  std::uintptr_t done = advised_end.load(std::memory_order_relaxed);
  while (top > done) {
    if (advised_end.compare_exchange_weak(done, top, std::memory_order_relaxed)) {
      advise(done == 0 ? align_up(block) : done, top);
      return;
    }
  }
}

// Blocks of 1 to 64 KiB (results of operations on vectors of a few
// thousand elements: radix makes ~40 per loop iteration) are kept after
// free in a small last-in-first-out stack per size class and thread, and
// handed out again first. glibc serves these sizes from first-in-first-out
// bins, which cycle through many blocks and so through many cache lines;
// reusing the block just freed keeps an interpreter loop's working set in
// the cache.
constexpr std::size_t class_unit = std::size_t{1} << 10;
constexpr std::size_t class_limit = std::size_t{64} << 10;
constexpr std::size_t classes = class_limit / class_unit + 1;  // class c: c units

// Blocks below 1 KiB (the interpreter's values, one per vector operation,
// and one-element vectors) likewise, in 16-byte classes: radix makes and
// drops ~100,000 of them, and a pop from this stack is cheaper than glibc's
// own per-thread cache with its checks.
constexpr std::size_t small_unit = 16;
constexpr std::size_t small_classes = class_unit / small_unit + 1;  // class s: s units, 1 <= s <= 64

// Per size class, a last-in-first-out stack of at most Depth free blocks.
// Trivially destructible (see block_cache).
template <int Depth, std::size_t Classes>
struct class_stacks {
  std::array<std::array<void*, Depth>, Classes> blocks;
  std::array<int, Classes> count;

  void* pop(std::size_t c) noexcept { return count[c] > 0 ? blocks[c][static_cast<std::size_t>(--count[c])] : nullptr; }
  bool push(std::size_t c, void* p) noexcept {
    if (count[c] >= Depth) return false;
    blocks[c][static_cast<std::size_t>(count[c]++)] = p;
    return true;
  }
  void free_all() noexcept {
    for (std::size_t c = 0; c < Classes; ++c)
      while (void* p = pop(c)) std::free(p);
  }
};

// Trivially destructible, so it stays usable until its thread ends; the
// blocks it holds are freed by flush_at_exit, after which it is closed.
struct block_cache {
  class_stacks<32, small_classes> small;  // below 1 KiB
  class_stacks<4, classes> medium;        // 1 to 64 KiB
  bool closed;
};
thread_local constinit block_cache cache{};

struct cache_flush {
  ~cache_flush() {
    cache.small.free_all();
    cache.medium.free_all();
    cache.closed = true;
  }
};
thread_local cache_flush flush_at_exit;

// Blocks of 256 KiB and more (vectors of 64k elements and up) come from a
// region of their own instead of glibc's heap: reserved once (address space
// only), advised for huge pages as a whole before anything touches it, and
// carved by address-ordered best fit with coalescing. Freed blocks stay
// mapped and are handed out again. In glibc's heap the interpreter's small
// blocks settled in the holes big vectors left, so a later big vector did
// not fit and the heap grew: radix.1000000 touched 20 MiB for a peak of
// 16 MiB live. A block's size sits in a 64-byte header before it.
class big_blocks {
 public:
  static constexpr std::size_t threshold = std::size_t{256} << 10;

  // A block of at least n bytes, or nullptr when the region is used up (or
  // could not be reserved): the caller then asks malloc.
  void* allocate(std::size_t n) {
    if (n > max_block) return nullptr;  // also keeps `need` from overflowing
    const std::size_t need = (n + header + granule - 1) / granule * granule;
    std::lock_guard<std::mutex> lock(m_);
    if (!reserve()) return nullptr;
    std::size_t at = used_;
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it)
      if (it->second >= need && (best == free_.end() || it->second < best->second)) best = it;
    if (best != free_.end()) {
      at = best->first;
      const std::size_t rest = best->second - need;
      free_.erase(best);
      if (rest > 0) free_.emplace(at + need, rest);
    } else {
      if (need > reserved_ - used_) return nullptr;
      used_ += need;
    }
    char* block = base_.load(std::memory_order_relaxed) + at;
    *reinterpret_cast<std::size_t*>(block) = need;
    return block + header;
  }

  // Called for every block freed, by any thread, also before the region
  // exists: base_ is published (release) after reserved_ is set.
  bool owns(const void* p) const noexcept {
    const char* base = base_.load(std::memory_order_acquire);
    const auto* c = static_cast<const char*>(p);
    return base != nullptr && c >= base && c < base + reserved_;
  }

  void release(void* p) noexcept {
    char* block = static_cast<char*>(p) - header;
    std::size_t at = static_cast<std::size_t>(block - base_.load(std::memory_order_relaxed));
    std::size_t size = *reinterpret_cast<const std::size_t*>(block);
    std::lock_guard<std::mutex> lock(m_);
    // Merge with the free neighbours, then give the last block back to the
    // unused end of the region.
    if (auto next = free_.find(at + size); next != free_.end()) {
      size += next->second;
      free_.erase(next);
    }
    if (auto prev = free_.lower_bound(at); prev != free_.begin() && std::prev(prev)->first + std::prev(prev)->second == at) {
      --prev;
      at = prev->first;
      size += prev->second;
      free_.erase(prev);
    }
    if (at + size == used_) used_ = at;
    else free_.emplace(at, size);
  }

 private:
  static constexpr std::size_t header = 64;
  static constexpr std::size_t max_block = std::size_t{1} << 46;
  static constexpr std::size_t granule = std::size_t{64} << 10;

  bool reserve() {
    if (base_.load(std::memory_order_relaxed) != nullptr) return true;
    if (tried_) return false;
    tried_ = true;
    // Address space for the machine's memory twice over (NORESERVE: no
    // commitment until touched), at most 1 TiB.
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const std::size_t want = pages > 0 && page > 0 ? std::min(std::size_t{1} << 40, 2 * static_cast<std::size_t>(pages) *
                                                                                          static_cast<std::size_t>(page))
                                                   : std::size_t{1} << 34;
    void* p = mmap(nullptr, want + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    const std::uintptr_t base = align_up(reinterpret_cast<std::uintptr_t>(p));
    advise(base, base + want);
    reserved_ = want;
    base_.store(reinterpret_cast<char*>(base), std::memory_order_release);
    return true;
  }

  std::mutex m_;
  std::atomic<char*> base_{nullptr};
  std::size_t reserved_ = 0;
  std::size_t used_ = 0;  // the region's carved prefix
  bool tried_ = false;
  std::map<std::size_t, std::size_t> free_;  // offset -> size, inside the prefix
};
big_blocks big;

void* allocate(std::size_t n) {
  if (n >= big_blocks::threshold)
    if (void* p = big.allocate(n)) return p;
  if (n < class_unit) {
    const std::size_t c = n == 0 ? 1 : (n + small_unit - 1) / small_unit;
    if (void* p = cache.small.pop(c)) return p;
    n = c * small_unit;  // a whole class, so that the block can serve any request of it
  } else if (n < class_limit) {
    const std::size_t c = (n + class_unit - 1) / class_unit;
    if (void* p = cache.medium.pop(c)) return p;
    n = c * class_unit;
  }
  void* p = std::malloc(n != 0 ? n : 1);
  if (p == nullptr) throw std::bad_alloc();
  if (n >= big_block && reinterpret_cast<std::uintptr_t>(p) < reinterpret_cast<std::uintptr_t>(sbrk(0)))
    advise_heap_growth(reinterpret_cast<std::uintptr_t>(p));
  return p;
}

void release(void* p) noexcept {
  if (p == nullptr) return;
  if (big.owns(p)) return big.release(p);
  if (!cache.closed) {
    (void)&flush_at_exit;  // its destructor frees what the thread keeps
    // A block of usable size u serves requests of up to u bytes: class u / unit.
    const std::size_t u = malloc_usable_size(p);
    if (u < class_unit ? u / small_unit > 0 && cache.small.push(u / small_unit, p)
                       : u / class_unit < classes && cache.medium.push(u / class_unit, p))
      return;
  }
  std::free(p);
}
}  // namespace

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }

namespace {

// malloc carves a new block from the start of the heap's top chunk and
// writes the block's header and the rest's before allocate() can advise
// anything; a 2 MiB region whose first touch was such a header is mapped
// with small pages for good. The heap's first vectors (radix: the 4 MB
// RAND result) therefore fell in the up to 2 MiB of small pages between the
// heap's start and the first huge-page boundary, and in the region of their
// own end. Instead, one padding block is allocated now that ends just below
// a boundary B (its headers stay below B), everything from B to the heap's
// end is advised, and only then does anything touch it: blocks from the top
// chunk start at B. The padding is never freed (its pages past the header
// are never touched). glibc's top chunk ends at the break, and mallinfo2's
// keepcost is its size; if the padding does not come from the top chunk
// (a bin served it) the layout is left as it is.
void start_heap_on_huge_page() {
  const auto brk_now = reinterpret_cast<std::uintptr_t>(sbrk(0));
  const std::uintptr_t top = brk_now - mallinfo2().keepcost;  // the top chunk's header
  const std::uintptr_t boundary = align_up(top + 64);
  const std::size_t chunk = boundary - 16 - top;  // ends at the next chunk's 16-byte header
  void* pad = std::malloc(chunk - 8);             // a chunk of `chunk` bytes: request + 8, rounded to 16
  if (pad == nullptr) return;
  if (reinterpret_cast<std::uintptr_t>(pad) != top + 16) {
    std::free(pad);
    return;
  }
  const auto end = align_down(reinterpret_cast<std::uintptr_t>(sbrk(0)));
  if (end > boundary) {
    advise(boundary, end);
    advised_end.store(end, std::memory_order_relaxed);
  }
}

}  // namespace

namespace vseg::vcode::tool {

void configure_heap() {
  // Every vector operation allocates its result. glibc serves big blocks
  // with mmap and returns them at free, so each operation would page-fault
  // its whole result in again; keeping freed memory in the heap instead
  // makes the next operation reuse warm pages (see notes/vcode.md).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, static_cast<int>(heap_step));
  start_heap_on_huge_page();
}

}  // namespace vseg::vcode::tool
