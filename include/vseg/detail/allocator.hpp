// The memory behind every vseg::buffer (and so behind every array a
// primitive returns): a process-wide allocator that keeps freed blocks for
// reuse instead of handing each one back to the system at once.
//
// Why: every primitive returns a new array. With glibc's defaults a block of
// 32 MiB or more (less before glibc's threshold adapts) is mmap'd on
// allocation and unmapped on free, so each call page-faults and zeroes its
// whole output afresh: 20 maps over 10^7 doubles ran 17x slower than with
// malloc tuned by environment variables (notes/allocator.md).
//
// Policy, by block size (bytes, control block included):
//  - below 1 KiB: the global operator new (glibc's per-thread cache is fast
//    there, and a program that replaces operator new serves these too);
//  - 1 KiB to 64 KiB: a per-thread last-in-first-out cache per 1 KiB size
//    class (4 blocks deep, at most 2 MiB per thread), then malloc; a thread
//    returns what it keeps when it ends;
//  - 64 KiB and more: one shared pool under a lock, carved from one reserved
//    address range by best fit with coalescing of free neighbours. The range
//    has two halves, one advised for transparent huge pages and one against
//    them; the fresh-page policy below says which half serves a block.
//    Freed blocks stay mapped for reuse while the pool's free bytes are
//    within the cache limit; past it, the largest free ranges are handed
//    back to the system (MADV_DONTNEED) until the free bytes are within the
//    limit again. When the range cannot be reserved or is used up, blocks
//    come from malloc.
// The limit defaults to 1/8 of physical memory; set_buffer_cache_limit
// changes it and release_buffer_cache empties the cache now.
//
// Fresh pages (set_fresh_pages): by default a block below 16 MiB
// (tuning::allocator_small_page_block_limit) takes small pages and a larger
// one huge pages. A huge page is one fault instead of 512, and random access
// over a large vector (a permute) misses the TLB less; below 16 MiB the
// TLB's reach with 4 KiB pages (~12 MiB on Zen 4) covers most of the block. On a VM that hands
// free memory back to its host (free page reporting) a fresh huge page comes
// back from the host at ~2.4 ms per MiB against ~0.4 for small pages
// (bench/first_touch), which the small blocks of a program that keeps many
// mid-sized vectors (NESL's Delaunay) then avoid (notes/allocator.md).
// A small-page block whose pages may be unmapped (past the pool's
// high-water mark, or handed back) is populated when it is handed out
// (MADV_POPULATE_WRITE, Linux 5.14+): one call instead of a fault per 4 KiB
// page on first write. On this VM, when its faults are slow, a fresh small
// page then costs ~1.9 instead of ~3.3 ms per MiB, call and first write
// together. Huge-page blocks are not populated: their first touch costs the
// host's time either way, and the writing threads share it.
//
// Touched ahead (set_touch_ahead): each time a small-page block is carved
// past the high-water mark, the next 16 MiB past it (unless 16 MiB wait to
// be touched already) are set aside and touched on an idle worker, 1 MiB at a time, each
// MiB a free range as soon as it is touched: a later block there costs its
// writer nothing. On this VM most of a fresh page's cost is at its first
// access from user space (the hypervisor's own mapping, ~1.4 ms per MiB even
// once populated), and an access from any thread pays it for all. Not when
// loops may use one thread (set by thread_limit or tbb::global_control).
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

namespace vseg {

// A snapshot of the shared pool's counters (blocks of 64 KiB and more).
struct allocator_statistics {
  std::int64_t cache_limit = 0;     // most free bytes the pool keeps mapped
  std::int64_t cached_bytes = 0;    // free bytes the pool keeps mapped now (at most cache_limit)
  std::int64_t in_use_bytes = 0;    // bytes of the pool's live blocks
  std::int64_t peak_in_use_bytes = 0;  // the most bytes of live blocks at any time (pool_bytes less is fragmentation)
  std::int64_t pool_bytes = 0;      // the carved parts of the reserved range's two halves (their high-water marks)
  std::int64_t reused_blocks = 0;   // allocations served from memory a freed block left mapped
  std::int64_t fresh_blocks = 0;    // allocations served from untouched or handed-back memory
  std::int64_t fallback_blocks = 0; // allocations the pool could not serve (given to malloc)
  std::int64_t released_bytes = 0;  // bytes handed back to the system so far
  std::int64_t touched_ahead_bytes = 0;  // bytes touched ahead on an idle worker so far (set_touch_ahead)
  std::int64_t untouched_bytes = 0;      // bytes set aside to be touched ahead, not touched yet
  std::int64_t huge_page_probes = 0;     // first writes timed under fresh_pages::by_cost
  bool huge_pages_cold = false;          // a probe was over the cold cost: large blocks take small pages
};

// The shared pool's counters now. O(1), takes the pool's lock.
allocator_statistics allocator_stats();

// Sets the most free bytes the shared pool keeps for reuse (0: keep none)
// and hands back what is over it now. O(free ranges).
void set_buffer_cache_limit(std::int64_t bytes);

// The current cache limit in bytes. O(1).
std::int64_t buffer_cache_limit();

// Hands every cached free byte of the shared pool back to the system now
// (the limit stays). O(free ranges).
void release_buffer_cache();

// Which pages back the pool's blocks.
enum class fresh_pages {
  by_block_size,  // small pages below tuning::allocator_small_page_block_limit, huge from there (the default)
  huge,           // transparent huge pages advised, for every block
  small,          // advised against, for every block: the system's base pages
  by_cost,        // by_block_size while fresh huge pages are measured cheap (below)
};
// Under fresh_pages::by_cost the pool times the first write to one huge page
// of each large block it carves from untouched huge-page memory. Once such a
// write takes longer than the cold cost (set_cold_huge_page_cost; default
// tuning::allocator_cold_huge_page_ns), a later large block takes a free
// huge-page range that is still mapped if one fits and small pages
// otherwise, until set_fresh_pages is called again. On a VM whose host takes freed memory
// back, a fresh huge page costs 2-4 ms per MiB on some days and less than a
// small page on others (notes/allocator.md, "Chosen by cost").
//
// Sets the cold cost of one huge page's first write, in nanoseconds (0:
// every probe is cold). Throws std::invalid_argument for a negative value.
void set_cold_huge_page_cost(std::int64_t nanoseconds);

// Sets the policy for blocks allocated from now on (a block in use keeps
// its pages; a freed one serves later blocks of its kind). Throws
// std::invalid_argument for a value not in the enum. O(1).
void set_fresh_pages(fresh_pages policy);

// The policy in effect. O(1).
fresh_pages fresh_page_policy();

// Sets how many bytes past the small-page half's high-water mark are touched
// ahead, on an idle worker, each time a block is carved past it (0: none;
// rounded up to 4 KiB). Throws std::invalid_argument for a negative value.
// O(1); a touch already under way finishes.
void set_touch_ahead(std::int64_t bytes);

// The bytes touched ahead in effect. O(1).
std::int64_t touch_ahead();

// Thrown when the memory for a buffer cannot be had; what() names the
// buffer and the size (bytes = SIZE_MAX: more than fits in a size_t). A std::bad_alloc, so generic handlers still see it.
class buffer_allocation_error : public std::bad_alloc {
 public:
  explicit buffer_allocation_error(std::size_t bytes) noexcept;
  const char* what() const noexcept override { return message_; }

 private:
  char message_[96];
};

namespace detail {

// `bytes` bytes aligned to `alignment` (at most 64) from the policy above;
// throws buffer_allocation_error. O(1) but for the pool's best fit,
// O(log free ranges).
void* buffer_allocate(std::size_t bytes, std::size_t alignment);

// Gives back a block from buffer_allocate with the same bytes and alignment.
void buffer_deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept;

// A standard allocator on buffer_allocate, for std::allocate_shared.
template <class T>
struct buffer_allocator {
  using value_type = T;
  static_assert(alignof(T) <= 64, "vseg::buffer: element alignment above 64 bytes");

  buffer_allocator() noexcept = default;
  template <class U>
  buffer_allocator(const buffer_allocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > max_size()) throw buffer_allocation_error(static_cast<std::size_t>(-1));
    return static_cast<T*>(buffer_allocate(n * sizeof(T), alignof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { buffer_deallocate(p, n * sizeof(T), alignof(T)); }
  static constexpr std::size_t max_size() noexcept { return static_cast<std::size_t>(-1) / 2 / sizeof(T); }

  template <class U>
  bool operator==(const buffer_allocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace detail
}  // namespace vseg
