// Out-of-core SpMV (vseg/ooc/spmv.hpp) against the in-memory vectorised one,
// sum_s(zip_with(*, vals, index_l(replicate(n, x), cols))), on the same file.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "../support.hpp"
#include "vseg/hdf5/file.hpp"
#include "vseg/nested.hpp"
#include "vseg/ooc/spmv.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using vseg::array;
using vseg::nested;

namespace {

std::string temp_path(const std::string& name) {
  return vseg::test::temp_file("vseg-ooc-test", name);
}

// The in-memory PageRank-style iterations on the whole matrix read from path.
std::vector<double> in_memory_pagerank(const std::string& path, std::int64_t iterations) {
  vseg::hdf5::reader r(path);
  const std::int64_t n = r.segments(0), nnz = r.elements();
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(n + 1));
  r.read_offsets(0, 0, n + 1, offsets.data());
  std::vector<std::int32_t> cols(static_cast<std::size_t>(nnz));
  std::vector<double> vals(static_cast<std::size_t>(nnz));
  r.read_values(r.field_index("columns", vseg::hdf5::element_type_of<std::int32_t>()), 0, nnz, cols.data());
  r.read_values(r.field_index("values", vseg::hdf5::element_type_of<double>()), 0, nnz, vals.data());
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = offsets[i + 1] - offsets[i];
  const array<std::int64_t> ls(std::move(lengths));
  const auto A_cols = nested<std::int32_t>::from_lengths(ls, array<std::int32_t>(std::move(cols)));
  const auto A_vals = nested<double>::from_lengths(ls, array<double>(std::move(vals)));
  std::vector<double> x(static_cast<std::size_t>(n), 1.0 / static_cast<double>(n));
  for (std::int64_t it = 0; it < iterations; ++it) {
    const array<double> y = vseg::sum_s(vseg::zip_with(std::multiplies<>{}, A_vals,
                                                       vseg::index_l(vseg::replicate(n, array<double>(x)), A_cols)));
    const double norm = vseg::reduce(vseg::map([](double v) { return std::fabs(v); }, y), vseg::plus<double>{});
    for (std::int64_t i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = y[i] / norm;
  }
  return x;
}

vseg::ooc::spmv_options budget(std::int64_t bytes, std::int64_t iterations) {
  vseg::ooc::spmv_options o;
  o.memory_budget = bytes;
  o.iterations = iterations;
  o.drop_cache = false;
  return o;
}

}  // namespace

TEST_CASE("a small case equals the in-memory vectorised SpMV bit for bit under every budget") {
  // 600 rows of 8: below the serial cutoff, so the in-memory sum_s keeps rows whole.
  const std::string path = temp_path("small.h5");
  vseg::ooc::generate_rmat(path, 600, 8);
  const auto expected = in_memory_pagerank(path, 4);
  for (std::int64_t bytes : {std::int64_t{2000}, std::int64_t{20'000}, std::int64_t{1} << 30}) {
    INFO("budget " << bytes);
    vseg::test::for_each_thread_count([&](int) {
      const auto r = vseg::ooc::pagerank_spmv(path, budget(bytes, 4));
      CHECK(vseg::test::same_bits(r.x, expected));
    });
  }
}

TEST_CASE("a larger case: the same bits under every budget, and the in-memory result to rounding") {
  const std::string path = temp_path("larger.h5");
  vseg::ooc::generate_rmat(path, 30'000, 11);
  const auto expected = in_memory_pagerank(path, 3);
  const auto whole = vseg::ooc::pagerank_spmv(path, budget(std::int64_t{1} << 30, 3));
  CHECK(whole.blocks == 1);
  for (std::int64_t bytes : {std::int64_t{50'000}, std::int64_t{1'000'000}, std::int64_t{3'000'000}}) {
    INFO("budget " << bytes);
    const auto r = vseg::ooc::pagerank_spmv(path, budget(bytes, 3));
    CHECK(r.blocks > 1);
    CHECK(vseg::test::same_bits(r.x, whole.x));
    CHECK(vseg::ooc::checksum(r.x) == vseg::ooc::checksum(whole.x));
  }
  double worst = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    worst = std::max(worst, std::fabs(whole.x[i] - expected[i]) / expected[i]);
  CHECK(worst < 1e-13);
}

TEST_CASE("blocks read from a mapping of the file: the same bits, and a corrupt or truncated file named") {
  // 9.6 MB: budgets of 16 and 40 MiB give blocks of 4 and 10 MiB, read from
  // mapped chunks (several per block, rows across their boundaries), 1 MiB
  // blocks are copied; 1 GiB holds everything in one mapped block.
  const std::string path = temp_path("mapped.h5");
  vseg::ooc::generate_rmat(path, 100'000, 8);
  const auto copied = vseg::ooc::pagerank_spmv(path, budget(std::int64_t{4} << 20, 2));
  CHECK(copied.mapped_bytes == 0);
  for (std::int64_t bytes : {std::int64_t{16} << 20, std::int64_t{40} << 20, std::int64_t{1} << 30}) {
    INFO("budget " << bytes);
    const auto r = vseg::ooc::pagerank_spmv(path, budget(bytes, 2));
    CHECK(r.mapped_bytes > r.bytes_per_pass);  // most of 2 passes
    CHECK(vseg::test::same_bits(r.x, copied.x));
  }
  const auto bytes = fs::file_size(path);
  auto error_of = [&](const std::string& p) {
    try {
      (void)vseg::ooc::pagerank_spmv(p, budget(std::int64_t{16} << 20, 1));
    } catch (const vseg::hdf5::error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  SUBCASE("bytes flipped in the values (the middle of the file: after the whole chunks of columns)") {
    const std::string bad = temp_path("mapped-flipped.h5");
    fs::copy_file(path, bad, fs::copy_options::overwrite_existing);
    {
      std::fstream f(bad, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(bytes / 2));
      const char junk[8] = {'\x55', '\x13', '\x7f', '\x01', '\x55', '\x13', '\x7f', '\x01'};
      f.write(junk, sizeof junk);
    }
    const std::string e = error_of(bad);
    CHECK(e.find(bad) != std::string::npos);
    CHECK_MESSAGE(e.find("dataset 'values'") != std::string::npos, e);
  }
  SUBCASE("truncated in the values") {
    const std::string bad = temp_path("mapped-truncated.h5");
    fs::copy_file(path, bad, fs::copy_options::overwrite_existing);
    fs::resize_file(bad, bytes * 3 / 4);
    const std::string e = error_of(bad);
    CHECK(e.find(bad) != std::string::npos);
  }
}

TEST_CASE("bad inputs: a budget below a row, a column out of range") {
  const std::string path = temp_path("bad.h5");
  vseg::ooc::generate_rmat(path, 100, 50);
  CHECK_THROWS_WITH_AS(vseg::ooc::pagerank_spmv(path, budget(300, 1)),
                       doctest::Contains("row 0 alone needs"), std::invalid_argument);
  {
    vseg::hdf5::writer w(path, 1, {{"columns", vseg::hdf5::element_type_of<std::int32_t>()},
                                   {"values", vseg::hdf5::element_type_of<double>()}});
    const std::int64_t offsets[] = {0, 1, 2};
    const std::int32_t cols[] = {1, 2};  // 2 is outside a 2 x 2 matrix
    const double vals[] = {0.5, 0.5};
    w.append_offsets(0, offsets);
    w.append_values(0, cols, 2);
    w.append_values(1, vals, 2);
    w.commit();
  }
  CHECK_THROWS_WITH_AS(vseg::ooc::pagerank_spmv(path, budget(1 << 20, 1)),
                       doctest::Contains("dataset 'columns': row 1"), vseg::hdf5::error);
}
