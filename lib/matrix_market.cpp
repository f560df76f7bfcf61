#include "vseg/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <istream>
#include <span>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "vseg/detail/error.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/flat/scan.hpp"
#include "vseg/flat/tabulate.hpp"
#include "vseg/monoid.hpp"

namespace vseg {

parse_error::parse_error(std::string file, std::int64_t line, const std::string& problem)
    : std::runtime_error(detail::message("read_matrix_market", file, ":", line, ": ", problem)),
      file_(std::move(file)),
      line_(line),
      problem_(problem) {}

namespace {

// ---------------------------------------------------------------------------
// Reading

enum class mm_field { real, integer, pattern };
enum class mm_symmetry { general, symmetric, skew_symmetric };

// The whitespace-separated fields of one line.
std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

std::string lower_case(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A field or line as a message quotes it: in single quotes, at most
// `shown_bytes` bytes of it, bytes outside printable ASCII (NUL, a BOM, a
// tab) and the backslash as \xNN, and the total length when it is cut:
// 'abc...' (50000000 bytes). A 50 MB field must not make a 50 MB message.
std::string quoted(std::string_view text) {
  constexpr std::size_t shown_bytes = 40;
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < shown_bytes; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xf];
    }
  }
  if (text.size() > shown_bytes) out += "...' (" + std::to_string(text.size()) + " bytes)";
  else out += "'";
  return out;
}

bool is_blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t'; });
}

// Reads the stream line by line, counting lines, and turns problems into
// parse_errors naming the current line.
class line_reader {
 public:
  line_reader(std::istream& in, std::string_view name) : in_(in), name_(name) {}

  // The next line (without its end-of-line), or false at the end of input.
  bool next(std::string_view& line) {
    if (!std::getline(in_, buffer_)) return false;
    ++line_number_;
    if (!buffer_.empty() && buffer_.back() == '\r') buffer_.pop_back();
    line = buffer_;
    return true;
  }

  // The next line that is neither blank nor a comment, or false at the end.
  bool next_content(std::string_view& line) {
    while (next(line))
      if (!is_blank(line) && line.front() != '%') return true;
    return false;
  }

  std::int64_t line_number() const noexcept { return line_number_; }

  template <class... Parts>
  [[noreturn]] void fail(const Parts&... parts) const {
    fail_at(line_number_, parts...);
  }

  template <class... Parts>
  [[noreturn]] void fail_at(std::int64_t line, const Parts&... parts) const {
    std::ostringstream problem;
    (problem << ... << parts);
    throw parse_error(name_, line, problem.str());
  }

 private:
  std::istream& in_;
  std::string name_;
  std::string buffer_;
  std::int64_t line_number_ = 0;
};

// The whole field as a 64-bit integer, or false.
bool parse_integer(std::string_view field, std::int64_t& out) {
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), out);
  return ec == std::errc{} && end == field.data() + field.size();
}

// The whole field as a finite double, or false.
bool parse_real(std::string_view field, double& out) {
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), out);
  return ec == std::errc{} && end == field.data() + field.size() && std::isfinite(out);
}

constexpr std::string_view expected_banner =
    "'%%MatrixMarket matrix coordinate real|integer|pattern general|symmetric|skew-symmetric'";

struct header {
  mm_field field;
  mm_symmetry symmetry;
};

// The banner line: "%%MatrixMarket matrix coordinate <field> <symmetry>".
header read_banner(line_reader& lines) {
  std::string_view line;
  if (!lines.next(line)) lines.fail_at(1, "empty input; expected the banner ", expected_banner);
  const auto f = split_fields(line);
  if (f.empty() || f[0] != "%%MatrixMarket")
    lines.fail("bad banner ", quoted(line), "; expected ", expected_banner);
  if (f.size() != 5)
    lines.fail("bad banner ", quoted(line), ": it has ", f.size() - 1, " words after %%MatrixMarket, expected 4 (",
               expected_banner, ")");
  if (const auto object = lower_case(f[1]); object != "matrix")
    lines.fail("unsupported object ", quoted(f[1]), ": only 'matrix' is read");
  if (const auto format = lower_case(f[2]); format != "coordinate")
    lines.fail("unsupported format ", quoted(f[2]), ": only 'coordinate' is read");
  header h{};
  const auto field = lower_case(f[3]);
  if (field == "real") h.field = mm_field::real;
  else if (field == "integer") h.field = mm_field::integer;
  else if (field == "pattern") h.field = mm_field::pattern;
  else lines.fail("unsupported field ", quoted(f[3]), ": only real, integer and pattern are read");
  const auto symmetry = lower_case(f[4]);
  if (symmetry == "general") h.symmetry = mm_symmetry::general;
  else if (symmetry == "symmetric") h.symmetry = mm_symmetry::symmetric;
  else if (symmetry == "skew-symmetric") h.symmetry = mm_symmetry::skew_symmetric;
  else lines.fail("unsupported symmetry ", quoted(f[4]), ": only general, symmetric and skew-symmetric are read");
  return h;
}

// Rows a matrix may have beyond two per entry (see read_size_line): 2^20
// rows cost 16 MB while reading.
constexpr std::int64_t max_rows_beyond_entries = std::int64_t{1} << 20;

struct size_line {
  std::int64_t rows, cols, entries, line;
};

// The size line "rows cols entries", after any comments.
size_line read_size_line(line_reader& lines, const header& h) {
  std::string_view line;
  if (!lines.next_content(line))
    lines.fail("the input ends before the size line 'rows cols entries'");
  const auto f = split_fields(line);
  size_line s{0, 0, 0, lines.line_number()};
  if (f.size() != 3 || !parse_integer(f[0], s.rows) || !parse_integer(f[1], s.cols) ||
      !parse_integer(f[2], s.entries) || s.rows < 0 || s.cols < 0 || s.entries < 0)
    lines.fail("bad size line ", quoted(line), "; expected 'rows cols entries', three non-negative integers");
  if (h.symmetry != mm_symmetry::general && s.rows != s.cols)
    lines.fail("a ", h.symmetry == mm_symmetry::symmetric ? "symmetric" : "skew-symmetric",
               " matrix must be square, but the size line gives ", s.rows, " x ", s.cols);
  // The compressed rows cost 16 bytes per row while reading, entries or not,
  // and nothing in the input pays for an empty row: a 20-byte size line
  // could ask for gigabytes. So rows beyond two per entry (an entry touches
  // at most two rows, mirrored) plus a fixed allowance are refused here,
  // before anything is allocated; the entries themselves are read before
  // the rows are allocated, so a false entry count is found first.
  if (s.rows > max_rows_beyond_entries && (s.rows - max_rows_beyond_entries) / 2 > s.entries)
    lines.fail("the size line declares ", s.rows, " rows for ", s.entries, " entries; at most 2^20 rows",
               " plus two per entry are read, as an empty row costs memory the input does not pay for");
  return s;
}

// The entries as triplets, mirrored as the symmetry asks, in file order.
struct triplets {
  std::vector<std::int64_t> rows, cols;
  std::vector<double> values;

  void push(std::int64_t r, std::int64_t c, double v) {
    rows.push_back(r);
    cols.push_back(c);
    values.push_back(v);
  }
};

triplets read_entries(line_reader& lines, const header& h, const size_line& s) {
  // Reserve for the announced entries, but trust a size line only so far:
  // a corrupt count must not allocate gigabytes before the input runs out.
  constexpr std::int64_t reserve_cap = std::int64_t{1} << 16;
  const auto reserve = static_cast<std::size_t>(std::min(s.entries, reserve_cap));
  triplets t;
  t.rows.reserve(reserve);
  t.cols.reserve(reserve);
  t.values.reserve(reserve);

  const std::size_t expected_fields = h.field == mm_field::pattern ? 2 : 3;
  const char* expected_form = h.field == mm_field::pattern ? "'row col'" : "'row col value'";
  std::string_view line;
  for (std::int64_t k = 0; k < s.entries; ++k) {
    if (!lines.next_content(line))
      lines.fail("the input ends after ", k, " of the ", s.entries,
                 " entries announced by the size line (line ", s.line, ")");
    const auto f = split_fields(line);
    if (f.size() != expected_fields)
      lines.fail("entry ", k + 1, " ", quoted(line), " has ", f.size(), " fields; expected ",
                 expected_form);
    std::int64_t r = 0, c = 0;
    if (!parse_integer(f[0], r)) lines.fail("row index ", quoted(f[0]), " is not an integer");
    if (!parse_integer(f[1], c)) lines.fail("column index ", quoted(f[1]), " is not an integer");
    if (r < 1 || r > s.rows) lines.fail("row index ", r, " outside [1, ", s.rows, "]");
    if (c < 1 || c > s.cols) lines.fail("column index ", c, " outside [1, ", s.cols, "]");
    double v = 1.0;
    if (h.field == mm_field::real) {
      if (!parse_real(f[2], v)) lines.fail("value ", quoted(f[2]), " is not a finite real number");
    } else if (h.field == mm_field::integer) {
      std::int64_t i = 0;
      if (!parse_integer(f[2], i)) lines.fail("value ", quoted(f[2]), " is not an integer");
      v = static_cast<double>(i);
    }
    --r;
    --c;
    if (h.symmetry == mm_symmetry::skew_symmetric && r == c)
      lines.fail("diagonal entry (", r + 1, ", ", c + 1,
                 ") in a skew-symmetric matrix, whose diagonal must be zero");
    t.push(r, c, v);
    if (r != c && h.symmetry == mm_symmetry::symmetric) t.push(c, r, v);
    if (r != c && h.symmetry == mm_symmetry::skew_symmetric) t.push(c, r, -v);
  }
  if (lines.next_content(line))
    lines.fail("an entry ", quoted(line), " beyond the ", s.entries,
               " announced by the size line (line ", s.line, ")");
  return t;
}

// The triplets sorted by (row, column) into compressed rows; duplicates
// stay, in file order. O(nnz log(max row length)).
csr_matrix to_csr(std::int64_t rows, std::int64_t cols, const triplets& t) {
  const auto nnz = static_cast<std::int64_t>(t.rows.size());
  std::vector<std::int64_t> row_lengths(static_cast<std::size_t>(rows), 0);
  for (std::int64_t r : t.rows) ++row_lengths[static_cast<std::size_t>(r)];
  // Counting sort by row (stable), then a stable sort by column within each row.
  std::vector<std::int64_t> next(static_cast<std::size_t>(rows) + 1, 0);
  for (std::size_t r = 0; r < row_lengths.size(); ++r) next[r + 1] = next[r] + row_lengths[r];
  std::vector<std::pair<std::int64_t, double>> entries(static_cast<std::size_t>(nnz));
  for (std::size_t k = 0; k < t.rows.size(); ++k)
    entries[static_cast<std::size_t>(next[static_cast<std::size_t>(t.rows[k])]++)] = {t.cols[k],
                                                                                      t.values[k]};
  auto by_column = [](const auto& a, const auto& b) { return a.first < b.first; };
  std::int64_t start = 0;
  for (std::int64_t len : row_lengths) {
    std::stable_sort(entries.begin() + start, entries.begin() + start + len, by_column);
    start += len;
  }
  std::vector<std::int64_t> col_indices(static_cast<std::size_t>(nnz));
  std::vector<double> values(static_cast<std::size_t>(nnz));
  for (std::size_t k = 0; k < entries.size(); ++k) {
    col_indices[k] = entries[k].first;
    values[k] = entries[k].second;
  }
  return {rows, cols, array<std::int64_t>(std::move(row_lengths)),
          array<std::int64_t>(std::move(col_indices)), array<double>(std::move(values))};
}

// ---------------------------------------------------------------------------
// Generators

// The matrix whose row r has row_lengths[r] entries, written by
// fill_row(r, cols, values) into spans of that length; rows are filled in parallel.
template <class FillRow>
csr_matrix build_rows(std::int64_t rows, std::int64_t cols, array<std::int64_t> row_lengths,
                      FillRow fill_row) {
  const auto offsets = scan_with_total(row_lengths, plus<std::int64_t>{});
  const std::int64_t nnz = offsets.total;
  auto col_indices = buffer<std::int64_t>::for_overwrite(nnz);
  auto values = buffer<double>::for_overwrite(nnz);
  detail::parallel_for(rows, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t r = lo; r < hi; ++r) {
      const auto start = static_cast<std::size_t>(offsets.prefixes[r]);
      const auto len = static_cast<std::size_t>(row_lengths[r]);
      fill_row(r, col_indices.span().subspan(start, len), values.span().subspan(start, len));
    }
  });
  return {rows, cols, std::move(row_lengths), std::move(col_indices).freeze(),
          std::move(values).freeze()};
}

// The square stencil matrix of `rows` rows whose row r holds `diagonal` at
// its own column and -1 at every other column for_each_neighbour(r, visit)
// visits (as visit(column, r), in increasing column order). Two passes over
// the neighbours: one counts, one fills. O(entries) work.
template <class ForEachNeighbour>
csr_matrix stencil_rows(std::int64_t rows, double diagonal, const ForEachNeighbour& for_each_neighbour) {
  auto lengths = tabulate(rows, [&](std::int64_t r) {
    std::int64_t count = 0;
    for_each_neighbour(r, [&](std::int64_t, std::int64_t) { ++count; });
    return count;
  });
  return build_rows(rows, rows, std::move(lengths),
                    [&](std::int64_t r, std::span<std::int64_t> cols, std::span<double> vals) {
                      std::size_t k = 0;
                      for_each_neighbour(r, [&](std::int64_t c, std::int64_t row) {
                        cols[k] = c;
                        vals[k] = c == row ? diagonal : -1.0;
                        ++k;
                      });
                    });
}

// The stencil matrix on an n³ grid whose neighbour offsets (dx, dy, dz) are
// those with |dx| + |dy| + |dz| <= max_manhattan (1: 7 points, 3: 27 points).
csr_matrix stencil(std::string_view operation, std::int64_t n, int max_manhattan) {
  if (n < 0) detail::throw_invalid(operation, "negative grid size ", n);
  // n³ rows and up to 27·n³ entries must fit in int64.
  constexpr std::int64_t largest_n = 690'000;
  if (n > largest_n) detail::throw_overflow(operation, "grid size ", n, " gives more than 2^63-1 entries");
  const std::int64_t rows = n * n * n;
  struct offset {
    int dx, dy, dz;
  };
  // In (dx, dy, dz) lexicographic order, so the columns of every row come out sorted.
  std::vector<offset> offsets;
  for (int dx = -1; dx <= 1; ++dx)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dz = -1; dz <= 1; ++dz)
        if (std::abs(dx) + std::abs(dy) + std::abs(dz) <= max_manhattan) offsets.push_back({dx, dy, dz});
  const double diagonal = static_cast<double>(offsets.size() - 1);
  auto inside = [n](std::int64_t x) { return x >= 0 && x < n; };
  auto for_each_neighbour = [&](std::int64_t r, auto&& visit) {
    const std::int64_t x = r / (n * n), y = r / n % n, z = r % n;
    for (const offset& o : offsets)
      if (inside(x + o.dx) && inside(y + o.dy) && inside(z + o.dz))
        visit(((x + o.dx) * n + (y + o.dy)) * n + (z + o.dz), r);
  };
  return stencil_rows(rows, diagonal, for_each_neighbour);
}

// splitmix64: a small, fast generator whose output is the same everywhere.
struct splitmix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, bound), bound > 0 (the modulo bias is below 2^-40 for bounds below 2^24).
  std::int64_t below(std::int64_t bound) {
    return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(bound));
  }
};

// The generator of row r: an independent stream per row, so rows can be
// generated in any order and on any number of threads.
splitmix64 row_stream(std::uint64_t seed, std::int64_t r) {
  splitmix64 mix{seed ^ (static_cast<std::uint64_t>(r) * 0xd1342543de82ef95ULL)};
  return {mix.next()};
}

}  // namespace

csr_matrix read_matrix_market(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(detail::message("read_matrix_market", "cannot open '", path, "'"));
  return read_matrix_market(in, path);
}

csr_matrix read_matrix_market(std::istream& in, std::string_view name) {
  line_reader lines(in, name);
  const header h = read_banner(lines);
  const size_line s = read_size_line(lines, h);
  const triplets t = read_entries(lines, h, s);
  return to_csr(s.rows, s.cols, t);
}

csr_matrix stencil_7(std::int64_t n) { return stencil("stencil_7", n, 1); }

csr_matrix stencil_27(std::int64_t n) { return stencil("stencil_27", n, 3); }

csr_matrix stencil_2d(std::int64_t nx, std::int64_t ny, int points) {
  constexpr const char* op = "stencil_2d";
  if (nx < 0) detail::throw_invalid(op, "negative grid size nx = ", nx);
  if (ny < 0) detail::throw_invalid(op, "negative grid size ny = ", ny);
  if (points != 5 && points != 9) detail::throw_invalid(op, "points = ", points, ", must be 5 or 9");
  // nx·ny rows and up to 9 entries each must fit in int64.
  if (ny > 0 && nx > std::numeric_limits<std::int64_t>::max() / 9 / ny)
    detail::throw_overflow(op, "grid ", nx, " x ", ny, " gives more than 2^63-1 entries");
  const int max_manhattan = points == 5 ? 1 : 2;
  const double diagonal = points - 1;
  auto inside = [](std::int64_t v, std::int64_t n) { return v >= 0 && v < n; };
  // In (dx, dy) lexicographic order, so the columns of every row come out sorted.
  auto for_each_neighbour = [&](std::int64_t r, auto&& visit) {
    const std::int64_t x = r / ny, y = r % ny;
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        if (std::abs(dx) + std::abs(dy) <= max_manhattan && inside(x + dx, nx) && inside(y + dy, ny))
          visit((x + dx) * ny + (y + dy), r);
  };
  const std::int64_t rows = nx * ny;
  return stencil_rows(rows, diagonal, for_each_neighbour);
}

csr_matrix random_matrix(std::int64_t rows, std::int64_t cols, double avg_nnz_per_row,
                         std::uint64_t seed) {
  if (rows < 0) detail::throw_invalid("random_matrix", "negative number of rows ", rows);
  if (cols < 0) detail::throw_invalid("random_matrix", "negative number of columns ", cols);
  if (!(avg_nnz_per_row >= 0) || avg_nnz_per_row > 1e9)
    detail::throw_invalid("random_matrix", "average entries per row ", avg_nnz_per_row,
                          " outside [0, 1e9]");
  // Row lengths uniform on 0..floor(2·avg): the mean is avg when 2·avg is an integer.
  const auto choices = static_cast<std::int64_t>(std::floor(2 * avg_nnz_per_row)) + 1;
  auto lengths = tabulate(rows, [&](std::int64_t r) {
    splitmix64 g = row_stream(seed, r);
    return std::min(g.below(choices), cols);
  });
  return build_rows(
      rows, cols, std::move(lengths),
      [&](std::int64_t r, std::span<std::int64_t> out_cols, std::span<double> out_vals) {
        splitmix64 g = row_stream(seed, r);
        g.next();  // the draw that chose the length
        // Floyd's algorithm: k distinct columns out of cols, kept sorted.
        const auto k = static_cast<std::int64_t>(out_cols.size());
        std::vector<std::int64_t> chosen;
        chosen.reserve(out_cols.size());
        for (std::int64_t j = cols - k; j < cols; ++j) {
          const std::int64_t t = g.below(j + 1);
          // Every column chosen so far is below j, so j goes last.
          const auto at = std::lower_bound(chosen.begin(), chosen.end(), t);
          if (at != chosen.end() && *at == t) chosen.push_back(j);
          else chosen.insert(at, t);
        }
        std::copy(chosen.begin(), chosen.end(), out_cols.begin());
        for (double& v : out_vals) v = 2 * g.unit() - 1;
      });
}

}  // namespace vseg
