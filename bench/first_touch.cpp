// The cost of a first touch of fresh memory on this machine: one byte
// written per 4 KiB page of a fresh anonymous mapping, advised for huge
// pages (what vseg's buffer pool gives blocks of 16 MiB and more) or
// against them (smaller blocks), then the same memory written whole (warm).
// With huge pages it also prints a map of the huge pages in order: '.'
// under 0.5 ms, 'o' up to 1.5 ms, 'X' over (one that came back from the
// host). Run each kind in its own process, at once after another run and
// after a few seconds idle: on a VM that reports free memory to its host
// the two differ (notes/allocator.md, "Small pages for blocks below 16 MiB").
// With `populate` the pages are faulted in by one
// madvise(MADV_POPULATE_WRITE) instead of one write per page (what vseg's
// pool does for a fresh small-page block: notes/allocator.md, "Fresh small
// pages populated"); run both in one minute to compare. With `ahead` another
// thread populates the pages and reads one byte of each, and this one then
// writes them (what the pool's touch-ahead does: notes/allocator.md,
// "Touched ahead"): whether an access from another thread spares this one
// its first-access cost ("written again" against `populate`'s).
//
//     build/bench/first_touch [MiB] [huge|small] [touch|populate|ahead]
//                                                  (default 110 huge touch)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include <sys/mman.h>
#include <time.h>

namespace {

constexpr std::size_t huge_page = std::size_t{2} << 20;

double now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

char map_mark(double ms) { return ms < 0.5 ? '.' : ms < 1.5 ? 'o' : 'X'; }

}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? static_cast<std::size_t>(std::atoi(argv[1])) : 110;
  const std::string kind = argc > 2 ? argv[2] : "huge";
  const std::string how = argc > 3 ? argv[3] : "touch";
  if (mib == 0 || (kind != "huge" && kind != "small") || (how != "touch" && how != "populate" && how != "ahead")) {
    std::fprintf(stderr, "usage: first_touch [MiB > 0] [huge|small] [touch|populate|ahead]\n");
    return 2;
  }
  const bool huge = kind == "huge", populate = how != "touch", elsewhere = how == "ahead";
  const std::size_t n = mib << 20;
  void* raw = mmap(nullptr, n + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  char* p = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(raw) + huge_page - 1) & ~(huge_page - 1));
  madvise(p, n, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  std::string marks;
  bool failed = false;
  const double t0 = now();
  const auto first_touch = [&] {
    for (std::size_t at = 0; at < n; at += huge_page) {
      const double page_start = now();
      const std::size_t end = std::min(at + huge_page, n);
      if (!populate) {
        for (std::size_t i = at; i < end; i += 4096) p[i] = 1;
      } else if (madvise(p + at, end - at, MADV_POPULATE_WRITE) != 0) {
        std::perror("madvise(MADV_POPULATE_WRITE)");
        failed = true;
        return;
      } else if (elsewhere) {
        for (std::size_t i = at; i < end; i += 4096) (void)*static_cast<volatile const char*>(p + i);
      }
      marks += map_mark((now() - page_start) * 1e3);
    }
  };
  if (elsewhere) std::thread(first_touch).join();
  else first_touch();
  if (failed) return 1;
  const double t1 = now();
  std::memset(p, 2, n);
  const double t2 = now();
  std::printf("%-11s %zu MiB: first touch%s %.1f ms (%.2f ms/MiB), written again %.1f ms\n",
              huge ? "huge pages" : "4 KiB pages", mib, elsewhere ? " (populated and read by another thread)" : populate ? " (populated)" : "", (t1 - t0) * 1e3, (t1 - t0) * 1e3 / static_cast<double>(mib),
              (t2 - t1) * 1e3);
  if (huge) std::printf("per huge page: %s\n", marks.c_str());
  munmap(raw, n + huge_page);
  return 0;
}
