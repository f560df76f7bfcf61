// Removes duplicates from random values with vseg (examples/dedup.hpp),
// checked against a serial pass with std::unordered_set. Exits non-zero on
// a mismatch.
#include <cstdint>
#include <iostream>
#include <random>
#include <unordered_set>
#include <vector>

#include "dedup.hpp"

int main() {
  std::mt19937_64 rng(7);
  bool ok = true;
  for (const std::int64_t n : {0, 1, 1000, 300'000}) {
    std::vector<std::int64_t> xs(static_cast<std::size_t>(n));
    for (auto& x : xs) x = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n / 10 + 1)) - n / 20;
    std::unordered_set<std::int64_t> seen;
    std::vector<std::int64_t> expect;
    for (std::int64_t x : xs)
      if (seen.insert(x).second) expect.push_back(x);
    const auto got = examples::dedup(vseg::array<std::int64_t>(xs));
    const bool same = vseg::to_vector(got) == expect;
    std::cout << "remove_duplicates of " << n << " values: " << got.size() << " distinct, " << (same ? "ok" : "WRONG")
              << "\n";
    ok = ok && same;
  }
  return ok ? 0 : 1;
}
