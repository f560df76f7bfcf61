// A program that uses vseg as an outside project would: through the public
// dependency only (pkg-config or a Meson subproject).
#include <vseg/vseg.hpp>

#include <cstdint>
#include <iostream>

int main() {
  auto rows = vseg::nested<double>::from({{1.0, 2.0}, {}, {3.0}});
  auto sums = vseg::sum_s(rows);
  const bool ok = sums.size() == 3 && sums[0] == 3.0 && sums[1] == 0.0 && sums[2] == 3.0;
  std::cout << (ok ? "consumer ok\n" : "consumer: wrong sums\n");
  return ok ? 0 : 1;
}
