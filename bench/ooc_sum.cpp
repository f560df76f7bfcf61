// ooc_sum FILE.h5 --block-elements B [--memory-budget BYTES] [--repeat R]:
// the blocked segmented sum of the field "values" of a depth-1 file (a
// matrix from examples/ooc_gen: the row sums), streamed through the
// flow-graph scheduler; prints each repeat's time and `checksum <hex>` of
// the sums' bits. scripts/bench-outofcore runs it beside dask
// (bench/ooc_dask.py) and writes notes/bench-outofcore.md.
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "vseg/hdf5/file.hpp"
#include "vseg/ooc/blocked.hpp"
#include "vseg/ooc/blocked_run.hpp"
#include "vseg/ooc/spmv.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ooc_sum FILE.h5 --block-elements B [--memory-budget BYTES] [--repeat R]\n");
    return 2;
  }
  long long block = 1 << 20, repeat = 1;
  vseg::ooc::schedule s;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long long v = std::atoll(argv[i + 1]);
    if (v < 1) return 2;
    if (flag == "--block-elements") block = v;
    else if (flag == "--memory-budget") s.memory_budget = v;
    else if (flag == "--repeat") repeat = v;
    else return 2;
  }
  try {
    auto file = std::make_shared<const vseg::hdf5::reader>(argv[1]);
    for (long long r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::clock_t c0 = std::clock();  // CPU time of all threads
      const auto sums = vseg::ooc::sum_s(vseg::ooc::from_file<double>(file, block), s);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("time %.4f s\n", seconds);
      std::printf("cpu %.4f s\n", static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
      if (r + 1 == repeat) {
        double total = 0;
        for (double v : sums) total += v;
        std::printf("segments %lld total %.17g\n", static_cast<long long>(sums.size()), total);
        std::printf("checksum %016llx\n",
                    static_cast<unsigned long long>(vseg::ooc::checksum(std::vector<double>(sums.begin(), sums.end()))));
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ooc_sum: %s\n", e.what());
    return 1;
  }
  return 0;
}
