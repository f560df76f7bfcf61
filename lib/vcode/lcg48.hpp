// The 48-bit linear congruential generator of glibc's lrand48/srand48,
// with jump-ahead so that RAND over a long vector runs in parallel blocks and
// still yields exactly the sequence of a serial lrand48() loop.
//
//   x_{n+1} = (a * x_n + c) mod 2^48,  a = 0x5DEECE66D, c = 0xB,
//   lrand48() returns x_{n+1} >> 17 (31 bits).
#pragma once

#include <cstdint>

namespace vseg::vcode::detail {

struct lcg48 {
  static constexpr std::uint64_t a = 0x5DEECE66DULL;
  static constexpr std::uint64_t c = 0xBULL;
  static constexpr std::uint64_t mask = (std::uint64_t{1} << 48) - 1;

  // glibc's state before any seeding is all zero.
  std::uint64_t x = 0;

  // srand48(seed): the low 32 bits of seed, then 0x330E.
  static lcg48 seeded(std::int64_t seed) {
    return {((static_cast<std::uint64_t>(seed) & 0xFFFFFFFFULL) << 16) | 0x330EULL};
  }

  // The next lrand48() value.
  std::int32_t next() noexcept {
    x = (a * x + c) & mask;
    return static_cast<std::int32_t>(x >> 17);
  }

  // The generator n steps ahead, in O(log n): composes the affine map
  // x -> a*x + c with itself by repeated squaring.
  lcg48 jumped(std::uint64_t n) const noexcept {
    std::uint64_t mul = 1, add = 0;        // accumulated map: x -> mul*x + add
    std::uint64_t step_mul = a, step_add = c;  // the map for 2^k steps
    while (n != 0) {
      if (n & 1) {
        mul = (mul * step_mul) & mask;
        add = (add * step_mul + step_add) & mask;
      }
      step_add = (step_add * step_mul + step_add) & mask;
      step_mul = (step_mul * step_mul) & mask;
      n >>= 1;
    }
    return {(mul * x + add) & mask};
  }
};

}  // namespace vseg::vcode::detail
