// libFuzzer target for the Matrix Market reader: any input must either be
// read into a well-formed csr_matrix or be rejected with vseg::parse_error
// (never a crash, a hang, another exception or a large allocation: run with
// -malloc_limit_mb). Built and run by scripts/fuzz matrix-market.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "vseg/matrix_market.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const vseg::csr_matrix m = vseg::read_matrix_market(in, "fuzz");
    // The structure every csr_matrix promises.
    if (m.rows < 0 || m.cols < 0 || m.row_lengths.size() != m.rows || m.values.size() != m.nnz())
      __builtin_trap();
    std::int64_t k = 0;
    for (std::int64_t r = 0; r < m.rows; ++r) {
      if (m.row_lengths[r] < 0 || m.row_lengths[r] > m.nnz() - k) __builtin_trap();
      for (std::int64_t j = 0; j < m.row_lengths[r]; ++j, ++k) {
        if (m.col_indices[k] < 0 || m.col_indices[k] >= m.cols) __builtin_trap();
        if (j > 0 && m.col_indices[k - 1] > m.col_indices[k]) __builtin_trap();
      }
    }
    if (k != m.nnz()) __builtin_trap();
  } catch (const vseg::parse_error& e) {
    // A message quotes at most 40 bytes of a field, escaped: it stays short
    // and printable whatever the input.
    const std::string what = e.what();
    if (what.size() > 400) __builtin_trap();
    for (char c : what)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) __builtin_trap();
  }
  return 0;
}
