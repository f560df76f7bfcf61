// Sparse matrix-vector multiplication, written as the vectorised Data
// Parallel Haskell program is.
//
// The source program takes the matrix as a nested array of rows, each row an
// array of (column, value) pairs:
//
//   smvm :: [:[:(Int, Double):]:] -> [:Double:] -> [:Double:]
//   smvm m v = [: sumP [: x * (v !: i) | (i, x) <- row :] | row <- m :]
//
// Vectorisation turns the array of pairs into a pair of arrays of one shape
// (cols, vals), the free variable v into replicate (number of rows) v, the
// indexing inside the comprehension into lifted indexing, the product into an
// element-wise zip and sumP into a segmented sum:
//
//   smvm m v = sumP^ (zipWith^ (*) vals (index^ (replicate (lengthP m) v) cols))
//
// With virtual segments, replicate copies nothing (every row names the one
// physical copy of v), and the delayed index_l/zip_with fuse into sum_s, so
// the nnz-sized gathered array is never written.
//
// The result is checked against a plain CSR loop on generated matrices and on
// every Matrix Market file in the directory given as argv[1] (the test suite
// passes ../shared/data/matrices). `wrong.mtx` there is malformed on purpose
// and must be rejected with an error naming its line.
//
// Prints one line per matrix and exits non-zero on any mismatch or error.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "vseg/matrix_market.hpp"
#include "vseg/nested.hpp"
#include "vseg/vseg.hpp"

namespace {

// y = m·v, the vectorised DPH program.
vseg::array<double> smvm(const vseg::csr_matrix& m, const vseg::array<double>& v) {
  const auto cols = vseg::nested<std::int64_t>::from_lengths(m.row_lengths, m.col_indices);
  const auto vals = vseg::nested<double>::from_lengths(m.row_lengths, m.values);
  return vseg::sum_s(
      vseg::zip_with(std::multiplies<>{}, vals, vseg::index_l(vseg::replicate(m.rows, v), cols)));
}

// y = m·v by the textbook serial CSR loop, and per row the sum of |a_ij·v_j|,
// the scale against which the rounding error of a row's sum is measured.
struct reference_result {
  std::vector<double> y, scale;
};

reference_result smvm_reference(const vseg::csr_matrix& m, const vseg::array<double>& v) {
  reference_result r{std::vector<double>(static_cast<std::size_t>(m.rows)),
                     std::vector<double>(static_cast<std::size_t>(m.rows))};
  std::int64_t k = 0;
  for (std::int64_t row = 0; row < m.rows; ++row) {
    double sum = 0, scale = 0;
    for (std::int64_t end = k + m.row_lengths[row]; k < end; ++k) {
      const double term = m.values[k] * v[m.col_indices[k]];
      sum += term;
      scale += std::abs(term);
    }
    r.y[static_cast<std::size_t>(row)] = sum;
    r.scale[static_cast<std::size_t>(row)] = scale;
  }
  return r;
}

// A reproducible vector of n values in [-1, 1).
vseg::array<double> test_vector(std::int64_t n) {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = d(rng);
  return vseg::array<double>(std::move(v));
}

constexpr double tolerance = 1e-12;

// Multiplies m by a test vector both ways and prints one summary line.
// Returns whether every row agrees within the tolerance.
bool check(const std::string& name, const vseg::csr_matrix& m) {
  const auto v = test_vector(m.cols);
  const auto y = smvm(m, v);
  const auto ref = smvm_reference(m, v);
  double max_error = 0;
  bool ok = y.size() == m.rows;
  for (std::int64_t row = 0; ok && row < m.rows; ++row) {
    const auto r = static_cast<std::size_t>(row);
    const double diff = std::abs(y[row] - ref.y[r]);
    // Relative to the row's magnitude; a row of zero terms must give exactly 0.
    const double error = ref.scale[r] > 0 ? diff / ref.scale[r] : diff;
    max_error = std::max(max_error, error);
    if (!(error <= tolerance)) ok = false;
  }
  std::cout << std::left << std::setw(26) << name << std::right << "  rows " << std::setw(8)
            << m.rows << "  nnz " << std::setw(9) << m.nnz() << "  max rel. error "
            << std::scientific << std::setprecision(2) << max_error << std::defaultfloat
            << (ok ? "  ok" : "  MISMATCH") << "\n";
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  bool all_ok = true;
  try {
    std::cout << "Generated matrices\n";
    all_ok &= check("stencil_27(32)", vseg::stencil_27(32));
    all_ok &= check("stencil_7(40)", vseg::stencil_7(40));
    all_ok &= check("random 100000x100000 ~10", vseg::random_matrix(100'000, 100'000, 10.0, 42));
    all_ok &= check("random 2000x50 ~0.5", vseg::random_matrix(2'000, 50, 0.5, 7));
    all_ok &= check("random 300x200000 ~2000", vseg::random_matrix(300, 200'000, 2'000.0, 9));
    all_ok &= check("empty 0x0", vseg::random_matrix(0, 0, 1.0, 1));

    if (argc < 2) {
      std::cout << "(give a directory of Matrix Market files to check them too)\n";
      std::cout << (all_ok ? "all results agree\n" : "MISMATCH found\n");
      return all_ok ? 0 : 1;
    }
    const std::filesystem::path dir(argv[1]);
    std::cout << "Matrix Market files in " << dir.string() << "\n";
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".mtx") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    if (files.empty()) {
      std::cout << "no .mtx files found\n";
      all_ok = false;
    }
    for (const auto& path : files) {
      const std::string name = path.filename().string();
      if (name == "wrong.mtx") {
        // Malformed on purpose: it must be rejected with the line named.
        try {
          vseg::read_matrix_market(path.string());
          std::cout << std::left << std::setw(26) << name << "  accepted, but it is malformed: FAIL\n";
          all_ok = false;
        } catch (const vseg::parse_error& e) {
          std::cout << std::left << std::setw(26) << name << "  rejected as expected:\n    "
                    << e.what() << "\n";
        }
        continue;
      }
      all_ok &= check(name, vseg::read_matrix_market(path.string()));
    }
  } catch (const std::exception& e) {
    std::cerr << "smvm: " << e.what() << "\n";
    return 1;
  }
  std::cout << (all_ok ? "all results agree\n" : "MISMATCH found\n");
  return all_ok ? 0 : 1;
}
