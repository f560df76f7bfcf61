// ooc_spmv FILE.h5 --memory-budget BYTES --iterations I [--keep-cache]:
// I PageRank-style iterations x <- A x / |A x|_1 on the matrix in FILE.h5
// (from ooc_gen), streamed in blocks, at most BYTES of matrix in memory.
// Prints the file's cold sequential read rate, the time, the throughput
// against it, and `checksum <hex>`: FNV-1a of the bits of the final x, the
// same under every budget. The page cache is dropped before every pass
// unless --keep-cache is given.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <string>

#include "args.hpp"
#include "vseg/ooc/spmv.hpp"

namespace {

int usage() {
  std::fprintf(stderr, "usage: ooc_spmv FILE.h5 --memory-budget BYTES --iterations I [--keep-cache]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  vseg::ooc::spmv_options options;
  try {
    constexpr std::int64_t most = std::numeric_limits<std::int64_t>::max();
    for (int i = 2; i < argc; ++i) {
      const std::string flag = argv[i];
      if (flag == "--keep-cache") {
        options.drop_cache = false;
        continue;
      }
      if (i + 1 >= argc) return usage();
      const char* text = argv[++i];
      if (flag == "--memory-budget") options.memory_budget = examples::integer_text(text, flag, 1, most);
      else if (flag == "--iterations") options.iterations = examples::integer_text(text, flag, 0, 1 << 20);
      else return usage();
    }
    const double read_rate = options.drop_cache ? vseg::ooc::sequential_read_rate(argv[1]) : 0.0;
    const auto r = vseg::ooc::pagerank_spmv(argv[1], options);
    const double rate = r.seconds > 0 ? static_cast<double>(r.bytes_per_pass) * static_cast<double>(options.iterations) / r.seconds : 0.0;
    std::printf("rows %zu, %lld blocks of at most %lld bytes, %lld in flight\n", r.x.size(),
                static_cast<long long>(r.blocks), static_cast<long long>(r.block_bytes),
                static_cast<long long>(r.in_flight));
    if (options.drop_cache) std::printf("sequential_read %.1f MB/s (cold)\n", read_rate / 1e6);
    std::printf("read in place %.0f%% (mapped chunks)\n", r.bytes_per_pass > 0 && options.iterations > 0
                ? 100.0 * static_cast<double>(r.mapped_bytes) / (static_cast<double>(r.bytes_per_pass) * static_cast<double>(options.iterations)) : 0.0);
    std::printf("time %.3f s (%lld iterations)\n", r.seconds, static_cast<long long>(options.iterations));
    std::printf("cpu %.3f s\n", r.cpu_seconds);
    if (options.drop_cache && read_rate > 0)
      std::printf("throughput %.1f MB/s (%.0f%% of the sequential read)\n", rate / 1e6, 100.0 * rate / read_rate);
    else
      std::printf("throughput %.1f MB/s\n", rate / 1e6);
    std::printf("checksum %016llx\n", static_cast<unsigned long long>(vseg::ooc::checksum(r.x)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ooc_spmv: %s\n", e.what());
    return 1;
  }
  return 0;
}
