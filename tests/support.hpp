// Shared helpers for the unit tests: seeded inputs, the standard sizes and
// segment mixes, thread-count sweeps, and the process's page-fault count.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <sys/resource.h>

#include <doctest/doctest.h>

#include "vseg/detail/parallel.hpp"
#include "vseg/monoid.hpp"
#include "vseg/tuning.hpp"

namespace vseg::test {

// The sizes every flat primitive is tried on: around the block size, and large.
inline std::vector<std::int64_t> standard_sizes() {
  const std::int64_t b = tuning::flat_block;
  return {0, 1, 2, b - 1, b, b + 1, 3 * b + 7, 200'003};
}

// Page faults the calling thread has taken so far (minor: no disk), for
// tests that count them instead of timing; per thread, so that the buffer
// pool's touch-ahead worker (whose populating counts as faults) does not
// disturb the count. O(1).
inline long thread_page_faults() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt + u.ru_majflt;
}

// Thread counts for sweeps, in a non-monotonic order (as oneTBB's own tests do).
inline std::vector<int> thread_counts() { return {2, 1, 4, 3}; }

// Runs body() under each thread count of the sweep.
template <class Body>
void for_each_thread_count(Body&& body) {
  for (int threads : thread_counts()) {
    detail::thread_limit limit(threads);
    INFO("threads = " << threads);
    body(threads);
  }
}

// True when both vectors hold the same doubles bit for bit (NaNs and signed
// zeros included).
inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i])) return false;
  return true;
}

inline std::mt19937_64 seeded(std::uint64_t seed) { return std::mt19937_64(seed); }

inline std::vector<std::int64_t> random_ints(std::mt19937_64& rng, std::int64_t n,
                                             std::int64_t lo, std::int64_t hi) {
  std::uniform_int_distribution<std::int64_t> d(lo, hi);
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

inline std::vector<double> random_doubles(std::mt19937_64& rng, std::int64_t n) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

inline std::vector<bool> random_flags_vector(std::mt19937_64& rng, std::int64_t n, double p) {
  std::bernoulli_distribution d(p);
  std::vector<bool> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = d(rng);
  return v;
}

// A segment mix: a name and its lengths.
struct segment_mix {
  std::string name;
  std::vector<std::int64_t> lengths;
};

// The standard segment mixes: all empty, all length 1, all length 3, random
// short, one giant segment (all but random have uniform descriptors), a
// Zipf-like mix, and giant segments among empty ones.
inline std::vector<segment_mix> standard_mixes(std::uint64_t seed) {
  auto rng = seeded(seed);
  std::vector<segment_mix> mixes;
  mixes.push_back({"no segments", {}});
  mixes.push_back({"all empty", std::vector<std::int64_t>(100'000, 0)});
  mixes.push_back({"all length 1", std::vector<std::int64_t>(70'000, 1)});
  mixes.push_back({"all length 3", std::vector<std::int64_t>(30'000, 3)});
  mixes.push_back({"random", random_ints(rng, 20'000, 0, 20)});
  mixes.push_back({"one giant", {150'000}});
  {
    std::vector<std::int64_t> zipf;
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int i = 0; i < 5000; ++i)
      zipf.push_back(static_cast<std::int64_t>(1.0 / (u(rng) * u(rng) + 1e-4)) % 60'000);
    mixes.push_back({"zipf", zipf});
  }
  {
    std::vector<std::int64_t> mixed(50'000, 0);
    mixed[7] = 80'000;
    mixed[25'000] = 3;
    mixed[49'999] = 40'000;
    mixes.push_back({"giants among empties", mixed});
  }
  return mixes;
}

// An element that counts how often it is copied (constructed or assigned from another).
struct counted {
  static inline std::atomic<std::int64_t> copies{0};
  std::int64_t value = 0;
  counted() = default;
  counted(std::int64_t v) : value(v) {}  // NOLINT: implicit for brevity in tests
  counted(const counted& o) : value(o.value) { copies.fetch_add(1, std::memory_order_relaxed); }
  counted& operator=(const counted& o) {
    value = o.value;
    copies.fetch_add(1, std::memory_order_relaxed);
    return *this;
  }
  bool operator==(const counted& o) const { return value == o.value; }
};

// A (first, last) pair of indices, and the monoid that concatenates two
// ranges (keeps the first of the left and the last of the right; {-1, -1}
// is empty): not commutative, so a fold out of order or a piece folded
// twice shows in the result.
struct ends_pair {
  std::int64_t first, last;
  bool operator==(const ends_pair&) const = default;
};
inline auto ends_monoid() {
  return vseg::make_monoid(
      [](ends_pair a, ends_pair b) {
        if (a.first < 0) return b;
        if (b.first < 0) return a;
        return ends_pair{a.first, b.last};
      },
      ends_pair{-1, -1});
}

}  // namespace vseg::test
