// A tour of vseg's flat and segmented primitives on built-in data.
#include <cstdint>
#include <iostream>
#include <span>

#include "vseg/vseg.hpp"

namespace {

template <class T>
void show(const char* what, std::span<const T> xs) {
  std::cout << what << " = [";
  for (std::size_t i = 0; i < xs.size(); ++i) std::cout << (i ? " " : "") << xs[i];
  std::cout << "]\n";
}

}  // namespace

int main() {
  using vseg::array;
  array<std::int64_t> xs{3, 1, 4, 1, 5, 9, 2, 6};
  show<std::int64_t>("xs", xs);
  std::cout << "sum xs = " << vseg::sum(xs) << "\n";
  show<std::int64_t>("scan (+) xs", vseg::scan(xs, vseg::plus<std::int64_t>{}));
  auto odd = vseg::map([](std::int64_t x) { return x % 2 == 1; }, xs);
  show<std::int64_t>("pack xs odd", vseg::pack(xs, odd));
  show<std::int64_t>("expand [1 0 2 ...] xs",
                     vseg::expand(array<std::int64_t>{1, 0, 2, 0, 0, 0, 0, 3}, xs));

  auto s = vseg::segd::from_lengths(array<std::int64_t>{3, 0, 5});
  std::cout << "segments: lengths [3 0 5] over xs\n";
  show<std::int64_t>("sum_s", vseg::sum_s(s, xs));
  show<std::int64_t>("fold_s max", vseg::fold_s(s, xs, vseg::maximum<std::int64_t>{}));
  show<std::int64_t>("scan_s (+)", vseg::scan_s(s, xs, vseg::plus<std::int64_t>{}));
  show<std::int64_t>("indices_s", vseg::indices_s(s));
  show<std::int64_t>("replicate_s [10 20 30]", vseg::replicate_s(s, array<std::int64_t>{10, 20, 30}));

  // A larger run: the sum of squares of 0..10^6-1, in parallel.
  auto big = vseg::iota<std::int64_t>(1'000'000);
  auto squares = vseg::map([](std::int64_t i) { return i * i; }, big);
  std::cout << "sum of squares below 10^6 = " << vseg::sum(squares) << "\n";
  return 0;
}
