// The 48-bit linear congruential generator of glibc's lrand48/srand48,
// with jump-ahead so that RAND over a long vector runs in parallel blocks and
// still yields exactly the sequence of a serial lrand48() loop.
//
//   x_{n+1} = (a * x_n + c) mod 2^48,  a = 0x5DEECE66D, c = 0xB,
//   lrand48() returns x_{n+1} >> 17 (31 bits).
#pragma once

#include <cstdint>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

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

// x % d for 0 <= x < 2^31 and 0 < d < 2^31, as Lemire's multiply-shift
// (exact for 32-bit operands) instead of a division: with M = 2^64 / d
// rounded up, x % d is the high 64 bits of ((M * x) mod 2^64) * d.
struct mod_by {
  std::uint64_t d;
  std::uint64_t inverse;

  explicit mod_by(std::int32_t divisor) noexcept
      : d(static_cast<std::uint32_t>(divisor)), inverse(~std::uint64_t{0} / d + 1) {}

  std::int32_t operator()(std::int32_t x) const noexcept {
    const std::uint64_t low = inverse * static_cast<std::uint32_t>(x);
    // The high 64 bits of low * d, in two 32x32-bit halves (no overflow).
    return static_cast<std::int32_t>(((low >> 32) * d + (((low & 0xFFFFFFFFu) * d) >> 32)) >> 32);
  }
};

#if defined(__x86_64__) && defined(__GNUC__)
// The AVX2 form of generate_mod below: 8 streams in two vectors of four
// 64-bit lanes; 64-bit products are built from 32x32-bit ones
// (_mm256_mul_epu32), which is exact here because every factor's high half
// is small: states are below 2^48, outputs below 2^31.
namespace avx2 {
using v4 = __m256i;

__attribute__((target("avx2"))) inline v4 splat(std::uint64_t x) {
  return _mm256_set1_epi64x(static_cast<long long>(x));
}

// (m * x) mod 2^64 for 64-bit lanes, m given as its halves m_lo, m_hi.
__attribute__((target("avx2"))) inline v4 mul64(v4 x, v4 m_lo, v4 m_hi) {
  const v4 cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(x, 32), m_lo), _mm256_mul_epu32(x, m_hi));
  return _mm256_add_epi64(_mm256_mul_epu32(x, m_lo), _mm256_slli_epi64(cross, 32));
}

struct kernel {
  v4 step_lo, step_hi, step_add, mask;  // the map x -> mul * x + add (mod 2^48) of 8 steps
  v4 inv_lo, inv_hi, d;                 // mod_by

  // Each lane's output (x >> 17) % d, in the lane's low 32 bits.
  __attribute__((target("avx2"))) v4 output(v4 x) const {
    const v4 low = mul64(_mm256_srli_epi64(x, 17), inv_lo, inv_hi);
    const v4 high = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(low, 32), d),
                                     _mm256_srli_epi64(_mm256_mul_epu32(low, d), 32));
    return _mm256_srli_epi64(high, 32);
  }
  __attribute__((target("avx2"))) v4 advance(v4 x) const {
    return _mm256_and_si256(_mm256_add_epi64(mul64(x, step_lo, step_hi), step_add), mask);
  }
};

__attribute__((target("avx2"))) inline std::int64_t generate_mod(lcg48& g, std::int32_t* out, std::int64_t n,
                                                                 const mod_by& m) {
  const lcg48::affine stride = lcg48::steps(8);
  const kernel k{splat(stride.mul & 0xFFFFFFFFu), splat(stride.mul >> 32), splat(stride.add), splat(lcg48::mask),
                 splat(m.inverse & 0xFFFFFFFFu),   splat(m.inverse >> 32),  splat(m.d)};
  alignas(32) std::uint64_t first[8];
  for (int l = 0; l < 8; ++l) first[l] = g.jumped(static_cast<std::uint64_t>(l) + 1).x;
  v4 a = _mm256_load_si256(reinterpret_cast<const v4*>(first));      // elements i, i+1, i+2, i+3
  v4 b = _mm256_load_si256(reinterpret_cast<const v4*>(first + 4));  // elements i+4 .. i+7
  const v4 low_halves = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v4 lo = _mm256_permutevar8x32_epi32(k.output(a), low_halves);
    const v4 hi = _mm256_permutevar8x32_epi32(k.output(b), low_halves);
    _mm256_storeu_si256(reinterpret_cast<v4*>(out + i), _mm256_permute2x128_si256(lo, hi, 0x20));
    a = k.advance(a);
    b = k.advance(b);
  }
  g = g.jumped(static_cast<std::uint64_t>(i));
  return i;
}
}  // namespace avx2
#endif

// out[k] = (the k-th next lrand48() value) % m.d for k in [0, n), and the
// generator left n steps ahead: RAND's loop for a positive bound. Uses AVX2
// where the CPU has it; `portable` forces the plain form (for tests).
inline void generate_mod(lcg48& g, std::int32_t* out, std::int64_t n, const mod_by& m, bool portable = false) {
  std::int64_t done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool has_avx2 = __builtin_cpu_supports("avx2");
  if (has_avx2 && !portable && n >= 8) done = avx2::generate_mod(g, out, n, m);
#else
  (void)portable;
#endif
  g.generate(n - done, [out = out + done, &m](std::int64_t k, std::int32_t x) { out[k] = m(x); });
}

}  // namespace vseg::vcode::detail
