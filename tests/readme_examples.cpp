// The C++ examples of README.md, verbatim: tests/check_readme.py (the
// `readme` test) fails when a ```cpp block of the README is not found here
// word for word, and checks that this program prints the output the README
// shows. Edit both together.
#include <cstdint>
#include <functional>
#include <iostream>

#include <vseg/vseg.hpp>

int main() {
  vseg::array<double> xs{1, 2, 3, 4, 5};
  auto s = vseg::segd::from_lengths({2, 0, 3});
  auto sums = vseg::sum_s(s, xs);  // [3 0 12]
  auto evens = vseg::pack(xs, vseg::map([](double v) { return int(v) % 2 == 0; }, xs));  // [2 4]

  // A 3x3 matrix in compressed rows: [[4 -1 0] [-1 4 -1] [0 -1 4]].
  const std::int64_t nrows = 3;
  auto cols = vseg::nested<std::int64_t>::from_lengths({2, 3, 2}, {0, 1, 0, 1, 2, 1, 2});
  auto vals = vseg::nested<double>::from_lengths({2, 3, 2}, {4, -1, -1, 4, -1, -1, 4});
  vseg::array<double> x{1, 2, 3};

  // SpMV as a flattening compiler writes it: the vector is replicated once per
  // row (no copy), indexed by the lifted index, and summed per row; the
  // gathered products are never stored.
  auto y = vseg::sum_s(vseg::zip_with(std::multiplies<>{}, vals,
                                      vseg::index_l(vseg::replicate(nrows, x), cols)));

  auto print = [](const vseg::array<double>& v) {
    for (std::int64_t i = 0; i < v.size(); ++i) std::cout << (i > 0 ? " " : "") << v[i];
    std::cout << '\n';
  };
  print(sums);
  print(evens);
  print(y);  // [4*1 - 2, -1 + 4*2 - 3, -2 + 4*3]
}
