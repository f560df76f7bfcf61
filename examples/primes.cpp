// The primes up to 5·10^6 with vseg (examples/primes.hpp), checked against
// a plain sieve; also the small cases 0..100. Exits non-zero on a mismatch.
#include <cstdint>
#include <iostream>
#include <vector>

#include "primes.hpp"

namespace {

std::vector<std::int64_t> primes_reference(std::int64_t n) {
  std::vector<std::int64_t> out;
  std::vector<char> composite(static_cast<std::size_t>(std::max<std::int64_t>(n + 1, 0)), 0);
  for (std::int64_t p = 2; p <= n; ++p) {
    if (composite[p]) continue;
    out.push_back(p);
    for (std::int64_t k = p * p; k <= n; k += p) composite[k] = 1;
  }
  return out;
}

}  // namespace

int main() {
  bool ok = true;
  for (std::int64_t n = 0; n <= 100; ++n) ok = ok && vseg::to_vector(examples::primes(n)) == primes_reference(n);
  const std::int64_t n = 5'000'000;  // 2.5·10^6 odd flags: two sieve windows of 2^20 and a part
  const auto ps = examples::primes(n);
  ok = ok && vseg::to_vector(ps) == primes_reference(n);
  std::cout << "primes up to " << n << ": " << ps.size() << " (last " << ps[ps.size() - 1] << "): "
            << (ok ? "ok" : "WRONG") << "\n";
  return ok ? 0 : 1;
}
