// vseg-vcode: runs a VCODE program (as emitted by the NESL compiler) on vseg.
//
//   vseg-vcode [-m WORDS] [-t|--threads N] [--stats] program.vcode
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <chrono>
#include <memory>
#include <new>
#include <array>
#include <atomic>
#include <cstdint>

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#include <tbb/global_control.h>

#include "vseg/vcode/interpreter.hpp"
#include "vseg/vcode/program.hpp"

namespace {

void usage(std::FILE* to) {
  std::fputs(
      "usage: vseg-vcode [options] program.vcode\n"
      "Runs a VCODE program (NESL's intermediate language) on vseg and prints\n"
      "the final stack to standard output, as NESL's vinterp does.\n"
      "\n"
      "options:\n"
      "  -m WORDS          limit the vectors on the stack to WORDS 8-byte words\n"
      "  -t, --threads N   use at most N threads (default: all cores)\n"
      "  --stats           print the instruction count and time, and the time per operation, to standard error\n"
      "  --stats-shapes    --stats, plus the time per operation and operand shapes (sizes of the top stack entries)\n"
      "  --trace           print every instruction and the stack's shape to standard error\n"
      "  -h, --help        show this help\n",
      to);
}

bool parse_count(const char* text, long long& out) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtoll(text, &end, 10);
  return errno == 0 && *end == '\0' && out > 0;
}

}  // namespace

// Vectors of millions of elements are first touched page by page: with 4 KiB
// pages, faulting in a fresh 80 MB vector costs more system time than the
// operation itself (dotp.10000000: 0.15 s of 0.3 s; radix.1000000: 2,400
// faults, a sixth of its run). The tool therefore asks for transparent huge
// pages (advice, ignored where THP is off; here the mode is `madvise`), as
// glibc's glibc.malloc.hugetlb=1 tunable does, which a program cannot set
// for itself:
//  - main() makes the heap grow in 64 MiB steps (M_TOP_PAD) and keep what
//    is freed (M_TRIM_THRESHOLD, M_MMAP_THRESHOLD: no block is mmap'd);
//  - after a big allocation, the part of the heap that has grown since the
//    last advice is marked MADV_HUGEPAGE before anything touches it, so later
//    blocks of any size land on huge pages;
//  - a block of 2 MiB or more outside that heap (a thread's arena) has its
//    aligned interior marked.
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

// Trivially destructible, so it stays usable until its thread ends; the
// blocks it holds are freed by flush_at_exit, after which it is closed.
struct block_cache {
  static constexpr int depth = 4;
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
  if (n >= class_unit && n < class_limit) {
    const std::size_t c = (n + class_unit - 1) / class_unit;  // blocks of c units
    block_cache& k = cache;
    if (k.count[c] > 0) return k.blocks[c][static_cast<std::size_t>(--k.count[c])];
    n = c * class_unit;  // a whole class, so that the block can serve any request of it
  }
  void* p = std::malloc(n != 0 ? n : 1);
  if (p == nullptr) throw std::bad_alloc();
  if (n >= big_block) {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    if (at < reinterpret_cast<std::uintptr_t>(sbrk(0))) advise_heap_growth(at);
    if (n >= huge_page) advise(align_up(at), align_down(at + n));
  }
  return p;
}

void release(void* p) noexcept {
  if (p == nullptr) return;
  // A block of usable size u serves requests of up to u bytes: class u / unit.
  const std::size_t c = malloc_usable_size(p) / class_unit;
  if (c > 0 && c < classes && !cache.closed) {
    block_cache& k = cache;
    if (k.count[c] < block_cache::depth) {
      (void)&flush_at_exit;  // its destructor frees what the thread keeps
      k.blocks[c][static_cast<std::size_t>(k.count[c]++)] = p;
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

int main(int argc, char** argv) {
  // Every vector operation allocates its result. glibc serves big blocks
  // with mmap and returns them at free, so each operation would page-fault
  // its whole result in again; keeping freed memory in the heap instead
  // makes the next operation reuse warm pages (see notes/vcode.md).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, static_cast<int>(heap_step));
  vseg::vcode::run_options options;
  long long threads = 0;
  bool stats = false;
  const char* file = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    }
    if (a == "-m" || a == "-t" || a == "--threads") {
      long long v = 0;
      if (i + 1 >= argc || !parse_count(argv[i + 1], v)) {
        std::fprintf(stderr, "vseg-vcode: %s needs a positive integer\n", a.c_str());
        usage(stderr);
        return 2;
      }
      ++i;
      if (a == "-m") options.memory_words = v;
      else threads = v;
    } else if (a == "--trace") {
      options.trace = true;
    } else if (a == "--stats" || a == "--stats-shapes") {
      stats = true;
      options.profile = true;
      options.profile_shapes = a == "--stats-shapes";
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "vseg-vcode: unknown option %s\n", a.c_str());
      usage(stderr);
      return 2;
    } else if (file != nullptr) {
      std::fprintf(stderr, "vseg-vcode: more than one program given\n");
      return 2;
    } else {
      file = argv[i];
    }
  }
  if (file == nullptr) {
    std::fprintf(stderr, "vseg-vcode: no program given\n");
    usage(stderr);
    return 2;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "vseg-vcode: cannot open %s: %s\n", file, std::strerror(errno));
    return 1;
  }
  std::ostringstream text;
  text << in.rdbuf();

  std::unique_ptr<tbb::global_control> limit;
  if (threads > 0)
    limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                  static_cast<std::size_t>(threads));
  try {
    const vseg::vcode::program prog = vseg::vcode::parse(text.str());
    const auto start = std::chrono::steady_clock::now();
    const auto result = vseg::vcode::run(prog, options);
    if (stats) {
      const std::chrono::duration<double> t = std::chrono::steady_clock::now() - start;
      std::fprintf(stderr, "vseg-vcode: %lld instructions in %.6f s\n",
                   static_cast<long long>(result.instructions), t.count());
      for (const auto& p : result.profile)
        std::fprintf(stderr, "  %-20s %10lld  %10.6f s\n", p.op.c_str(), static_cast<long long>(p.count), p.seconds);
      if (!result.shapes.empty()) std::fprintf(stderr, "by operand shapes (the 40 costliest):\n");
      for (std::size_t k = 0; k < result.shapes.size() && k < 40; ++k)
        std::fprintf(stderr, "  %10lld  %10.6f s  %s\n", static_cast<long long>(result.shapes[k].count),
                     result.shapes[k].seconds, result.shapes[k].op.c_str());
    }
  } catch (const vseg::vcode::error& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "vseg-vcode: %s: %s\n", file, e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "vseg-vcode: %s: %s\n", file, e.what());
    return 1;
  }
  return 0;
}
