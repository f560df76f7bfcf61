// vseg::detail::count_flags (eight bools per 64-bit word) against the byte
// loop it replaced, side by side in one run: the same random flags, counted
// over ranges of 15, 64 and 4096, rounds interleaved, medians (min-max).
//
//     build/bench/bench_count_flags
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "vseg/flat/pack.hpp"

namespace {

// The loop count_flags replaced (pack's counts before it).
__attribute__((noinline)) std::int64_t byte_loop(const bool* f, std::int64_t lo, std::int64_t hi) {
  std::int64_t c = 0;
  for (std::int64_t k = lo; k < hi; ++k) c += f[k] ? 1 : 0;
  return c;
}

__attribute__((noinline)) std::int64_t words(const bool* f, std::int64_t lo, std::int64_t hi) {
  return vseg::detail::count_flags(f, lo, hi);
}

// ns per flag of one pass of count over f in ranges of `run`; the total in `sum`.
template <class Count>
double ns_per_flag(Count count, const bool* f, std::int64_t n, std::int64_t run, std::int64_t& sum) {
  const auto t = std::chrono::steady_clock::now();
  for (std::int64_t lo = 0; lo + run <= n; lo += run) sum += count(f, lo, lo + run);
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t).count() / static_cast<double>(n);
}

void report(const char* name, std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::printf("  %-12s %.3f ns/flag (%.3f-%.3f)\n", name, v[v.size() / 2], v.front(), v.back());
}

}  // namespace

int main() {
  const std::int64_t n = std::int64_t{1} << 22;  // 4 MiB of flags: in L2/L3
  std::mt19937_64 rng(1);
  std::vector<char> bytes(static_cast<std::size_t>(n));
  for (auto& b : bytes) b = static_cast<char>(rng() & 1);
  const bool* f = reinterpret_cast<const bool*>(bytes.data());
  for (std::int64_t run : {15, 64, 4096}) {
    std::vector<double> a, b;
    std::int64_t sa = 0, sb = 0;
    for (int round = 0; round < 21; ++round) {
      a.push_back(ns_per_flag(byte_loop, f, n, run, sa));
      b.push_back(ns_per_flag(words, f, n, run, sb));
    }
    if (sa != sb) {
      std::fprintf(stderr, "count_flags disagrees with the byte loop: %lld against %lld\n", static_cast<long long>(sb),
                   static_cast<long long>(sa));
      return 1;
    }
    std::printf("ranges of %lld flags, 21 interleaved rounds, median (min-max):\n", static_cast<long long>(run));
    report("byte loop", a);
    report("count_flags", b);
  }
}
