// The cost of a first touch of fresh memory on this machine, per MiB: one
// byte written per 4 KiB page of an anonymous mapping, with MADV_HUGEPAGE
// (the advice vseg's buffer pool gives its range) and without, then the
// same memory written whole (warm). Run it at once after another run and
// after a few seconds idle: on a VM that reports free memory to its host
// the two differ (notes/vcode.md, "This VM's memory").
//
//     build/bench/first_touch [MiB]      (default 110)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sys/mman.h>
#include <time.h>

namespace {

double now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void touch(std::size_t mib, bool huge) {
  const std::size_t n = mib << 20, align = std::size_t{2} << 20;
  void* raw = mmap(nullptr, n + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) {
    std::perror("mmap");
    std::exit(1);
  }
  char* p = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(raw) + align - 1) & ~(align - 1));
  if (huge) madvise(p, n, MADV_HUGEPAGE);
  const double t0 = now();
  for (std::size_t i = 0; i < n; i += 4096) p[i] = 1;
  const double t1 = now();
  std::memset(p, 2, n);
  const double t2 = now();
  std::printf("%-12s %zu MiB: first touch %.1f ms (%.2f ms/MiB), written again %.1f ms\n",
              huge ? "huge pages" : "4 KiB pages", mib, (t1 - t0) * 1e3, (t1 - t0) * 1e3 / static_cast<double>(mib),
              (t2 - t1) * 1e3);
  munmap(raw, n + align);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? static_cast<std::size_t>(std::atoi(argv[1])) : 110;
  touch(mib, true);
  touch(mib, false);
  return 0;
}
