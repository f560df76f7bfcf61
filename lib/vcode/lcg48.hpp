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

  // The map x -> mul * x + add (mod 2^48) that advances the state n steps,
  // in O(log n): the map x -> a*x + c composed with itself by repeated
  // squaring.
  struct affine {
    std::uint64_t mul = 1;
    std::uint64_t add = 0;
    std::uint64_t operator()(std::uint64_t state) const noexcept { return (mul * state + add) & mask; }
  };
  static affine steps(std::uint64_t n) noexcept {
    affine acc;                            // accumulated map
    std::uint64_t step_mul = a, step_add = c;  // the map for 2^k steps
    while (n != 0) {
      if (n & 1) {
        acc.mul = (acc.mul * step_mul) & mask;
        acc.add = (acc.add * step_mul + step_add) & mask;
      }
      step_add = (step_add * step_mul + step_add) & mask;
      step_mul = (step_mul * step_mul) & mask;
      n >>= 1;
    }
    return acc;
  }

  // The generator n steps ahead, in O(log n).
  lcg48 jumped(std::uint64_t n) const noexcept { return {steps(n)(x)}; }

  // out[k] = f(the k-th next lrand48() value) for k in [0, n), as n calls of
  // next() would give them, and the generator left n steps ahead. The
  // values are computed in `lanes` interleaved streams that each step
  // `lanes` positions at once, so the multiplications of different streams
  // overlap instead of forming one chain of n dependent multiply-adds.
  template <class F>
  void generate(std::int64_t n, F&& f) noexcept {
    constexpr int lanes = 8;
    const affine stride = steps(lanes);
    std::uint64_t lane[lanes];
    std::int64_t k = 0;
    if (n >= lanes) {
      for (int l = 0; l < lanes; ++l) lane[l] = jumped(static_cast<std::uint64_t>(l) + 1).x;
      for (; k + lanes <= n; k += lanes)
        for (int l = 0; l < lanes; ++l) {
          f(k + l, static_cast<std::int32_t>(lane[l] >> 17));
          lane[l] = stride(lane[l]);
        }
      x = jumped(static_cast<std::uint64_t>(k)).x;
    }
    for (; k < n; ++k) f(k, next());
  }
};

}  // namespace vseg::vcode::detail
