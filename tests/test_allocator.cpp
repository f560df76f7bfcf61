// The buffer allocator (vseg/detail/allocator.hpp): reuse of freed blocks,
// the cache bound, concurrent use, the errors for impossible sizes, and the
// page advice for fresh memory.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <limits>
#include <new>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include <sys/mman.h>
#include <unistd.h>

#include "support.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/array.hpp"
#include "vseg/tuning.hpp"

using vseg::array;
using vseg::buffer;

namespace {

constexpr std::int64_t mib = std::int64_t{1} << 20;

// Restores the cache limit a test changed.
struct limit_guard {
  std::int64_t saved = vseg::buffer_cache_limit();
  ~limit_guard() { vseg::set_buffer_cache_limit(saved); }
};

template <class Exception, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const Exception& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

}  // namespace

TEST_CASE("allocator: a freed large block is handed out again") {
  limit_guard guard;
  vseg::set_buffer_cache_limit(64 * mib);
  const auto before = vseg::allocator_stats();
  const double* first = nullptr;
  {
    auto b = buffer<double>::for_overwrite(mib);  // 8 MiB: from the shared pool
    first = b.data();
    std::fill(b.begin(), b.end(), 1.0);
  }
  const auto freed = vseg::allocator_stats();
  CHECK(freed.in_use_bytes == before.in_use_bytes);
  CHECK(freed.cached_bytes >= 8 * mib);
  // The peak remembers the block after it is freed.
  CHECK(freed.peak_in_use_bytes >= before.in_use_bytes + 8 * mib);
  CHECK(freed.peak_in_use_bytes >= before.peak_in_use_bytes);
  auto again = buffer<double>::for_overwrite(mib);
  const auto after = vseg::allocator_stats();
  CHECK(again.data() == first);
  CHECK(after.reused_blocks == freed.reused_blocks + 1);
  CHECK(after.fresh_blocks == freed.fresh_blocks);
  CHECK(after.in_use_bytes >= before.in_use_bytes + 8 * mib);
}

TEST_CASE("allocator: arrays from the allocator keep their sharing and writability rules") {
  static_assert(sizeof(array<double>) == 32);
  auto b = buffer<std::int32_t>::filled(100'000, 7);  // 400 KB: from the pool
  array<std::int32_t> a = std::move(b).freeze();
  CHECK(a.size() == 100'000);
  CHECK(std::all_of(a.begin(), a.end(), [](std::int32_t x) { return x == 7; }));
  CHECK(a.writable_if_unique().size() == 100'000);
  array<std::int32_t> copy = a;
  CHECK(a.writable_if_unique().empty());
  CHECK(copy.shares_buffer_with(a));
  CHECK(!copy.shares_buffer_with(array<std::int32_t>(std::vector<std::int32_t>{1, 2})));
}

TEST_CASE("allocator: the cache stays within its limit and hands the rest back") {
  limit_guard guard;
  vseg::set_buffer_cache_limit(4 * mib);
  const auto before = vseg::allocator_stats();
  CHECK(before.cache_limit == 4 * mib);
  CHECK(before.cached_bytes <= 4 * mib);
  {
    std::vector<array<double>> held;
    for (int i = 0; i < 6; ++i) {
      auto b = buffer<double>::for_overwrite(mib / 4);  // 2 MiB each, 12 MiB in all
      std::fill(b.begin(), b.end(), static_cast<double>(i));
      held.push_back(std::move(b).freeze());
    }
    for (int i = 0; i < 6; ++i) CHECK(held[static_cast<std::size_t>(i)][12345] == static_cast<double>(i));
  }
  const auto after = vseg::allocator_stats();
  CHECK(after.cached_bytes <= 4 * mib);
  CHECK(after.released_bytes >= before.released_bytes + 8 * mib);

  // Memory handed back is given out again, readable and writable.
  auto b = buffer<double>::for_overwrite(mib);
  std::fill(b.begin(), b.end(), 3.0);
  CHECK(b[mib - 1] == 3.0);

  vseg::release_buffer_cache();
  CHECK(vseg::allocator_stats().cached_bytes == 0);
  vseg::set_buffer_cache_limit(0);
  { auto c = buffer<double>::for_overwrite(mib); }
  CHECK(vseg::allocator_stats().cached_bytes == 0);
  CHECK(vseg::buffer_cache_limit() == 0);
}

TEST_CASE("allocator: several threads allocate and free concurrently") {
  // Sizes in every band: malloc, the thread caches, the shared pool. Each
  // thread keeps a few buffers alive in a ring (so blocks are freed in an
  // order other than their allocation) and checks its fill before freeing.
  constexpr int threads = 4, rounds = 1500, ring = 5;
  const std::int64_t sizes[] = {10, 200, 1000, 3000, 16'000, 9'000, 40'000, 300'000};
  const auto before = vseg::allocator_stats();
  std::vector<int> errors(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(t) + 1);
      std::vector<array<std::int32_t>> kept(ring);
      for (int r = 0; r < rounds; ++r) {
        const std::int64_t n = sizes[rng() % std::size(sizes)];
        const auto tag = static_cast<std::int32_t>(t * 1'000'000 + r);
        auto b = buffer<std::int32_t>::for_overwrite(n);
        std::fill(b.begin(), b.end(), tag);
        auto& slot = kept[static_cast<std::size_t>(r % ring)];
        if (slot.size() > 0 && !std::all_of(slot.begin(), slot.end(), [&](std::int32_t x) { return x == slot[0]; }))
          ++errors[static_cast<std::size_t>(t)];
        slot = std::move(b).freeze();  // frees the buffer kept `ring` rounds ago
        if (slot[0] != tag || slot[n - 1] != tag) ++errors[static_cast<std::size_t>(t)];
      }
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) CHECK(errors[static_cast<std::size_t>(t)] == 0);
  const auto after = vseg::allocator_stats();
  CHECK(after.in_use_bytes == before.in_use_bytes);  // every pool block came back
  CHECK(after.reused_blocks > before.reused_blocks);
}

TEST_CASE("allocator: impossible sizes give errors that name the buffer and the size") {
  const std::string negative = message_of<std::invalid_argument>([] { (void)buffer<double>::for_overwrite(-5); });
  CHECK(negative.find("buffer") != std::string::npos);
  CHECK(negative.find("-5") != std::string::npos);

  const std::string huge =
      message_of<std::length_error>([] { (void)buffer<double>::for_overwrite(std::int64_t{1} << 60); });
  CHECK(huge.find("buffer") != std::string::npos);
  CHECK(huge.find(std::to_string(std::int64_t{1} << 60)) != std::string::npos);

  // Within the size bound but more memory than any machine has (128 TiB):
  // a std::bad_alloc whose message names the buffer and the bytes.
  const std::int64_t n = std::int64_t{1} << 44;
  const std::string none = message_of<std::bad_alloc>([&] { (void)buffer<double>::filled(n, 1.0); });
  CHECK(none.find("vseg::buffer: cannot allocate ") == 0);
  const auto bytes = std::stoll(none.substr(std::string("vseg::buffer: cannot allocate ").size()));
  CHECK(bytes >= n * 8);  // the elements and the reference count
  CHECK(bytes < n * 8 + 1024);

  CHECK_THROWS_AS(vseg::set_buffer_cache_limit(-1), std::invalid_argument);
}

namespace {

// The VmFlags line of the mapping in /proc/self/smaps that holds address p
// ("" if none does).
std::string vm_flags_of(const void* p) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    // A mapping's header ("lo-hi perms offset dev inode path") has its
    // first ':' (in dev) after a space; a field line ("Size: ...") before.
    if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      inside = lo <= at && at < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

bool has_flag(const std::string& flags, const std::string& flag) {
  std::istringstream words(flags);
  std::string w;
  while (words >> w)
    if (w == flag) return true;
  return false;
}

// A fresh block of `bytes` bytes carved past the pool's high-water mark
// (blocks that reuse a free range are held and another is taken), and its
// last byte's mapping flags.
std::string flags_of_fresh_block(std::vector<buffer<char>>& held, std::int64_t bytes) {
  for (int tries = 0; tries < 64; ++tries) {
    const std::int64_t before = vseg::allocator_stats().pool_bytes;
    held.push_back(buffer<char>::for_overwrite(bytes));
    if (vseg::allocator_stats().pool_bytes > before) return vm_flags_of(held.back().data() + bytes - 1);
  }
  return "(no fresh block)";
}

constexpr std::int64_t huge_page_bytes = std::int64_t{2} << 20;

// The first 2 MiB-aligned address at or after p.
const char* first_whole_huge_page(const char* p) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const auto page = static_cast<std::uintptr_t>(huge_page_bytes);
  return p + static_cast<std::ptrdiff_t>((page - at % page) % page);
}

bool advised_small(const std::string& flags) { return has_flag(flags, "nh") && !has_flag(flags, "hg"); }
bool advised_huge(const std::string& flags) { return has_flag(flags, "hg") && !has_flag(flags, "nh"); }

}  // namespace

TEST_CASE("allocator: fresh memory takes small or huge pages by the policy and the block's size") {
  struct policy_guard {
    vseg::fresh_pages saved = vseg::fresh_page_policy();
    ~policy_guard() { vseg::set_fresh_pages(saved); }
  } guard;
  const std::int64_t limit = vseg::tuning::allocator_small_page_block_limit;
  const std::int64_t below = limit / 4, above = limit + mib;
  std::vector<buffer<char>> held;
  // nh: MADV_NOHUGEPAGE, hg: MADV_HUGEPAGE.
  vseg::set_fresh_pages(vseg::fresh_pages::by_block_size);
  CHECK(vseg::fresh_page_policy() == vseg::fresh_pages::by_block_size);
  CHECK(advised_small(flags_of_fresh_block(held, below)));
  CHECK(advised_huge(flags_of_fresh_block(held, above)));
  vseg::set_fresh_pages(vseg::fresh_pages::small);
  CHECK(vseg::fresh_page_policy() == vseg::fresh_pages::small);
  CHECK(advised_small(flags_of_fresh_block(held, above)));
  vseg::set_fresh_pages(vseg::fresh_pages::huge);
  CHECK(vseg::fresh_page_policy() == vseg::fresh_pages::huge);
  CHECK(advised_huge(flags_of_fresh_block(held, below)));
  // The blocks are usable memory whichever the advice.
  for (auto& b : held) b[b.size() - 1] = 'x';
  CHECK(held.front()[held.front().size() - 1] == 'x');
  CHECK_THROWS_WITH_AS(vseg::set_fresh_pages(static_cast<vseg::fresh_pages>(7)),
                       doctest::Contains("set_fresh_pages"), std::invalid_argument);
}

TEST_CASE("allocator: by_cost keeps huge pages while a fresh one is cheap, and takes small pages once one is cold") {
  // The probe is timed, so the test sets the cold cost at both ends (never
  // cold, always cold) and checks where the blocks go, not the timing.
  struct policy_guard {
    vseg::fresh_pages saved = vseg::fresh_page_policy();
    ~policy_guard() {
      vseg::set_cold_huge_page_cost(vseg::tuning::allocator_cold_huge_page_ns);
      vseg::set_fresh_pages(saved);
    }
  } guard;
  const std::int64_t above = vseg::tuning::allocator_small_page_block_limit + mib;
  std::vector<buffer<char>> held;

  // Never cold: every large fresh block is probed and takes huge pages.
  vseg::set_cold_huge_page_cost(std::numeric_limits<std::int64_t>::max());
  vseg::set_fresh_pages(vseg::fresh_pages::by_cost);
  CHECK(vseg::fresh_page_policy() == vseg::fresh_pages::by_cost);
  const std::int64_t probes = vseg::allocator_stats().huge_page_probes;
  CHECK(advised_huge(flags_of_fresh_block(held, above)));
  CHECK(advised_huge(flags_of_fresh_block(held, above)));
  CHECK(vseg::allocator_stats().huge_page_probes == probes + 2);
  CHECK_FALSE(vseg::allocator_stats().huge_pages_cold);

  // Always cold: the first probe marks huge pages cold and moves the rest of
  // its block, past the probed page, to small pages; the next large fresh
  // block takes small pages; small blocks take small pages throughout.
  vseg::set_cold_huge_page_cost(0);
  vseg::set_fresh_pages(vseg::fresh_pages::by_cost);
  CHECK_FALSE(vseg::allocator_stats().huge_pages_cold);
  CHECK(advised_small(flags_of_fresh_block(held, above)));
  CHECK(vseg::allocator_stats().huge_pages_cold);
  const char* probed = held.back().data();
  const char* probed_page = first_whole_huge_page(probed);
  CHECK(advised_huge(vm_flags_of(probed_page)));
  CHECK(advised_small(vm_flags_of(probed_page + huge_page_bytes)));
  const std::int64_t cold_probes = vseg::allocator_stats().huge_page_probes;
  CHECK(advised_small(flags_of_fresh_block(held, above)));
  CHECK(advised_small(flags_of_fresh_block(held, mib)));
  CHECK(vseg::allocator_stats().huge_page_probes == cold_probes);  // no probe once cold

  // A freed huge-page block is still mapped: a large block reuses such a
  // range rather than take fresh small pages.
  held.erase(held.begin());
  const auto before = vseg::allocator_stats();
  auto again = buffer<char>::for_overwrite(above);
  CHECK(vseg::allocator_stats().reused_blocks == before.reused_blocks + 1);
  CHECK(vseg::allocator_stats().fresh_blocks == before.fresh_blocks);
  CHECK(advised_huge(vm_flags_of(again.data() + above - 1)));

  // Setting the policy again forgets the cold probe, and the probed block's
  // rest is advised for huge pages again.
  vseg::set_fresh_pages(vseg::fresh_pages::by_cost);
  CHECK_FALSE(vseg::allocator_stats().huge_pages_cold);
  CHECK(advised_huge(vm_flags_of(probed_page + huge_page_bytes)));
  CHECK(advised_huge(vm_flags_of(probed + above - 1)));
  for (auto& b : held) b[b.size() - 1] = 'x';
  CHECK(held.back()[held.back().size() - 1] == 'x');
  CHECK_THROWS_WITH_AS(vseg::set_cold_huge_page_cost(-1), doctest::Contains("set_cold_huge_page_cost"),
                       std::invalid_argument);
}

namespace {

#if defined(__SANITIZE_THREAD__)
constexpr bool under_thread_sanitizer = true;
#elif defined(__has_feature)
constexpr bool under_thread_sanitizer = __has_feature(thread_sanitizer);
#else
constexpr bool under_thread_sanitizer = false;
#endif

// Whether this kernel has MADV_POPULATE_WRITE (Linux 5.14 and later).
bool kernel_populates() {
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  const bool ok = madvise(p, 4096, MADV_POPULATE_WRITE) == 0;
  munmap(p, 4096);
  return ok;
}

// Faults this thread takes while it writes one byte of every 4 KiB page of
// b (the pool's worker may fault meanwhile, touching ahead); the bytes
// written are checked.
long faults_writing(buffer<char>& b) {
  const long before = vseg::test::thread_page_faults();
  for (std::int64_t i = 0; i < b.size(); i += 4096) b[i] = static_cast<char>(i >> 12);
  const long taken = vseg::test::thread_page_faults() - before;
  for (std::int64_t i = 0; i < b.size(); i += 4096) CHECK(b[i] == static_cast<char>(i >> 12));
  return taken;
}

}  // namespace

namespace {

// Restores the bytes touched ahead.
struct touch_ahead_guard {
  std::int64_t saved = vseg::touch_ahead();
  ~touch_ahead_guard() { vseg::set_touch_ahead(saved); }
};

// A room for touching ahead: the cache limit at 1 GiB and an 8 MiB window,
// both restored afterwards.
struct touch_ahead_setup {
  static constexpr std::int64_t window = 8 * mib;
  limit_guard limit;
  touch_ahead_guard ahead;
  touch_ahead_setup() {
    vseg::set_buffer_cache_limit(1024 * mib);
    vseg::set_touch_ahead(window);
  }
};

// Waits until the pool has touched `bytes` more than `before` ahead (the
// worker takes a 16 MiB range in ~25-60 ms on this VM); false after a
// minute. Polls, so a slow machine only waits longer.
bool touched_ahead_by(std::int64_t before, std::int64_t bytes) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (vseg::allocator_stats().touched_ahead_bytes < before + bytes)
    if (std::chrono::steady_clock::now() > deadline) return false;
    else std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return true;
}

// Waits until nothing set aside is left to touch ahead (a range an earlier
// test's block set aside); false after a minute.
bool touching_done() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (vseg::allocator_stats().untouched_bytes > 0)
    if (std::chrono::steady_clock::now() > deadline) return false;
    else std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return true;
}

// Whether every page of [p, p + bytes) is resident (mincore).
bool resident(const char* p, std::int64_t bytes) {
  const auto page = sysconf(_SC_PAGESIZE);
  std::vector<unsigned char> in(static_cast<std::size_t>((bytes + page - 1) / page));
  if (mincore(const_cast<char*>(p), static_cast<std::size_t>(bytes), in.data()) != 0) return false;
  return std::all_of(in.begin(), in.end(), [](unsigned char c) { return (c & 1) != 0; });
}

}  // namespace

TEST_CASE("allocator: a fresh small-page block comes with its pages, not a fault per page on first write") {
  // On a VM a fault per 4 KiB page costs ~10 us (notes/allocator.md, "Fresh
  // small pages populated"); the pool populates a small-page block whose
  // pages may be unmapped in one call when it hands the block out. Counted,
  // not timed: 4 MiB is 1,024 pages, so 1,024 faults without it.
  if (!kernel_populates()) {
    MESSAGE("skipped: this kernel has no MADV_POPULATE_WRITE");
    return;
  }
  struct policy_guard {
    vseg::fresh_pages saved = vseg::fresh_page_policy();
    ~policy_guard() { vseg::set_fresh_pages(saved); }
  } guard;
  vseg::set_fresh_pages(vseg::fresh_pages::by_block_size);
  // Nothing touched ahead meanwhile: the block handed out again below must
  // be where the first one was (under ThreadSanitizer its shadow is
  // faulted in then), not in a range the worker freed.
  touch_ahead_guard ahead;
  vseg::set_touch_ahead(0);
  REQUIRE(touching_done());
  const std::int64_t bytes = 4 * mib, pages = bytes / 4096;
  static_assert(4 * mib < vseg::tuning::allocator_small_page_block_limit);

  // Carved past the pool's high-water mark: never touched.
  std::vector<buffer<char>> held;
  REQUIRE(advised_small(flags_of_fresh_block(held, bytes)));
  const long fresh = faults_writing(held.back());
  // Under ThreadSanitizer the first write to an address faults in its
  // shadow as well, which populating the block does not touch (1,023
  // faults here); the block handed out again below has its shadow.
  if (!under_thread_sanitizer) CHECK(fresh < pages / 8);

  // Handed back to the kernel (MADV_DONTNEED) and handed out again.
  held.clear();
  vseg::release_buffer_cache();
  const auto before = vseg::allocator_stats();
  auto again = buffer<char>::for_overwrite(bytes);
  REQUIRE(vseg::allocator_stats().fresh_blocks == before.fresh_blocks + 1);
  const long returned = faults_writing(again);
  CHECK(returned < pages / 8);
  MESSAGE("faults writing 1,024 fresh pages: " << fresh << " past the high-water mark, " << returned
                                               << " handed back and out again");
}


TEST_CASE("allocator: the memory past a fresh small-page block is touched ahead on an idle worker") {
  // The pool sets the next touch_ahead() bytes past the high-water mark
  // aside when it carves a small-page block there, and a worker populates
  // and reads them a MiB at a time, freeing each MiB for blocks: on a VM the
  // first access to a page from user space is most of its cost
  // (notes/allocator.md, "Touched ahead"). Counted, not timed.
  if (!kernel_populates() || vseg::detail::loop_threads() < 2) {
    MESSAGE("skipped: needs MADV_POPULATE_WRITE and a second thread");
    return;
  }
  const touch_ahead_setup setup;
  const std::int64_t window = touch_ahead_setup::window;
  CHECK(vseg::touch_ahead() == window);
  REQUIRE(touching_done());
  const std::int64_t before = vseg::allocator_stats().touched_ahead_bytes;

  // A fresh block (past the high-water mark): the window starts at its
  // end. Its data is 3 MiB and its header (before or after the data, as
  // the standard library places it) less than 4 KiB, so the block ends at
  // the first 4 KiB boundary after the data's last byte.
  std::vector<buffer<char>> held;
  REQUIRE(flags_of_fresh_block(held, 3 * mib) != "(no fresh block)");
  const auto set_aside = vseg::allocator_stats();  // one snapshot: a piece moves from one count to the other
  CHECK(set_aside.untouched_bytes + set_aside.touched_ahead_bytes - before == window);
  const auto data_end = reinterpret_cast<std::uintptr_t>(held.back().data() + held.back().size());
  const char* window_start = reinterpret_cast<const char*>((data_end / 4096 + 1) * 4096);
  REQUIRE(touched_ahead_by(before, window));
  CHECK(resident(window_start, window));

  // A block of the window's size now (its data and header) is the window
  // (best fit), and writing it faults no page; it counts as reused, not fresh.
  const auto stats = vseg::allocator_stats();
  auto b = buffer<char>::for_overwrite(window - 4096);
  const auto after = vseg::allocator_stats();
  CHECK(after.fresh_blocks == stats.fresh_blocks);
  CHECK(after.reused_blocks == stats.reused_blocks + 1);
  if (b.data() >= window_start && b.data() < window_start + 4096) {  // the header may come first
    // Under ThreadSanitizer the first write also faults in its shadow.
    const long faults = faults_writing(b);
    if (!under_thread_sanitizer) CHECK(faults < window / 4096 / 8);
    MESSAGE("faults writing " << window / 4096 << " pages touched ahead: " << faults);
  } else {
    MESSAGE("a free range of the window's size came first; the window was checked resident");
  }
}

TEST_CASE("allocator: nothing is touched ahead on one thread, when turned off, or past the cache limit") {
  const touch_ahead_setup setup;
  CHECK_THROWS_WITH_AS(vseg::set_touch_ahead(-1), doctest::Contains("set_touch_ahead"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::set_touch_ahead(-1), doctest::Contains("-1"), std::invalid_argument);
  REQUIRE(touching_done());
  vseg::set_touch_ahead(5);
  CHECK(vseg::touch_ahead() == 4096);  // rounded up to the pool's granule

  // A fresh block grows the pool by itself only: no range set aside.
  const auto grows_by_block_only = [](std::int64_t bytes) {
    std::vector<buffer<char>> held;
    for (int tries = 0; tries < 64; ++tries) {
      const auto before = vseg::allocator_stats();
      held.push_back(buffer<char>::for_overwrite(bytes));
      const auto after = vseg::allocator_stats();
      if (after.fresh_blocks > before.fresh_blocks && after.pool_bytes > before.pool_bytes)
        return after.pool_bytes - before.pool_bytes <= bytes + 4096 && after.touched_ahead_bytes == before.touched_ahead_bytes;
    }
    return false;
  };
  vseg::set_touch_ahead(8 * mib);
  {
    vseg::detail::thread_limit one(1);
    CHECK(grows_by_block_only(3 * mib));
  }
  vseg::set_touch_ahead(0);
  CHECK(grows_by_block_only(3 * mib));
  vseg::set_touch_ahead(8 * mib);
  vseg::set_buffer_cache_limit(4 * mib);  // no room for 8 MiB touched ahead
  CHECK(grows_by_block_only(3 * mib));
}

TEST_CASE("allocator: what is touched ahead after release_buffer_cache is handed back too") {
  if (vseg::detail::loop_threads() < 2) {
    MESSAGE("skipped: needs a second thread");
    return;
  }
  const touch_ahead_setup setup;
  const std::int64_t window = touch_ahead_setup::window;
  REQUIRE(touching_done());
  const std::int64_t before = vseg::allocator_stats().touched_ahead_bytes;
  std::vector<buffer<char>> held;
  REQUIRE(flags_of_fresh_block(held, 3 * mib) != "(no fresh block)");
  vseg::release_buffer_cache();  // while the window is (likely) being touched
  REQUIRE(touched_ahead_by(before, window));
  CHECK(vseg::allocator_stats().cached_bytes == 0);
}
