// ooc_gen OUT.h5 --rows N --nnz-per-row K: writes the deterministic n x n
// R-MAT-like matrix (columns and values from a hash of the position,
// vseg::ooc::rmat_entry) to OUT.h5 in vseg's HDF5 layout (notes/hdf5.md),
// block by block, so the file may be larger than memory.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include "args.hpp"
#include "vseg/ooc/spmv.hpp"

namespace {

int usage() {
  std::fprintf(stderr, "usage: ooc_gen OUT.h5 --rows N --nnz-per-row K\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  std::int64_t rows = -1, k = -1;
  try {
    for (int i = 2; i < argc; i += 2) {
      if (i + 1 >= argc) return usage();
      const std::string flag = argv[i];
      if (flag == "--rows") rows = examples::integer_text(argv[i + 1], flag, 1, (std::int64_t{1} << 31) - 1);
      else if (flag == "--nnz-per-row") k = examples::integer_text(argv[i + 1], flag, 0, std::int64_t{1} << 20);
      else return usage();
    }
    if (rows < 0 || k < 0) return usage();
    vseg::ooc::generate_rmat(argv[1], rows, k);
    std::printf("wrote %s: %lld rows, %lld entries\n", argv[1], static_cast<long long>(rows),
                static_cast<long long>(rows * k));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ooc_gen: %s\n", e.what());
    return 1;
  }
  return 0;
}
