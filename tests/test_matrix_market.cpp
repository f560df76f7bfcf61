// Tests for vseg/matrix_market.hpp: the Matrix Market reader on the shared
// matrices (compared with an independent line count and entry list), on
// crafted valid and malformed inputs, and the matrix generators.
//
// The shared matrices are found through the environment variable
// VSEG_MATRIX_DIR (set by the Meson test declaration). The test cases that
// read them have "shared data" in their names: Meson runs them as a
// separate test, skipped when the shared directory is absent.
#include "vseg/matrix_market.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "support.hpp"

namespace {

using vseg::csr_matrix;
using vseg::parse_error;

struct entry {
  std::int64_t row, col;
  double value;
  auto operator<=>(const entry&) const = default;
};

// The directory holding the shared matrices; fails the test when unset.
std::filesystem::path matrix_dir() {
  const char* dir = std::getenv("VSEG_MATRIX_DIR");
  REQUIRE_MESSAGE(dir != nullptr, "set VSEG_MATRIX_DIR to the shared matrices directory");
  return dir;
}

// Every entry of m, in CSR order.
std::vector<entry> entries_of(const csr_matrix& m) {
  std::vector<entry> out;
  std::int64_t k = 0;
  for (std::int64_t r = 0; r < m.rows; ++r)
    for (std::int64_t j = 0; j < m.row_lengths[r]; ++j, ++k)
      out.push_back({r, m.col_indices[k], m.values[k]});
  return out;
}

// The first violation of the structural invariants of a csr_matrix (row
// lengths non-negative, columns in range and sorted within each row), or "".
std::string first_violation(const csr_matrix& m) {
  std::int64_t k = 0;
  for (std::int64_t r = 0; r < m.rows; ++r) {
    if (m.row_lengths[r] < 0) return "row " + std::to_string(r) + " has negative length";
    for (std::int64_t j = 0; j < m.row_lengths[r]; ++j, ++k) {
      const std::string where = "row " + std::to_string(r) + ", entry " + std::to_string(j);
      if (m.col_indices[k] < 0 || m.col_indices[k] >= m.cols) return where + ": column out of range";
      if (j > 0 && m.col_indices[k - 1] > m.col_indices[k]) return where + ": columns not sorted";
    }
  }
  return "";
}

// The structural invariants every csr_matrix must satisfy.
void check_well_formed(const csr_matrix& m) {
  REQUIRE(m.row_lengths.size() == m.rows);
  REQUIRE(m.values.size() == m.nnz());
  const std::int64_t total = std::accumulate(m.row_lengths.begin(), m.row_lengths.end(), std::int64_t{0});
  REQUIRE(total == m.nnz());
  CHECK(first_violation(m) == "");
}

// The value at (r, c), which must be stored exactly once.
double at(const csr_matrix& m, std::int64_t r, std::int64_t c) {
  std::int64_t start = 0;
  for (std::int64_t i = 0; i < r; ++i) start += m.row_lengths[i];
  const auto first = m.col_indices.begin() + start;
  const auto last = first + m.row_lengths[r];
  INFO("entry (" << r << ", " << c << ")");
  REQUIRE(std::count(first, last, c) == 1);
  return m.values[std::find(first, last, c) - m.col_indices.begin()];
}

// What a Matrix Market file holds, read independently of the library with
// plain stream extraction: the header values and every expanded entry.
struct reference {
  std::string field, symmetry;
  std::int64_t rows = 0, cols = 0, lines = 0;
  std::vector<entry> entries;  // mirrored as the symmetry asks, sorted
};

reference read_reference(const std::filesystem::path& file) {
  std::ifstream in(file);
  REQUIRE(in);
  reference ref;
  std::string line, word;
  std::getline(in, line);
  std::istringstream banner(line);
  banner >> word >> word >> word >> ref.field >> ref.symmetry;
  while (std::getline(in, line) && line.starts_with('%')) {
  }
  std::istringstream(line) >> ref.rows >> ref.cols >> ref.lines;
  std::int64_t counted = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    entry e{0, 0, 1.0};
    if (!(fields >> e.row >> e.col)) continue;
    if (ref.field != "pattern") fields >> e.value;
    ++counted;
    --e.row;
    --e.col;
    ref.entries.push_back(e);
    if (e.row != e.col && ref.symmetry == "symmetric") ref.entries.push_back({e.col, e.row, e.value});
    if (e.row != e.col && ref.symmetry == "skew-symmetric")
      ref.entries.push_back({e.col, e.row, -e.value});
  }
  REQUIRE(counted == ref.lines);
  std::sort(ref.entries.begin(), ref.entries.end());
  return ref;
}

// Reads `text` as a stream named "crafted".
csr_matrix read_text(const std::string& text) {
  std::istringstream in(text);
  return vseg::read_matrix_market(in, "crafted");
}

}  // namespace

TEST_CASE("read_matrix_market: shared data: the shared matrices agree with an independent reading") {
  struct expected {
    const char* name;
    std::int64_t rows, cols, nnz;  // nnz after symmetric expansion
  };
  // nnz: LFAT5 has 14 diagonal and 16 off-diagonal lines (14 + 2·16);
  // lund_a 147 diagonal and 1151 off-diagonal lines (147 + 2·1151).
  const expected files[] = {
      {"LFAT5.mtx", 14, 14, 46},
      {"jgl009.mtx", 9, 9, 50},
      {"lund_a.mtx", 147, 147, 2449},
      {"pores_1.mtx", 30, 30, 180},
  };
  for (const auto& f : files) {
    const auto path = matrix_dir() / f.name;
    INFO("file " << path.string());
    const csr_matrix m = vseg::read_matrix_market(path.string());
    check_well_formed(m);
    CHECK(m.rows == f.rows);
    CHECK(m.cols == f.cols);
    CHECK(m.nnz() == f.nnz);

    const reference ref = read_reference(path);
    CHECK(m.rows == ref.rows);
    CHECK(m.cols == ref.cols);
    auto got = entries_of(m);
    std::sort(got.begin(), got.end());
    CHECK(got == ref.entries);
  }
}

TEST_CASE("read_matrix_market: shared data: a few entries of the shared matrices") {
  const auto dir = matrix_dir();
  SUBCASE("LFAT5: real symmetric, mirrored") {
    const auto m = vseg::read_matrix_market((dir / "LFAT5.mtx").string());
    CHECK(at(m, 0, 0) == 1.57088);
    CHECK(at(m, 3, 0) == -94.2528);
    CHECK(at(m, 0, 3) == -94.2528);
    CHECK(at(m, 4, 0) == 0.78544);  // written ".78544"
    CHECK(at(m, 1, 1) == 1.25664e7);
    CHECK(at(m, 13, 13) == 1.57088);
    CHECK(m.row_lengths[0] == 3);  // (1,1), (1,4), (1,5)
  }
  SUBCASE("jgl009: pattern general, every value 1, not mirrored") {
    const auto m = vseg::read_matrix_market((dir / "jgl009.mtx").string());
    CHECK(std::all_of(m.values.begin(), m.values.end(), [](double v) { return v == 1.0; }));
    CHECK(at(m, 1, 0) == 1.0);
    CHECK(at(m, 2, 1) == 1.0);
    // Row 1 of the file lists columns 1, 7 and 9 only: no mirroring in a general file.
    CHECK(std::vector<std::int64_t>(m.col_indices.begin(), m.col_indices.begin() + m.row_lengths[0]) ==
          std::vector<std::int64_t>{0, 6, 8});
  }
  SUBCASE("lund_a: real symmetric") {
    const auto m = vseg::read_matrix_market((dir / "lund_a.mtx").string());
    CHECK(at(m, 0, 0) == 7.5e7);
    CHECK(at(m, 1, 0) == 9.6153881e5);
    CHECK(at(m, 0, 1) == 9.6153881e5);
    CHECK(at(m, 7, 0) == -1.2179486e7);
    CHECK(at(m, 0, 7) == -1.2179486e7);
  }
  SUBCASE("pores_1: real general, column-major in the file, sorted by row here") {
    const auto m = vseg::read_matrix_market((dir / "pores_1.mtx").string());
    CHECK(at(m, 0, 0) == -9.4810113490e2);
    CHECK(at(m, 1, 0) == -7.1785016460e6);
    CHECK(at(m, 0, 1) == 2.3349693090e4);
    CHECK(at(m, 2, 0) == 4.7312729960);
  }
}

TEST_CASE("read_matrix_market: shared data: wrong.mtx is rejected naming the file and line") {
  const auto path = (matrix_dir() / "wrong.mtx").string();
  try {
    vseg::read_matrix_market(path);
    FAIL("wrong.mtx was accepted");
  } catch (const parse_error& e) {
    INFO(e.what());
    CHECK(e.file() == path);
    CHECK(e.line() == 3);
    CHECK(std::string(e.what()).find(path + ":3:") != std::string::npos);
    CHECK(e.problem().find("row index 0") != std::string::npos);
  }
}

TEST_CASE("read_matrix_market: a missing file throws std::runtime_error naming it") {
  const std::string path = "/nonexistent/dir/no.mtx";
  try {
    vseg::read_matrix_market(path);
    FAIL("a missing file was read");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find(path) != std::string::npos);
  }
}

TEST_CASE("read_matrix_market: symmetry, fields, duplicates and layout on crafted input") {
  SUBCASE("symmetric: off-diagonal entries mirrored, diagonal once") {
    const auto m = read_text(
        "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2.5\n3 1 -1\n3 2 4e-1\n");
    check_well_formed(m);
    CHECK(m.nnz() == 5);
    CHECK(entries_of(m) ==
          std::vector<entry>{{0, 0, 2.5}, {0, 2, -1}, {1, 2, 0.4}, {2, 0, -1}, {2, 1, 0.4}});
  }
  SUBCASE("skew-symmetric: mirrored with the value negated") {
    const auto m = read_text("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n");
    CHECK(entries_of(m) == std::vector<entry>{{0, 1, -3}, {1, 0, 3}});
  }
  SUBCASE("integer and pattern fields") {
    const auto i = read_text("%%MatrixMarket matrix coordinate integer general\n1 2 2\n1 2 -7\n1 1 +3\n");
    CHECK(entries_of(i) == std::vector<entry>{{0, 0, 3}, {0, 1, -7}});
    const auto p = read_text("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n");
    CHECK(entries_of(p) == std::vector<entry>{{0, 0, 1}, {0, 1, 1}, {1, 0, 1}});
  }
  SUBCASE("duplicates are kept, in file order, after sorting by (row, column)") {
    const auto m = read_text(
        "%%MatrixMarket matrix coordinate real general\n2 2 4\n2 2 1\n1 2 5\n2 2 2\n1 1 9\n");
    CHECK(entries_of(m) == std::vector<entry>{{0, 0, 9}, {0, 1, 5}, {1, 1, 1}, {1, 1, 2}});
  }
  SUBCASE("case-insensitive banner words, comments, blank lines, CRLF, empty rows") {
    const auto m = read_text(
        "%%MatrixMarket MATRIX Coordinate REAL General\r\n% a comment\r\n\r\n4 3 2\r\n"
        "% between entries\r\n\t4  3\t1.5 \r\n\r\n1 1 2\r\n");
    check_well_formed(m);
    CHECK(m.rows == 4);
    CHECK(m.cols == 3);
    CHECK(std::vector<std::int64_t>(m.row_lengths.begin(), m.row_lengths.end()) ==
          std::vector<std::int64_t>{1, 0, 0, 1});
    CHECK(entries_of(m) == std::vector<entry>{{0, 0, 2}, {3, 2, 1.5}});
  }
  SUBCASE("an empty matrix and a matrix without entries") {
    const auto e = read_text("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
    CHECK(e.rows == 0);
    CHECK(e.nnz() == 0);
    const auto z = read_text("%%MatrixMarket matrix coordinate real general\n5 7 0\n");
    check_well_formed(z);
    CHECK(z.rows == 5);
    CHECK(z.cols == 7);
    CHECK(z.nnz() == 0);
  }
}

TEST_CASE("read_matrix_market: malformed input names the line and the problem") {
  const std::string general = "%%MatrixMarket matrix coordinate real general\n";
  struct bad_input {
    const char* what;
    std::string text;
    std::int64_t line;
    const char* problem;  // a part of the expected message
  };
  const bad_input cases[] = {
      {"empty input", "", 1, "empty input"},
      {"misspelt banner", "%%MatrixMarkt matrix coordinate real general\n1 1 0\n", 1, "bad banner"},
      {"no banner", "1 1 1\n1 1 1\n", 1, "bad banner"},
      {"short banner", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "bad banner"},
      {"array format", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1,
       "unsupported format 'array'"},
      {"complex field", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1,
       "unsupported field 'complex'"},
      {"unknown field", "%%MatrixMarket matrix coordinate double general\n1 1 0\n", 1,
       "unsupported field 'double'"},
      {"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1,
       "unsupported symmetry 'hermitian'"},
      {"vector object", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 1,
       "unsupported object 'vector'"},
      {"no size line", general + "% only comments\n%\n", 3, "before the size line"},
      {"size line with two numbers", general + "% c\n3 3\n", 3, "bad size line '3 3'"},
      {"size line with four numbers", general + "3 3 1 1\n1 1 1\n", 2, "bad size line"},
      {"negative size", general + "-1 3 0\n", 2, "bad size line"},
      {"non-numeric size", general + "3 x 0\n", 2, "bad size line"},
      {"non-square symmetric", "%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n", 2,
       "must be square, but the size line gives 3 x 4"},
      {"row index too large", general + "3 3 2\n1 1 1\n4 1 1\n", 4, "row index 4 outside [1, 3]"},
      {"row index zero", general + "3 3 1\n0 1 1\n", 3, "row index 0 outside [1, 3]"},
      {"column index zero", general + "3 3 1\n1 0 1\n", 3, "column index 0 outside [1, 3]"},
      {"column index too large", general + "3 2 1\n1 3 1\n", 3, "column index 3 outside [1, 2]"},
      {"too few entries", general + "3 3 3\n1 1 1\n2 2 2\n", 4, "ends after 2 of the 3 entries"},
      {"too many entries", general + "3 3 1\n1 1 1\n2 2 2\n", 4, "beyond the 1 announced"},
      {"non-numeric value", general + "3 3 1\n1 1 abc\n", 3, "value 'abc' is not a finite real number"},
      {"trailing garbage in a value", general + "3 3 1\n1 1 1.5x\n", 3, "value '1.5x'"},
      {"infinite value", general + "3 3 1\n1 1 1e999\n", 3, "value '1e999'"},
      {"non-numeric row index", general + "3 3 1\nx 1 1\n", 3, "row index 'x' is not an integer"},
      {"fractional column index", general + "3 3 1\n1 1.0 1\n", 3, "column index '1.0' is not an integer"},
      {"missing value", general + "3 3 1\n1 1\n", 3, "has 2 fields; expected 'row col value'"},
      {"extra field", general + "3 3 1\n1 1 1 1\n", 3, "has 4 fields"},
      {"fractional integer value", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n",
       3, "value '1.5' is not an integer"},
      {"value in a pattern file", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n", 3,
       "has 3 fields; expected 'row col'"},
      {"skew-symmetric diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n",
       3, "diagonal entry (1, 1)"},
  };
  for (const auto& c : cases) {
    INFO("case: " << c.what);
    try {
      read_text(c.text);
      FAIL("accepted");
    } catch (const parse_error& e) {
      INFO("message: " << e.what());
      CHECK(e.file() == "crafted");
      CHECK(e.line() == c.line);
      CHECK(std::string(e.what()).find("crafted:" + std::to_string(c.line) + ": ") != std::string::npos);
      CHECK(e.problem().find(c.problem) != std::string::npos);
    }
  }
}

TEST_CASE("stencil_7 and stencil_27: sizes, symmetry and zero row sums inside the grid") {
  for (std::int64_t n : {0, 1, 2, 5}) {
    INFO("n = " << n);
    const auto s7 = vseg::stencil_7(n);
    const auto s27 = vseg::stencil_27(n);
    check_well_formed(s7);
    check_well_formed(s27);
    CHECK(s7.rows == n * n * n);
    CHECK(s7.cols == n * n * n);
    CHECK(s27.rows == n * n * n);
    // Links along one axis: n²(n-1) per axis and direction.
    CHECK(s7.nnz() == n * n * n + (n > 0 ? 6 * n * n * (n - 1) : 0));
    // Each of the three coordinates of a neighbour pair is shared or adjacent:
    // (3n-2)³ entries in all.
    CHECK(s27.nnz() == (n > 0 ? (3 * n - 2) * (3 * n - 2) * (3 * n - 2) : 0));
    for (const auto* m : {&s7, &s27}) {
      auto es = entries_of(*m);
      std::vector<entry> transposed;
      for (const auto& e : es) transposed.push_back({e.col, e.row, e.value});
      std::sort(transposed.begin(), transposed.end());
      CHECK(es == transposed);  // symmetric, and entries_of is already sorted
    }
  }
  const std::int64_t n = 4;
  const auto s27 = vseg::stencil_27(n);
  const std::int64_t centre = (1 * n + 2) * n + 1;  // an interior point
  CHECK(s27.row_lengths[centre] == 27);
  CHECK(at(s27, centre, centre) == 26.0);
  CHECK(at(s27, centre, centre + n * n + n + 1) == -1.0);  // a corner neighbour
  const auto row_sum = [&](const csr_matrix& m, std::int64_t r) {
    std::int64_t start = 0;
    for (std::int64_t i = 0; i < r; ++i) start += m.row_lengths[i];
    return std::accumulate(m.values.begin() + start, m.values.begin() + start + m.row_lengths[r], 0.0);
  };
  CHECK(row_sum(s27, centre) == 0.0);
  CHECK(row_sum(vseg::stencil_7(n), centre) == 0.0);
  CHECK(row_sum(s27, 0) == 26.0 - 7.0);  // a grid corner keeps 7 of its 26 neighbours
  CHECK(vseg::stencil_7(n).row_lengths[centre] == 7);
  CHECK(vseg::stencil_7(n).row_lengths[0] == 4);  // a grid corner
  CHECK(s27.row_lengths[0] == 8);
  CHECK_THROWS_AS(vseg::stencil_7(-1), std::invalid_argument);
  CHECK_THROWS_AS(vseg::stencil_27(1'000'000), std::overflow_error);
}

TEST_CASE("random_matrix: well formed, distinct columns, reproducible on any thread count") {
  const std::uint64_t seed = 20240611;
  INFO("seed = " << seed);
  const auto reference = vseg::random_matrix(20'000, 1'000, 8.0, seed);
  check_well_formed(reference);
  CHECK(reference.rows == 20'000);
  CHECK(reference.cols == 1'000);
  // Lengths uniform on 0..16: mean 8 (about ±0.07 at this many rows).
  CHECK(static_cast<double>(reference.nnz()) / 20'000 == doctest::Approx(8.0).epsilon(0.03));
  // Columns strictly increasing within a row (distinct), values in [-1, 1).
  const auto es = entries_of(reference);
  CHECK(std::adjacent_find(es.begin(), es.end(), [](const entry& a, const entry& b) {
          return a.row == b.row && a.col >= b.col;
        }) == es.end());
  CHECK(std::all_of(es.begin(), es.end(), [](const entry& e) { return e.value >= -1.0 && e.value < 1.0; }));
  CHECK(*std::max_element(reference.row_lengths.begin(), reference.row_lengths.end()) <= 16);
  vseg::test::for_each_thread_count([&](int) {
    const auto again = vseg::random_matrix(20'000, 1'000, 8.0, seed);
    CHECK(entries_of(again) == entries_of(reference));
  });
  CHECK(entries_of(vseg::random_matrix(1'000, 1'000, 8.0, seed + 1)) !=
        entries_of(vseg::random_matrix(1'000, 1'000, 8.0, seed)));

}

TEST_CASE("random_matrix: rows longer than cols are capped, degenerate shapes, bad arguments") {
  const std::uint64_t seed = 20240611;
  INFO("seed = " << seed);
  // Lengths drawn from 0..100 are capped at 5 columns: most rows hold every column once.
  const auto dense = vseg::random_matrix(100, 5, 50.0, seed);
  check_well_formed(dense);
  CHECK(dense.nnz() > 100 * 4);  // lengths 0..4 are only 5 of the 101 choices
  std::int64_t start = 0;
  for (std::int64_t r = 0; r < dense.rows; start += dense.row_lengths[r], ++r) {
    REQUIRE(dense.row_lengths[r] <= 5);
    if (dense.row_lengths[r] == 5)
      CHECK(std::vector<std::int64_t>(dense.col_indices.begin() + start,
                                      dense.col_indices.begin() + start + 5) ==
            std::vector<std::int64_t>{0, 1, 2, 3, 4});
  }

  CHECK(vseg::random_matrix(10, 0, 3.0, seed).nnz() == 0);
  CHECK(vseg::random_matrix(0, 10, 3.0, seed).rows == 0);
  CHECK(vseg::random_matrix(10, 10, 0.0, seed).nnz() == 0);

  CHECK_THROWS_AS(vseg::random_matrix(-1, 10, 3.0, seed), std::invalid_argument);
  CHECK_THROWS_AS(vseg::random_matrix(10, -1, 3.0, seed), std::invalid_argument);
  CHECK_THROWS_AS(vseg::random_matrix(10, 10, -3.0, seed), std::invalid_argument);
}

namespace {

// The process's address space now, in bytes (the first field of /proc/self/statm).
std::int64_t address_space_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::int64_t pages = 0;
  statm >> pages;
  REQUIRE(pages > 0);
  return pages * sysconf(_SC_PAGESIZE);
}

// Runs body() in a child process whose address space may grow by at most
// `extra_bytes` (RLIMIT_AS), so that any large allocation fails; returns the
// child's exit status, or 128 + the signal that ended it. The reader is
// serial, so the child never needs the parent's TBB threads.
int run_with_address_limit(std::int64_t extra_bytes, const std::function<int()>& body) {
  const std::int64_t limit = address_space_bytes() + extra_bytes;
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const rlimit r{static_cast<rlim_t>(limit), static_cast<rlim_t>(limit)};
    if (setrlimit(RLIMIT_AS, &r) != 0) _exit(90);
    const int code = body();
    std::fflush(stderr);
    _exit(code);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Exit codes of a child that reads one crafted input.
constexpr int refused_at = 10;  // + the line of the parse_error (below 100)
constexpr int accepted = 1, other_exception = 2;

// Reads `text` and says how it went: accepted, a parse_error at line L
// (refused_at + L, the message on stderr), or another exception.
int read_and_classify(const std::string& text) {
  try {
    const auto m = read_text(text);
    std::fprintf(stderr, "accepted: %lld rows, %lld entries\n", static_cast<long long>(m.rows),
                 static_cast<long long>(m.nnz()));
    return accepted;
  } catch (const parse_error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return refused_at + static_cast<int>(std::min<std::int64_t>(e.line(), 80));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "other exception: %s\n", e.what());
    return other_exception;
  }
}

constexpr std::int64_t limit_bytes = std::int64_t{1} << 30;  // 1 GiB more than the test has

}  // namespace

TEST_CASE("read_matrix_market: a huge declared size is refused at the size line, in bounded memory") {
  const std::string general = "%%MatrixMarket matrix coordinate real general\n";
  // Each is refused at line 2 without allocating for the declared rows: a
  // large allocation would fail under the limit and give another exception.
  // (10000000 1 0 is the fuzzer's find: within an allowance of 2^24 rows it took seconds.)
  for (const std::string size : {"10000000 1 0", "1000000000 1 0", "1000000000000 1 0", "9223372036854775807 1 0",
                                 "9223372036854775807 9223372036854775807 1",
                                 "1048582 1 2"}) {
    INFO("size line: " << size);
    CHECK(run_with_address_limit(limit_bytes, [&] { return read_and_classify(general + size + "\n"); }) ==
          refused_at + 2);
    CHECK_THROWS_WITH_AS(read_text(general + size + "\n"), doctest::Contains("rows for"), parse_error);
  }
  // A false entry count is found before the rows are allocated: the input
  // ends after the last line read (the size line, then the one entry).
  CHECK(run_with_address_limit(limit_bytes, [&] {
          return read_and_classify(general + "1000000000 1 1000000000\n");
        }) == refused_at + 2);
  CHECK(run_with_address_limit(limit_bytes, [&] {
          return read_and_classify(general + "1000000000 1 500000000\n1 1 1\n");
        }) == refused_at + 3);
}

TEST_CASE("read_matrix_market: sizes within the row allowance are read in bounded memory") {
  const std::string general = "%%MatrixMarket matrix coordinate real general\n";
  // 2^20 + 4 rows for 2 entries: exactly the allowance (16 MB while reading).
  CHECK(run_with_address_limit(limit_bytes, [&] {
          return read_and_classify(general + "1048580 3 2\n1048580 3 1.5\n1 1 2\n");
        }) == accepted);
  // Columns cost nothing: any count is read.
  const auto wide = read_text(general + "2 9223372036854775807 1\n2 9223372036854775807 4\n");
  CHECK(wide.cols == 9223372036854775807);
  CHECK(entries_of(wide) == std::vector<entry>{{1, 9223372036854775806, 4}});
}

TEST_CASE("read_matrix_market: a long or binary field is cut and escaped in the message") {
  const std::string general = "%%MatrixMarket matrix coordinate real general\n";
  SUBCASE("a 1 MB value: 40 bytes of it and its length") {
    const std::string big(1'000'000, '7');
    try {
      read_text(general + "1 1 1\n1 1 " + big + "x\n");
      FAIL("accepted");
    } catch (const parse_error& e) {
      INFO(e.what());
      CHECK(e.line() == 3);
      CHECK(std::string(e.what()).size() < 200);
      CHECK(e.problem() == "value '" + std::string(40, '7') + "...' (1000001 bytes) is not a finite real number");
    }
  }
  SUBCASE("a byte-order mark and a NUL are shown as \\xNN") {
    try {
      read_text("\xEF\xBB\xBF" + general + "1 1 0\n");
      FAIL("accepted");
    } catch (const parse_error& e) {
      INFO(e.what());
      CHECK(e.line() == 1);
      CHECK(e.problem().starts_with("bad banner '\\xef\\xbb\\xbf%%MatrixMarket matrix coordinate real...' (48 bytes)"));
    }
    try {
      read_text(general + "1 1 1\n1 1 2" + std::string(1, '\0') + "\n");
      FAIL("accepted");
    } catch (const parse_error& e) {
      CHECK(e.problem() == "value '2\\x00' is not a finite real number");
    }
  }
  SUBCASE("every byte of a message is printable ASCII") {
    std::string junk;
    for (int c = 0; c < 256; ++c)
      if (c != '\n' && c != ' ' && c != '\t') junk += static_cast<char>(c);
    for (const std::string& text : {general + "1 1 1\n" + junk + " 1 1\n", general + junk + "\n",
                                    junk + "\n", general + "1 1 1\n1 1 " + junk + "\n"}) {
      try {
        read_text(text);
        FAIL("accepted");
      } catch (const parse_error& e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(std::all_of(what.begin(), what.end(), [](char c) {
          return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f;
        }));
        CHECK(what.size() < 300);
      }
    }
  }
}
