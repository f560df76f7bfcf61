// Tests of operations on lazy arguments: BPERMUTE of a replication by a
// lazy INDEX over one segment reads the physical copy
// (machine::bpermute_by_index), DPERMUTE by a lazy INDEX scatters by its
// rule (machine::dpermute_by_index), PACK of a lazy value packs it where
// it is, and SELECT over a lazy INDEX, DIST or replication (which writes them out:
// reading them in place measured no faster). Each program is run
// as written and with its lazy arguments written out first (PAIR writes
// both its parts out), and must print the same.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../../lib/vcode/lazy.hpp"
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
// A replication whose virtual segments are stored, not a rule: 2000
// copies of 4 values (R2's first 8000 elements), then 4000 copies of 3.
const std::string r2_vec =
    "CONST FLOAT (0.3 1.7 -2.1 0.05 9.5 -4.25 7.125)\nCONST INT (2000 2000 2000 2000 4000 4000 4000)\n"
    "MAKE_SEGDES\nDIST FLOAT\nCONST INT (0 1 2 3 0 1 2)\nCONST INT (4 4 4 4 3 3 3)\n"
    "CONST INT (2000 2000 2000 2000 4000 4000 4000)\nMAKE_SEGDES\nINDEX\n"
    "CONST INT (8000 12000)\nMAKE_SEGDES\nPERMUTE FLOAT\nF\n";
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
  // The same runs in reverse order, and jumping back and forth: each run's
  // virtual segment is searched from the one read last (write_replicated's
  // `near`), which must not matter when the reads move backwards.
  const std::string backwards = ints(4000, [](std::int64_t i) { return 4 * (3999 - i) + i % 5; }) +
                                ints(4000, [](std::int64_t) { return 1; }) + fives + "INDEX\nF\n";
  const std::string jumping = ints(4000, [](std::int64_t i) { return i % 2 ? 4 * i : 4 * (3999 - i) + 3; }) +
                              ints(4000, [](std::int64_t) { return 1; }) + fives + "INDEX\nF\n";
  for (const std::string& r : {r_vec, r2_vec})
    for (const std::string& runs : {by_ones, backwards, jumping}) check_same(r + runs + one + one + "BPERMUTE FLOAT\n");
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

namespace {

// An INDEX over the 4000 segments of 5 with start f(i) and stride g(i), lazy.
template <class F, class G>
std::string index_over_fives(F f, G g) {
  return ints(4000, f) + ints(4000, g) + fives + "INDEX\nF\n";
}
// 20000 INTs, element i = 7i - 3 (i * 7 mod 101 as FLOATs, i % 3 == 0 as BOOLs).
const std::string int_data = ints(20000, [](std::int64_t i) { return 7 * i - 3; });
const std::string float_data = "CONST FLOAT 1.0\nCONST SEGDES 20000\nDIST FLOAT\nCONST SEGDES 20000\n+_SCAN FLOAT\n";
const std::string bool_data = flags;
// Destination descriptors: 4000 segments of 8 (32000 elements), one of 25000.
const std::string eights = ints(4000, [](std::int64_t) { return 8; }) + "MAKE_SEGDES\n";
const std::string one_of_20000 = "CONST INT (20000)\nMAKE_SEGDES\n";
const std::string one_of_25000 = "CONST INT (25000)\nMAKE_SEGDES\n";
// Defaults of n elements of each type: -1, -0.5, false.
std::string defaults_of(const char* type, std::int64_t n) {
  const std::string x = std::string(type) == "INT" ? "-1" : std::string(type) == "FLOAT" ? "-0.5" : "(F)";  // not the marker F
  return "CONST " + std::string(type) + " " + x + "\nCONST SEGDES " + std::to_string(n) + "\nDIST " + type + "\n";
}

}  // namespace

TEST_CASE("lazy reads: DPERMUTE by a lazy INDEX over the source's segments gives the written-out results") {
  // Stride 1 (a copy at an offset, up to the segment's end), -1 and 0 (every
  // element onto one target: the last wins) into segments of 8, and 2 into
  // segments of 12.
  const std::string by_ones = index_over_fives([](std::int64_t i) { return i % 4; }, [](std::int64_t) { return 1; });
  const std::string at_end = index_over_fives([](std::int64_t) { return 3; }, [](std::int64_t) { return 1; });
  const std::string mixed = index_over_fives([](std::int64_t i) { return i % 3 == 0 ? 0 : i % 3 == 1 ? 7 : 5; },
                                             [](std::int64_t i) { return i % 3 == 0 ? 1 : i % 3 == 1 ? -1 : 0; });
  const std::string wide = index_over_fives([](std::int64_t) { return 0; }, [](std::int64_t) { return 2; });
  const std::string twelves = ints(4000, [](std::int64_t) { return 12; }) + "MAKE_SEGDES\n";
  for (const char* type : {"INT", "FLOAT", "BOOL"}) {
    CAPTURE(type);
    const std::string data = std::string(type) == "INT" ? int_data : std::string(type) == "FLOAT" ? float_data : bool_data;
    const std::string op = std::string("DPERMUTE ") + type + "\n";
    check_same(data + by_ones + defaults_of(type, 32000) + fives + eights + op);
    check_same(data + at_end + defaults_of(type, 32000) + fives + eights + op);
    check_same(data + mixed + defaults_of(type, 32000) + fives + eights + op);
    check_same(data + wide + defaults_of(type, 48000) + fives + twelves + op);
    // Stored defaults held twice: scattered into a copy, the other entry unchanged.
    check_same(defaults_of(type, 32000) + write_top_out + "COPY 1 0\n" + data + by_ones + "CPOP 1 2\n" + fives + eights + op);
  }
  // Segment 0 (start 0, stride 1): 7i - 3 for i < 5, then three defaults;
  // segment 1 (start 1): a default, then 7i - 3 for i = 5..9.
  const std::string out = output_of(main_of(with(int_data + by_ones + defaults_of("INT", 32000) + fives + eights +
                                                     "DPERMUTE INT\n", "")));
  CHECK(out.find("( -3 4 11 18 25 -1 -1 -1 -1 32 39 46 53 60 -1 -1 ") == 0);
  // Stride 0 from start 5 (segment 2): the segment's last element, 7 * 14 - 3, wins.
  const std::string last = output_of(main_of(with(int_data + mixed + defaults_of("INT", 32000) + fives + eights +
                                                      "DPERMUTE INT\n", "")));
  CHECK(last.find(" -1 -1 -1 -1 -1 95 -1 -1 ") != std::string::npos);
}

TEST_CASE("lazy reads: DPERMUTE by a lazy INDEX of runs over one segment gives the written-out results") {
  // Runs of 5 starting at 3i (overlapping: the later run wins) and at
  // 25000 - 5 - 5i (each run before the previous one), stride 1 and 2.
  const std::string overlapping = index_over_fives([](std::int64_t i) { return 3 * i; }, [](std::int64_t) { return 1; });
  const std::string backwards = index_over_fives([](std::int64_t i) { return 24995 - 5 * i; }, [](std::int64_t) { return 1; });
  const std::string spread = index_over_fives([](std::int64_t i) { return 6 * i + i % 2; }, [](std::int64_t) { return 2; });
  for (const std::string* index : {&overlapping, &backwards, &spread}) {
    check_same(int_data + *index + defaults_of("INT", 25000) + one_of_20000 + one_of_25000 + "DPERMUTE INT\n");
    check_same(float_data + *index + defaults_of("FLOAT", 25000) + one_of_20000 + one_of_25000 + "DPERMUTE FLOAT\n");
  }
  // Runs at 0, 3, 6: target 3 is run 1's first (position 5: 7 * 5 - 3 = 32), not run 0's fourth.
  const std::string out = output_of(main_of(with(int_data + overlapping + defaults_of("INT", 25000) + one_of_20000 +
                                                     one_of_25000 + "DPERMUTE INT\n", "")));
  CHECK(out.find("( -3 4 11 32 39 46 67 ") == 0);
}

TEST_CASE("lazy reads: DPERMUTE by a lazy INDEX out of its segment, or of the wrong length, is the written-out error") {
  const auto same_error = [](const std::string& body, const std::string& expected) {
    CAPTURE(body.substr(0, 80));
    const std::string lazy = output_of(main_of(with(body, "")));
    CHECK(lazy.find(expected) != std::string::npos);
    CHECK(without_line(lazy) == without_line(output_of(main_of(with(body, write_top_out)))));
  };
  const std::string op = defaults_of("INT", 32000) + fives + eights + "DPERMUTE INT\n";
  // Segment 3999's first index is 8; its last is 8 (start 4, stride 1); its last is -1 (start 3, stride -1).
  same_error(int_data + index_over_fives([](std::int64_t i) { return i == 3999 ? 8 : 0; }, [](std::int64_t) { return 1; }) + op,
             "index 8 at position 19995 outside its segment");
  same_error(int_data + index_over_fives([](std::int64_t i) { return i == 3999 ? 4 : 0; }, [](std::int64_t) { return 1; }) + op,
             "index 8 at position 19999 outside its segment");
  same_error(int_data + index_over_fives([](std::int64_t i) { return i == 0 ? 3 : 5; }, [](std::int64_t) { return -1; }) + op,
             "index -1 at position 4 outside its segment");
  // Runs over one segment: the last run ends one past the destination.
  same_error(int_data + index_over_fives([](std::int64_t i) { return i == 3999 ? 24996 : 0; }, [](std::int64_t) { return 1; }) +
                 defaults_of("INT", 25000) + one_of_20000 + one_of_25000 + "DPERMUTE INT\n",
             "index 25000 at position 19999 outside its segment");
  // Data one short of the INDEX, defaults one short of the destination.
  same_error(ints(19999, [](std::int64_t i) { return i; }) +
                 index_over_fives([](std::int64_t) { return 0; }, [](std::int64_t) { return 1; }) + op,
             "vector length mismatch: the data has 19999 elements, the indices has 20000");
  same_error(int_data + index_over_fives([](std::int64_t) { return 0; }, [](std::int64_t) { return 1; }) +
                 defaults_of("INT", 31999) + fives + eights + "DPERMUTE INT\n",
             "the segment descriptor covers 32000 elements, the defaults has 31999");
}

TEST_CASE("lazy reads: DPERMUTE by a lazy INDEX does not write the index out") {
  // The INDEX stands for 20000 INTs (10000 words) and holds its starts,
  // strides and descriptor: the run fits in 18,000 words with it lazy (and
  // the defaults a splat, not written out either), and writing it out needs
  // more than 28,000 (measured with -m); the limit is between.
  const std::string body = int_data + index_over_fives([](std::int64_t i) { return i % 4; }, [](std::int64_t) { return 1; }) +
                           defaults_of("INT", 32000) + fives + eights + "DPERMUTE INT\n";
  run_options small;
  small.memory_words = 24000;
  const std::string lazy = output_of(main_of(with(body, "")), small);
  CHECK(lazy.find("( -3 4 11 18 25 -1 -1 -1 -1 32 ") == 0);
  CHECK(output_of(main_of(with(body, write_top_out)), small).find("memory limit exceeded") != std::string::npos);
}

TEST_CASE("lazy reads: DPERMUTE into splat defaults gives the written-out results") {
  // A DIST of one scalar stays a splat: DPERMUTE fills it into its fresh
  // result (machine::fresh_defaults) instead of writing it out and copying
  // it. The F after the defaults writes them out in the reference run.
  // Zeros too: written out, they were a slice of the shared zero mapping.
  const std::string repeats = ints(20000, [](std::int64_t i) { return i * 37 % 19000; });  // later positions win
  const std::string by_eights = ints(20000, [](std::int64_t i) { return i * 3 % 8; });      // within segments of 8
  const std::string by_ones = index_over_fives([](std::int64_t i) { return i % 4; }, [](std::int64_t) { return 1; });
  for (const char* type : {"INT", "FLOAT", "BOOL"}) {
    CAPTURE(type);
    const std::string t = type;
    const std::string data = t == "INT" ? int_data : t == "FLOAT" ? float_data : bool_data;
    const std::string zero = t == "INT" ? "0" : t == "FLOAT" ? "0.0" : "(F)";
    const std::string op = "DPERMUTE " + t + "\n";
    const auto zeros_of = [&](std::int64_t n) {
      return "CONST " + t + " " + zero + "\nCONST SEGDES " + std::to_string(n) + "\nDIST " + t + "\n";
    };
    for (const bool zeros : {false, true}) {
      CAPTURE(zeros);
      const auto defaults = [&](std::int64_t n) { return (zeros ? zeros_of(n) : defaults_of(type, n)) + "F\n"; };
      check_same(data + repeats + defaults(25000) + one_of_20000 + one_of_25000 + op);  // one segment
      check_same(data + by_eights + defaults(32000) + fives + eights + op);             // uniform segments
      check_same(data + by_ones + defaults(32000) + fives + eights + op);               // by a lazy INDEX
      if (t == "INT")  // short: the serial scatter
        check_same("CONST INT (1 2 3)\nCONST INT (1 1 0)\n" + defaults(4) + "CONST SEGDES (2 0 1)\nCONST SEGDES (3 0 1)\n" + op);
    }
  }
  // By hand: position 1 wins index 1 over position 0; the splat fills the rest.
  CHECK(output_of(main_of(with("CONST INT (1 2 3)\nCONST INT (1 1 0)\nCONST INT 7\nCONST SEGDES 4\nDIST INT\n"
                               "CONST SEGDES (2 0 1)\nCONST SEGDES (3 0 1)\nDPERMUTE INT\n",
                               ""))) == "( 7 2 7 3 )\n");
  // A splat of the wrong length: the written-out error.
  const std::string short_defaults = int_data + repeats + "CONST INT 4\nCONST SEGDES 24999\nDIST INT\nF\n" +
                                     one_of_20000 + one_of_25000 + "DPERMUTE INT\n";
  const std::string lazy = output_of(main_of(with(short_defaults, "")));
  CHECK(lazy.find("the defaults has 24999") != std::string::npos);
  CHECK(without_line(lazy) == without_line(output_of(main_of(with(short_defaults, write_top_out)))));
}

TEST_CASE("lazy reads: DPERMUTE does not write splat defaults out") {
  // 20000 INTs of data and of indices (20,000 words) beside 25000 defaults
  // (12,500 words written out): with the limit at 30,000 the run fits while
  // the defaults stay a splat, and fails once they are written out (before
  // fresh_defaults, DPERMUTE wrote them out itself and failed: checked).
  const std::string body = int_data + ints(20000, [](std::int64_t i) { return i * 37 % 19000; }) +
                           defaults_of("INT", 25000) + "F\n" + one_of_20000 + one_of_25000 + "DPERMUTE INT\n";
  run_options small;
  small.memory_words = 30000;
  const std::string lazy = output_of(main_of(with(body, "")), small);
  CHECK(lazy.find("( 132997 125808 118619 111430 104241 ") == 0);
  CHECK(output_of(main_of(with(body, write_top_out)), small).find("memory limit exceeded") != std::string::npos);
}

TEST_CASE("lazy reads: a replication's virtual segment is found the same from any starting point") {
  using vseg::vcode::detail::replicated;
  using vseg::vcode::detail::segment_of;
  // Physical segments of lengths 3, 0, 1 and 4; 40 virtual segments over
  // them in an irregular order, so that empty virtual segments sit between
  // non-empty ones and runs of equal starts occur.
  replicated r;
  r.pstarts = vseg::array<std::int64_t>{0, 3, 3, 4};
  r.plens = vseg::array<std::int64_t>{3, 0, 1, 4};
  std::vector<std::int64_t> ids, starts;
  std::int64_t n = 0;
  for (std::int64_t t = 0; t < 40; ++t) {
    ids.push_back((t * 7 + t / 5) % 4);
    starts.push_back(n);
    n += r.plens[ids.back()];
  }
  r.vsegids = vseg::array<std::int64_t>(ids);
  r.vstarts = vseg::array<std::int64_t>(starts);
  for (std::int64_t j = 0; j < n; ++j) {
    std::int64_t holds = -1;  // the one non-empty virtual segment holding j
    for (std::int64_t t = 0; t < 40; ++t)
      if (r.vstart(t) <= j && j < r.vstart(t) + r.length_of(t)) holds = t;
    REQUIRE(holds >= 0);
    for (std::int64_t near = 0; near <= 41; ++near) {
      CAPTURE(j);
      CAPTURE(near);
      CHECK(segment_of(r, j, near) == holds);
    }
  }
}

TEST_CASE("lazy reads: a short BPERMUTE of a replication over one segment reads the physical copy") {
  // At most a quarter of the 20000 elements gathered, each found by its
  // virtual segment (machine::bpermute_replicated), searched from the one
  // read before: in order, in reverse, in a scattered order, and jumping
  // back and forth.
  const std::string one = "CONST INT (20000)\nMAKE_SEGDES\n";
  const std::string to_5000 = "CONST INT (5000)\nMAKE_SEGDES\n";
  const auto gather = [&](auto position) { return ints(5000, position) + one + to_5000 + "BPERMUTE FLOAT\n"; };
  for (const std::string& r : {r_vec, r2_vec}) {
    check_same(r + gather([](std::int64_t i) { return 4 * i + i % 3; }));
    check_same(r + gather([](std::int64_t i) { return 19999 - 4 * i; }));
    check_same(r + gather([](std::int64_t i) { return i * 7919 % 20000; }));
    check_same(r + gather([](std::int64_t i) { return i % 2 ? 19999 - i : i; }));
  }
  // The elements themselves: the reversed gather's first is R2[19999], the
  // last copy's 7.125.
  CHECK(output_of(main_of(with(r2_vec + gather([](std::int64_t i) { return 19999 - 4 * i; }), "")))
            .find("( 7.12500000000000e+00 ") == 0);
  // An index past the end is an error naming it and its position, as the
  // written-out BPERMUTE's does (in its own words).
  const std::string past = r2_vec + gather([](std::int64_t i) { return i == 4321 ? 20000 : i; });
  for (const std::string& f : {std::string(), write_top_out})
    CHECK(output_of(main_of(with(past, f))).find("index 20000 at position 4321 outside its") != std::string::npos);
}
