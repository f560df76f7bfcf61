// The allocation cliff: MAPS calls of vseg::map over N doubles, each
// returning a fresh array (the previous result is dropped when the next one
// is assigned, as in a user's loop), against a hand-written oneTBB loop into
// one preallocated output (the bandwidth reference).
//
//   bench_alloc [--n N] [--maps MAPS] [--rounds R] [--cache-limit BYTES]
//
// (defaults 10^7, 20, 3, and the library's cache limit).
//
// Prints, per contender, the median time per map over all rounds with the
// minimum and maximum, and the peak resident set after it (getrusage; the
// hand loop runs first, so its peak is its own). scripts/bench-alloc runs it
// under glibc's default malloc settings and under
// MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=100000000000 and prints the
// ratio; notes/allocator.md has the table.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "vseg/vseg.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

double f(double x) { return x * 1.5 + 2.0; }

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

void report(const char* name, std::vector<double> ms, double checksum) {
  std::sort(ms.begin(), ms.end());
  const std::size_t k = ms.size();
  const double median = k % 2 == 1 ? ms[k / 2] : (ms[k / 2 - 1] + ms[k / 2]) / 2;
  std::printf("%-28s median %8.2f ms per map, min %8.2f, max %8.2f; peak RSS %7.1f MiB  (checksum %.6g)\n", name,
              median, ms.front(), ms.back(), peak_rss_mib(), checksum);
}

long long parse_positive(const char* option, const char* text) {
  char* end = nullptr;
  const long long v = text == nullptr ? 0 : std::strtoll(text, &end, 10);
  if (text == nullptr || *end != '\0' || v <= 0) {
    std::fprintf(stderr, "bench_alloc: %s needs a positive integer\n", option);
    std::exit(2);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t n = 10'000'000;
  int maps = 20, rounds = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* next = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--n") n = parse_positive("--n", next);
    else if (a == "--maps") maps = static_cast<int>(parse_positive("--maps", next));
    else if (a == "--rounds") rounds = static_cast<int>(parse_positive("--rounds", next));
    else if (a == "--cache-limit") vseg::set_buffer_cache_limit(parse_positive("--cache-limit", next));
    else {
      std::fprintf(stderr, "usage: bench_alloc [--n N] [--maps MAPS] [--rounds R] [--cache-limit BYTES]\n");
      return 2;
    }
    ++i;
  }
  std::printf("%d rounds of %d maps over %lld doubles; cache limit %lld MiB; MALLOC_MMAP_MAX_=%s MALLOC_TRIM_THRESHOLD_=%s\n",
              rounds, maps, static_cast<long long>(n), static_cast<long long>(vseg::buffer_cache_limit() >> 20), std::getenv("MALLOC_MMAP_MAX_") ? std::getenv("MALLOC_MMAP_MAX_") : "(unset)",
              std::getenv("MALLOC_TRIM_THRESHOLD_") ? std::getenv("MALLOC_TRIM_THRESHOLD_") : "(unset)");

  const auto xs = vseg::tabulate(n, [](std::int64_t i) { return static_cast<double>(i % 1000); });

  // The reference: the same loop into one output allocated and touched once.
  {
    std::vector<double> y(static_cast<std::size_t>(n), 0.0);
    std::vector<double> ms;
    const double* x = xs.data();
    for (int r = 0; r < rounds; ++r)
      for (int m = 0; m < maps; ++m) {
        const auto t0 = clock_type::now();
        tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n), [&](const tbb::blocked_range<std::int64_t>& b) {
          for (std::int64_t i = b.begin(); i < b.end(); ++i) y[static_cast<std::size_t>(i)] = f(x[i]);
        });
        ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
      }
    report("hand loop, preallocated", ms, y[static_cast<std::size_t>(n / 2)]);
  }

  // vseg: every map returns a new array.
  {
    std::vector<double> ms;
    double checksum = 0;
    for (int r = 0; r < rounds; ++r) {
      vseg::array<double> ys;
      for (int m = 0; m < maps; ++m) {
        const auto t0 = clock_type::now();
        ys = vseg::map([](double x) { return f(x); }, xs);
        ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
      }
      checksum += ys[n / 2];
    }
    report("vseg::map, new array each", ms, checksum / rounds);
  }
  const auto s = vseg::allocator_stats();
  std::printf("buffer pool: %lld blocks reused, %lld fresh, %lld from malloc; %.1f MiB carved, %.1f MiB handed back\n",
              static_cast<long long>(s.reused_blocks), static_cast<long long>(s.fresh_blocks),
              static_cast<long long>(s.fallback_blocks), static_cast<double>(s.pool_bytes) / (1 << 20),
              static_cast<double>(s.released_bytes) / (1 << 20));
  return 0;
}
