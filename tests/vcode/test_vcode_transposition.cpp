// Tests of PERMUTE over one segment by a lazy transposing INDEX
// (lib/vcode/transposition.cpp): a tiled transpose that neither writes the
// index nor checks it. Each program runs once as written and once with the
// index written out first (an element-wise OR of it with itself), which
// takes the checked scatter; both must print the same, errors included.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../../lib/vcode/transposition.hpp"
#include "run_program.hpp"

using namespace vseg::vcode;
using namespace vseg::vcode::testing;

namespace {

const std::string force = "COPY 1 0\nOR INT\n";

std::string num(std::int64_t x) { return std::to_string(x); }

// One segment of n.
std::string one(std::int64_t n) { return "CONST INT " + num(n) + "\nMAKE_SEGDES\n"; }

// The transposition of m segments of len: element r * len + c is r + c * m.
// starts 0, 1, ..., m - 1 (written out by `starts_force`, which makes the
// `affine` form; else NESL's TRANSPOSE-INDEX, the `transposed` form),
// strides m.
std::string transposition(std::int64_t m, std::int64_t len, const std::string& starts_force) {
  return "CONST INT 0\nCONST INT 1\n" + one(m) + "INDEX\n" + starts_force + "CONST INT " + num(m) + "\n" + one(m) +
         "DIST INT\nCONST INT " + num(len) + "\nCONST INT " + num(m) + "\nMAKE_SEGDES\nDIST INT\nMAKE_SEGDES\nINDEX\n";
}

// Stored data of n elements: 5 + 3i as INT, that over 2 as FLOAT, or
// whether it is even as BOOL.
std::string data(std::int64_t n, const std::string& type) {
  std::string s = "CONST INT 5\nCONST INT 3\n" + one(n) + "INDEX\n" + force;
  if (type == "FLOAT") s += "I_TO_F\nCONST FLOAT 2.0\n" + one(n) + "DIST FLOAT\n/ FLOAT\n";
  if (type == "BOOL") s += "CONST INT 1\n" + one(n) + "DIST INT\nAND INT\nCONST INT 0\n" + one(n) + "DIST INT\n= INT\n";
  return s;
}

}  // namespace

TEST_CASE("transposition: PERMUTE by a lazy transposing INDEX equals the checked PERMUTE by it written out") {
  // Shapes that are not multiples of the 32 x 32 tile, both ways round.
  const std::int64_t shapes[][2] = {{37, 1000}, {1000, 37}, {129, 130}, {64, 256}};
  for (const auto& shape : shapes) {
    const std::int64_t m = shape[0], len = shape[1], n = m * len;
    for (const std::string starts_force : {"", "COPY 1 0\nOR INT\n"}) {
      for (const std::string type : {"INT", "FLOAT", "BOOL"}) {
        CAPTURE(m);
        CAPTURE(len);
        CAPTURE(starts_force);
        CAPTURE(type);
        const std::string index = transposition(m, len, starts_force);
        const std::string lazy = output_of(main_of(data(n, type) + index + one(n) + "PERMUTE " + type + "\n"));
        const std::string written =
            output_of(main_of(data(n, type) + index + force + one(n) + "PERMUTE " + type + "\n"));
        CHECK(lazy.rfind("error", 0) == std::string::npos);
        CHECK(lazy == written);
        if (type == "INT") {
          // Position r + c * m holds element r * len + c, i.e. 5 + 3 (r * len + c):
          // the first m are 5, 5 + 3 len, 5 + 6 len, ...
          std::string head = "( 5 ";
          head.append(num(5 + 3 * len)).append(" ").append(num(5 + 6 * len)).append(" ");
          std::string tail = " ";
          tail.append(num(5 + 3 * (n - 1))).append(" )");
          CHECK(lazy.rfind(head, 0) == 0);
          CHECK(lazy.find(tail) != std::string::npos);
        }
      }
    }
  }
}

TEST_CASE("transposition: a PERMUTE it does not fit gives the plain PERMUTE's result or error") {
  const std::int64_t m = 129, len = 130, n = m * len;
  const std::string index = transposition(m, len, "");
  const auto run_both = [&](const std::string& dat, const std::string& seg) {
    const std::string lazy = without_line(output_of(main_of(dat + index + seg + "PERMUTE INT\n")));
    const std::string written = without_line(output_of(main_of(dat + index + force + seg + "PERMUTE INT\n")));
    CHECK(lazy == written);
    return lazy;
  };
  // Data one element longer than the index: the plain length error.
  CHECK(run_both(data(n + 1, "INT"), one(n)).find("error") == 0);
  // A descriptor that does not cover the data.
  CHECK(run_both(data(n, "INT"), one(n - 1)).find("error") == 0);
  // Two segments: not one transposition; the transposition's targets leave
  // the first segment, so it is the checked PERMUTE's error.
  std::string two = "CONST INT (";
  two.append(num(n / 2)).append(" ").append(num(n - n / 2)).append(")\nMAKE_SEGDES\n");
  CHECK(run_both(data(n, "INT"), two).find("outside its segment") != std::string::npos);
}

TEST_CASE("transposition: transpose_into against the definition") {
  for (const std::int64_t m : {1, 2, 31, 32, 33, 70}) {
    for (const std::int64_t len : {1, 3, 32, 65}) {
      CAPTURE(m);
      CAPTURE(len);
      std::vector<std::int32_t> in(static_cast<std::size_t>(m * len)), out(in.size(), -1);
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int32_t>(7 * i + 1);
      vseg::vcode::detail::transpose_into(in.data(), m, len, out.data());
      bool same = true;
      for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t c = 0; c < len; ++c)
          same = same && out[static_cast<std::size_t>(c * m + r)] == in[static_cast<std::size_t>(r * len + c)];
      CHECK(same);
    }
  }
}
