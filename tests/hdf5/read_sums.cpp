// Loads the depth-1 int64 array at argv[1] with the serial reader and prints
// its segment sums (vseg::sum_s), one a line.
#include <cstdint>
#include <cstdio>
#include <exception>

#include "vseg/hdf5/nested.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: read_sums FILE.h5\n");
    return 2;
  }
  try {
    for (std::int64_t s : vseg::sum_s(vseg::hdf5::load_nested<std::int64_t>(argv[1])))
      std::printf("%lld\n", static_cast<long long>(s));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "read_sums: %s\n", e.what());
    return 1;
  }
  return 0;
}
