// Tests of operations on lazy arguments: BPERMUTE of a replication by a
// lazy INDEX over one segment reads the physical copy
// (machine::bpermute_by_index), PACK of a lazy value packs it where it is,
// and SELECT over a lazy INDEX, DIST or replication (which writes them out:
// reading them in place measured no faster). Each program is run
// as written and with its lazy arguments written out first (PAIR writes
// both its parts out), and must print the same.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "run_program.hpp"

using namespace vseg::vcode;
using namespace vseg::vcode::testing;

namespace {

// A CONST INT of count values, value i = f(i).
template <class F>
std::string ints(std::int64_t count, F f) {
  std::string s = "CONST INT (";
  for (std::int64_t i = 0; i < count; ++i) s += std::to_string(f(i)) + " ";
  return s + ")\n";
}

// 20000 elements in 4000 segments of 5 (lazy: over lazy_min).
const std::string fives = ints(4000, [](std::int64_t) { return 5; }) + "MAKE_SEGDES\n";
// INDEX with start 3i - 7 and stride (i % 3) - 1 over them: a lazy INT.
const std::string index_vec = ints(4000, [](std::int64_t i) { return 3 * i - 7; }) +
                              ints(4000, [](std::int64_t i) { return i % 3 - 1; }) + fives + "INDEX\nF\n";
// DIST of 4000 values over them: a lazy INT.
const std::string dist_vec = ints(4000, [](std::int64_t i) { return 11 * i % 97; }) + fives + "DIST INT\nF\n";
// Flags: every element whose position mod 7 is below 3.
std::string flags_of() {
  std::string s = "CONST BOOL (";
  for (std::int64_t i = 0; i < 20000; ++i) s += i % 7 < 3 ? "T " : "F ";
  return s + ")\n";
}
const std::string flags = flags_of();
// R: (0.3 1.7 -2.1 0.05) replicated 5000 times (virtual segments over one copy).
const std::string r_vec =
    "CONST FLOAT (0.3 1.7 -2.1 0.05)\nCONST INT (5000 5000 5000 5000)\nMAKE_SEGDES\nDIST FLOAT\n"
    "CONST INT (0 1 2 3)\nCONST INT (4 4 4 4)\nCONST INT (5000 5000 5000 5000)\nMAKE_SEGDES\nINDEX\n"
    "CONST INT (20000)\nMAKE_SEGDES\nPERMUTE FLOAT\nF\n";
const std::string stored_floats = "CONST FLOAT 0.5\nCONST SEGDES 20000\nDIST FLOAT\nCONST SEGDES 20000\n+_SCAN FLOAT\n";

void check_same(const std::string& body) {
  CAPTURE(body.substr(0, 80));
  const std::string lazy = output_of(main_of(with(body, "")));
  CHECK(lazy.find("error") == std::string::npos);
  CHECK(lazy == output_of(main_of(with(body, write_top_out))));
}

}  // namespace

TEST_CASE("lazy reads: SELECT over a lazy INDEX, DIST or replication gives the written-out results") {
  check_same(flags + index_vec + dist_vec + "SELECT INT\n");
  check_same(flags + dist_vec + index_vec + "SELECT INT\n");
  check_same(flags + index_vec + ints(20000, [](std::int64_t i) { return i ^ 5; }) + "SELECT INT\n");
  check_same(flags + stored_floats + r_vec + "SELECT FLOAT\n");
  check_same(flags + r_vec + r_vec + "SELECT FLOAT\n");
  // Element 0: flag (0 < 3) true, the INDEX's first (-7); element 3: flag
  // false, the DIST's first (0).
  const std::string out = output_of(main_of(with(flags + index_vec + dist_vec + "SELECT INT\n", "")));
  CHECK(out.find("( -7 -8 -9 0 0 ") == 0);
}

TEST_CASE("lazy reads: SELECT with a short lazy alternative is the written-out error") {
  const std::string short_dist = ints(3999, [](std::int64_t i) { return i; }) +
                                 ints(3999, [](std::int64_t) { return 5; }) + "MAKE_SEGDES\nDIST INT\nF\n";
  const std::string body = flags + index_vec + short_dist + "SELECT INT\n";
  const std::string lazy = output_of(main_of(with(body, "")));
  CHECK(lazy.find("vector length mismatch: argument 1 has 20000 elements, argument 3 has 19995") !=
        std::string::npos);
  CHECK(without_line(lazy) == without_line(output_of(main_of(with(body, write_top_out)))));
}

TEST_CASE("lazy reads: BPERMUTE of a replication by a lazy INDEX over one segment reads the physical copy") {
  const std::string one = "CONST INT (20000)\nMAKE_SEGDES\n";
  // Runs of 5 from start 4i + (i % 5) (stride 1), and from 4i with stride 2
  // (each element found by its virtual segment), into R's 20000 elements.
  const std::string by_ones = ints(4000, [](std::int64_t i) { return 4 * i + i % 5; }) +
                              ints(4000, [](std::int64_t) { return 1; }) + fives + "INDEX\nF\n";
  const std::string by_twos = ints(4000, [](std::int64_t i) { return 4 * i; }) +
                              ints(4000, [](std::int64_t) { return 2; }) + fives + "INDEX\nF\n";
  check_same(r_vec + by_ones + one + one + "BPERMUTE FLOAT\n");
  check_same(r_vec + by_twos + one + one + "BPERMUTE FLOAT\n");
  // Element 0 is R[0] = 0.3; element 5 is R[5] (4 + 1: 1.7), the next run's first.
  CHECK(output_of(main_of(with(r_vec + by_ones + one + one + "BPERMUTE FLOAT\n", ""))).find("( 3.00000000000000e-01 ") == 0);
  // An index past the end (the last run starts at 19997) is the written-out error.
  const std::string past = ints(4000, [](std::int64_t i) { return i == 3999 ? 19997 : 4 * i + 1; }) +
                           ints(4000, [](std::int64_t) { return 1; }) + fives + "INDEX\nF\n";
  const std::string body = r_vec + past + one + one + "BPERMUTE FLOAT\n";
  const std::string lazy = output_of(main_of(with(body, "")));
  CHECK(lazy.find("error") != std::string::npos);
  CHECK(without_line(lazy) == without_line(output_of(main_of(with(body, write_top_out)))));
}

TEST_CASE("lazy reads: PACK of a replication, a DIST or an INDEX gives the written-out results") {
  const std::string one = "CONST INT (20000)\nMAKE_SEGDES\n";
  // R's 5000 segments of 4, its segments of 5 (segment ends not at the
  // virtual ones'), and one segment; the pack leaves the data and the
  // descriptor's lengths, printed.
  const std::string fours = ints(5000, [](std::int64_t) { return 4; }) + "MAKE_SEGDES\n";
  for (const std::string& s : {fours, fives, one}) {
    check_same(r_vec + flags + s + "PACK FLOAT\nLENGTHS\n");
    check_same(dist_vec + flags + s + "PACK INT\nLENGTHS\n");
    check_same(index_vec + flags + s + "PACK INT\nLENGTHS\n");
  }
  // The first kept elements: R's 0.3 1.7 -2.1 (positions 0-2), then 0.05 0.3 1.7 (7-9).
  CHECK(output_of(main_of(with(r_vec + flags + one + "PACK FLOAT\nPOP 1 0\n", "")))
            .find("( 3.00000000000000e-01 1.70000000000000e+00 -2.10000000000000e+00 5.00000000000000e-02 ") == 0);
  // Flags one short: the written-out error.
  const std::string short_flags = "CONST BOOL (T)\nCONST INT (19999)\nMAKE_SEGDES\nDIST BOOL\n";
  const std::string body = r_vec + short_flags + one + "PACK FLOAT\n";
  const std::string lazy = output_of(main_of(with(body, "")));
  CHECK(lazy.find("error") != std::string::npos);
  CHECK(without_line(lazy) == without_line(output_of(main_of(with(body, write_top_out)))));
}
