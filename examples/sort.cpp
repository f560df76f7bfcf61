// Sorts random doubles and (key, value) pairs with vseg::sort and
// vseg::sort_by_key, and checks both against std::stable_sort.
// Exits non-zero on a mismatch.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

#include "sort.hpp"

int main() {
  std::mt19937_64 rng(2026);
  const std::int64_t n = 300'000;
  std::vector<double> xs(n);
  std::uniform_real_distribution<double> real(-1e3, 1e3);
  for (auto& x : xs) x = real(rng);
  std::vector<std::uint32_t> keys(n);
  for (auto& k : keys) k = static_cast<std::uint32_t>(rng() % 1000);  // many equal keys: stability shows

  const auto sorted = examples::sort_doubles(vseg::array<double>(xs));
  auto expect = xs;
  std::stable_sort(expect.begin(), expect.end());
  const bool doubles_ok = vseg::to_vector(sorted) == expect;

  const auto [k, v] = examples::sort_pairs(vseg::array<std::uint32_t>(keys), vseg::iota<std::int64_t>(n));
  std::vector<std::int64_t> order(n);
  for (std::int64_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return keys[a] < keys[b]; });
  bool pairs_ok = v.size() == n;
  for (std::int64_t i = 0; pairs_ok && i < n; ++i) pairs_ok = v[i] == order[i] && k[i] == keys[order[i]];

  std::cout << "sort " << n << " doubles: " << (doubles_ok ? "ok" : "WRONG") << "\n"
            << "sort_by_key " << n << " pairs: " << (pairs_ok ? "ok" : "WRONG") << "\n";
  return doubles_ok && pairs_ok ? 0 : 1;
}
