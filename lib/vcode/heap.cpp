// The vseg-vcode tool's global operator new and delete for small blocks.
//
// Vectors (vseg::buffer) get their memory from the library's allocator
// (vseg/detail/allocator.hpp), which reuses big blocks and keeps a
// per-thread cache of 1-64 KiB ones; it serves buffers below 1 KiB with the
// global operator new. This file replaces that operator new for the tool so
// that blocks below 1 KiB -- the interpreter's stack values (one per vector
// operation), one-element vectors, descriptors -- are kept after free in a
// last-in-first-out stack per 16-byte class and thread and handed out again
// first: radix.1000000 makes and drops ~100,000 of them, and a pop from this
// stack is cheaper than glibc's per-thread cache with its checks (see
// notes/allocator.md for the measurement). Everything else goes to malloc.
#include <array>
#include <cstddef>
#include <cstdlib>
#include <new>

#include <malloc.h>

namespace {

constexpr std::size_t small_unit = 16;
constexpr std::size_t small_limit = 1024;
constexpr std::size_t classes = small_limit / small_unit + 1;  // class s: s units, 1 <= s <= 64
constexpr int depth = 32;                                       // blocks per class and thread

// Trivially destructible, so it stays usable until its thread ends; the
// blocks it holds are freed by flush_at_exit, after which it is closed.
struct block_cache {
  std::array<std::array<void*, depth>, classes> blocks;
  std::array<int, classes> count;
  bool closed;
};
thread_local constinit block_cache cache{};

struct cache_flush {
  ~cache_flush() {
    for (std::size_t c = 0; c < classes; ++c)
      while (cache.count[c] > 0) std::free(cache.blocks[c][static_cast<std::size_t>(--cache.count[c])]);
    cache.closed = true;
  }
};
thread_local cache_flush flush_at_exit;

void* allocate(std::size_t n) {
  if (n < small_limit) {
    const std::size_t c = n == 0 ? 1 : (n + small_unit - 1) / small_unit;
    if (cache.count[c] > 0) return cache.blocks[c][static_cast<std::size_t>(--cache.count[c])];
    n = c * small_unit;  // a whole class, so that the block can serve any request of it
  }
  void* p = std::malloc(n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void release(void* p) noexcept {
  if (p == nullptr) return;
  if (!cache.closed) {
    // A block of usable size u serves requests of up to u bytes: class u / unit.
    const std::size_t c = malloc_usable_size(p) / small_unit;
    if (c > 0 && c < classes && cache.count[c] < depth) {
      (void)&flush_at_exit;  // its destructor frees what the thread keeps
      cache.blocks[c][static_cast<std::size_t>(cache.count[c]++)] = p;
      return;
    }
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
