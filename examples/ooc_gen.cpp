// ooc_gen OUT.h5 --rows N --nnz-per-row K: writes the deterministic n x n
// R-MAT-like matrix (columns and values from a hash of the position,
// vseg::ooc::rmat_entry) to OUT.h5 in vseg's HDF5 layout (notes/hdf5.md),
// block by block, so the file may be larger than memory.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "vseg/ooc/spmv.hpp"

namespace {

int usage() {
  std::fprintf(stderr, "usage: ooc_gen OUT.h5 --rows N --nnz-per-row K\n");
  return 2;
}

// A non-negative integer argument, or -1.
long long number(const char* s) {
  char* end = nullptr;
  const long long v = std::strtoll(s, &end, 10);
  return end != s && *end == '\0' && v >= 0 ? v : -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  long long rows = -1, k = -1;
  for (int i = 2; i < argc; i += 2) {
    if (i + 1 >= argc) return usage();
    const std::string flag = argv[i];
    if (flag == "--rows") rows = number(argv[i + 1]);
    else if (flag == "--nnz-per-row") k = number(argv[i + 1]);
    else return usage();
  }
  if (rows < 1 || k < 0) return usage();
  try {
    vseg::ooc::generate_rmat(argv[1], rows, k);
    std::printf("wrote %s: %lld rows, %lld entries\n", argv[1], rows, rows * k);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ooc_gen: %s\n", e.what());
    return 1;
  }
  return 0;
}
