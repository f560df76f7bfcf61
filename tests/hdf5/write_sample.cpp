// Writes a sample nested array to argv[1] (int64 values, segments of every
// mix of lengths, some replicated) and prints its segment sums, one a line,
// as computed by vseg::sum_s: tests/hdf5/read_with_python.py compares them
// with what h5py and dask read from the file.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

#include "vseg/hdf5/nested.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_sample OUT.h5\n");
    return 2;
  }
  try {
    std::vector<std::vector<std::int64_t>> ref;
    std::uint64_t h = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 3000; ++i) {
      h ^= h >> 29;
      h *= 0xbf58476d1ce4e5b9u;
      const auto n = static_cast<std::int64_t>(h % 7 == 0 ? 0 : h % 300);
      std::vector<std::int64_t> seg;
      for (std::int64_t k = 0; k < n; ++k) seg.push_back(static_cast<std::int64_t>((h >> 20) % 1000) - 500 + k);
      ref.push_back(seg);
    }
    const auto base = vseg::nested<std::int64_t>::from(ref);
    // Replicated segments: the file stores the virtual view.
    const auto xss = vseg::append(base, base.with_vsegids(vseg::array<std::int64_t>{17, 17, 17, 17, 17}));
    vseg::hdf5::save(argv[1], xss);
    for (std::int64_t s : vseg::sum_s(xss)) std::printf("%lld\n", static_cast<long long>(s));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_sample: %s\n", e.what());
    return 1;
  }
  return 0;
}
