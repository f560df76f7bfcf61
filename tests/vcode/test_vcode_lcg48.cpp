// RAND's generator (lib/vcode/lcg48.hpp) against glibc's own srand48 and
// lrand48: the serial step, the jump-ahead, and the bounded loop in both its
// AVX2 and its portable form, at lengths around the 8-wide vector steps and
// at bounds from 1 to INT_MAX.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "../../lib/vcode/lcg48.hpp"

using vseg::vcode::detail::generate_mod;
using vseg::vcode::detail::lcg48;
using vseg::vcode::detail::mod_by;

namespace {

// n values of glibc's lrand48() after srand48(seed) and `skip` calls.
std::vector<long> glibc_sequence(long seed, int skip, int n) {
  srand48(seed);
  for (int i = 0; i < skip; ++i) (void)lrand48();
  std::vector<long> v(static_cast<std::size_t>(n));
  for (long& x : v) x = lrand48();
  return v;
}

}  // namespace

TEST_CASE("lcg48: next() and jumped() follow glibc's lrand48") {
  for (long seed : {0L, 1L, 42L, -7L, 2147483647L}) {
    const std::vector<long> want = glibc_sequence(seed, 0, 300);
    lcg48 g = lcg48::seeded(seed);
    for (int i = 0; i < 300; ++i) REQUIRE(g.next() == want[static_cast<std::size_t>(i)]);
    for (int skip : {0, 1, 7, 8, 9, 255}) {
      lcg48 h = lcg48::seeded(seed).jumped(static_cast<std::uint64_t>(skip));
      CHECK(h.next() == want[static_cast<std::size_t>(skip)]);
    }
  }
}

TEST_CASE("lcg48: generate_mod gives lrand48() % d in both its forms") {
  for (long seed : {0L, 3L, 123456789L}) {
    for (int skip : {0, 5, 64}) {
      for (std::int32_t d : {1, 2, 3, 7, 100, 65536, 1000000000, 2147483647}) {
        for (int n : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 1000, 1003}) {
          const std::vector<long> raw = glibc_sequence(seed, skip, n + 1);
          for (bool portable : {false, true}) {
            CAPTURE(seed);
            CAPTURE(skip);
            CAPTURE(d);
            CAPTURE(n);
            CAPTURE(portable);
            lcg48 g = lcg48::seeded(seed).jumped(static_cast<std::uint64_t>(skip));
            std::vector<std::int32_t> out(static_cast<std::size_t>(n), -1);
            generate_mod(g, out.data(), n, mod_by(d), portable);
            bool same = true;
            for (int i = 0; i < n; ++i) same &= out[static_cast<std::size_t>(i)] == raw[static_cast<std::size_t>(i)] % d;
            CHECK(same);
            // The generator is left n steps ahead.
            CHECK(g.next() == raw[static_cast<std::size_t>(n)]);
          }
        }
      }
    }
  }
}
