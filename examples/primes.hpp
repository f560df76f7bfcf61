// The primes up to n by a vectorised sieve of Eratosthenes. Shared by
// examples/primes.cpp and the benchmark bench/irregular.
//
// NESL's sieve: the primes up to sqrt(n) (recursively) strike out their
// multiples, all at once: one segment of multiples per prime (iota_s), one
// scatter of the single value `false` into the flags, and the primes are the
// positions still true (pack_index). Two refinements keep it fast: only odd numbers get a
// flag (flag k stands for 2k + 1), and the range is swept in blocks of
// tuning-sized windows, so the multiples of one window (about twice its
// length) stay in cache and are never all in memory at once.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "vseg/vseg.hpp"

namespace examples {

// The primes up to n, ascending. O(n log log n) work.
inline vseg::array<std::int64_t> primes(std::int64_t n) {
  if (n < 2) return {};
  auto root = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
  while (root * root > n) --root;
  while ((root + 1) * (root + 1) <= n) ++root;
  const auto sieving = primes(root);
  // The odd sieving primes (all but 2) as 32-bit strides over the odd flags.
  const auto odd = vseg::map([](std::int64_t p) { return static_cast<std::int32_t>(p); },
                             vseg::pack(sieving, vseg::map([](std::int64_t p) { return p != 2; }, sieving)));
  const std::int64_t flags = (n + 1) / 2;  // flag k: is 2k + 1 prime?
  auto is_prime = vseg::buffer<bool>::filled(flags, true);
  is_prime.data()[0] = false;  // 1 is not prime
  const std::int64_t window = std::int64_t{1} << 20;
  for (std::int64_t lo = 0; lo < flags; lo += window) {
    const std::int64_t hi = std::min(flags, lo + window);
    // The first odd multiple of p at or above max(p², 2·lo + 1), as a flag
    // offset from lo, and how many multiples fall into [lo, hi).
    const auto first = vseg::map([&](std::int32_t p) {
      std::int64_t m = std::max<std::int64_t>(std::int64_t{p} * p, (2 * lo + 1 + p - 1) / p * p);
      if (m % 2 == 0) m += p;
      return static_cast<std::int32_t>(std::min((m - 1) / 2, hi) - lo);
    }, odd);
    const auto count = vseg::zip_with([&](std::int32_t f, std::int32_t p) {
      return f >= hi - lo ? std::int64_t{0} : (hi - lo - 1 - f) / p + 1;
    }, first, odd);
    const auto multiples = vseg::iota_s(vseg::segd::from_lengths(count), first, odd);
    vseg::scatter_into(is_prime.span().subspan(static_cast<std::size_t>(lo), static_cast<std::size_t>(hi - lo)),
                       multiples, false);
  }
  const auto odd_primes = vseg::map([](std::int64_t k) { return 2 * k + 1; }, vseg::pack_index(std::move(is_prime).freeze()));
  return vseg::append(vseg::array<std::int64_t>{2}, odd_primes);
}

}  // namespace examples
