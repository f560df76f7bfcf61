// Tests of deferred FLOAT element-wise ops (lib/vcode/fused.hpp): each
// program is run once as written, where ops over a replication or a lazy
// DIST are kept as expressions, and once with every intermediate written
// out first (PAIR writes both its parts out), and must print the same.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "run_program.hpp"

using namespace vseg::vcode;
using namespace vseg::vcode::testing;

namespace {

// R: (0.3 1.7 -2.1 0.05) replicated 5000 times (NESL's DIST, INDEX,
// PERMUTE: virtual segments over one copy); L: a lazy DIST of four values
// over segments of 5000 (n-body's `b` beside its replicated bodies).
const std::string r_vec =
    "CONST FLOAT (0.3 1.7 -2.1 0.05)\nCONST INT (5000 5000 5000 5000)\nMAKE_SEGDES\nDIST FLOAT\n"
    "CONST INT (0 1 2 3)\nCONST INT (4 4 4 4)\nCONST INT (5000 5000 5000 5000)\nMAKE_SEGDES\nINDEX\n"
    "CONST INT (20000)\nMAKE_SEGDES\nPERMUTE FLOAT\nF\n";
const std::string l_vec = "CONST FLOAT (0.1 0.7 1.3 2.9)\nCONST INT (5000 5000 5000 5000)\nMAKE_SEGDES\nDIST FLOAT\nF\n";
const std::string one = "CONST FLOAT (1.0)\nCONST INT (20000)\nMAKE_SEGDES\nDIST FLOAT\n";
const std::string segments = "CONST INT (5000 5000 5000 5000)\nMAKE_SEGDES\n";

// n-body's element: d = L - R (shared by three readers), then
// R * d / (1.0 + d * d), 7 ops deep, left on the stack.
const std::string nbody_element = l_vec + r_vec + "- FLOAT\nF\nCOPY 1 0\nCOPY 1 0\n* FLOAT\nF\n" + one +
                                  "+ FLOAT\nF\nCPOP 1 1\n" + r_vec + "* FLOAT\nF\nCPOP 1 1\n/ FLOAT\nF\n";

}  // namespace

TEST_CASE("fused: n-body's expression over a replication gives the written-out results, reduced or not") {
  const std::vector<std::string> tails = {
      segments + "+_REDUCE FLOAT\n",  // each segment summed left to right, bit for bit
      segments + "*_REDUCE FLOAT\n",
      segments + "MAX_REDUCE FLOAT\n",
      segments + "MIN_REDUCE FLOAT\n",
      segments + "+_SCAN FLOAT\n",  // any other reader writes it out
      "",                           // printed
      "COPY 1 0\n* FLOAT\nF\n",     // 15 ops: past the bound, computed block by block
      "COPY 1 0\n" + segments + "+_REDUCE FLOAT\nCPOP 1 1\n" + segments + "MAX_REDUCE FLOAT\n",  // two readers
  };
  for (const std::string& tail : tails) {
    CAPTURE(tail);
    const std::string fused = output_of(main_of(with(nbody_element + tail, "")));
    CHECK(fused == output_of(main_of(with(nbody_element + tail, write_top_out))));
    CHECK(fused.find("error") == std::string::npos);
  }
  // The first element: (0.3 * (0.1 - 0.3)) / (1.0 + (0.1 - 0.3)^2).
  const double d = 0.1 - 0.3;
  char first[64];
  std::snprintf(first, sizeof first, "( %.14e ", 0.3 * d / (1.0 + d * d));
  CHECK(output_of(main_of(with(nbody_element, ""))).find(first) == 0);
}

TEST_CASE("fused: a short second operand and a bad descriptor are the same errors as when written out") {
  // L - R where R is one element short, and a reduction by 3 segments of 5000.
  const std::string short_r = "CONST FLOAT (0.5)\nCONST INT (19999)\nMAKE_SEGDES\nDIST FLOAT\nCOPY 1 0\nPAIR\nUNPAIR\nPOP 1 0\n";
  const std::string a = l_vec + short_r + "- FLOAT\nF\n";
  CHECK(without_line(output_of(main_of(with(a, "")))) == without_line(output_of(main_of(with(a, write_top_out)))));
  CHECK(output_of(main_of(with(a, ""))).find("vector length mismatch") != std::string::npos);
  const std::string b = nbody_element + "CONST INT (5000 5000 5000)\nMAKE_SEGDES\n+_REDUCE FLOAT\n";
  CHECK(without_line(output_of(main_of(with(b, "")))) == without_line(output_of(main_of(with(b, write_top_out)))));
  CHECK(output_of(main_of(with(b, ""))).find("the segment descriptor covers 15000") != std::string::npos);
}

TEST_CASE("fused: -m counts the operands a deferred op holds, not the elements it stands for") {
  // The 20000-element vectors written out need 20000 words each, three at
  // a time; fused, the sum holds its lazy operands: two replications of
  // about 10,000 words each (their 5000 virtual segments), shared by the
  // entries that hold d, and a DIST.
  const std::string sum = main_of(with(nbody_element + segments + "+_REDUCE FLOAT\n", ""));
  run_options small;
  small.memory_words = 40000;
  CHECK(output_of(sum, small) == output_of(sum));
  CHECK(output_of(main_of(with(nbody_element + segments + "+_REDUCE FLOAT\n", write_top_out)), small)
            .find("memory limit exceeded") != std::string::npos);
}

TEST_CASE("fused: x * x reads x once, so squaring three times stays within the bound") {
  // d = L - R (1 op), then d^2, d^4, d^8: 2, 3, 4 ops when a square reads
  // its operand once (15 counted twice: past the bound of 8, so d^8 would be
  // written out, 20000 words, which -m 15000 refuses).
  const std::string squares =
      main_of(with(l_vec + r_vec + "- FLOAT\n" + "COPY 1 0\n* FLOAT\nCOPY 1 0\n* FLOAT\nCOPY 1 0\n* FLOAT\n" +
                       segments + "+_REDUCE FLOAT\n",
                   ""));
  const std::string written = main_of(with(l_vec + r_vec + "- FLOAT\nF\n" +
                                               "COPY 1 0\n* FLOAT\nF\nCOPY 1 0\n* FLOAT\nF\nCOPY 1 0\n* FLOAT\nF\n" +
                                               segments + "+_REDUCE FLOAT\n",
                                           write_top_out));
  CHECK(output_of(squares) == output_of(written));
  run_options small;
  small.memory_words = 15000;
  CHECK(output_of(squares, small) == output_of(squares));
  CHECK(output_of(written, small).find("memory limit exceeded") != std::string::npos);
}

TEST_CASE("fused: a lazy DIST over short and empty segments reads each segment's value where it is") {
  // Segments of 0 to 12 elements (Delaunay's per-point DISTs), 20000 in all,
  // each holding its own number as a FLOAT, beside the replication R.
  std::string lengths = "CONST INT (";
  std::int64_t total = 0, count = 0;
  for (std::int64_t i = 0; total < 20000; ++i, ++count) {
    const std::int64_t len = std::min<std::int64_t>((i * 7) % 13, 20000 - total);
    lengths += std::to_string(len) + " ";
    total += len;
  }
  lengths += ")\nMAKE_SEGDES\n";
  const std::string values =
      "CONST FLOAT 1.0\nCONST SEGDES " + std::to_string(count) + "\nDIST FLOAT\nCONST SEGDES " + std::to_string(count) +
      "\n+_SCAN FLOAT\n";
  const std::string body = values + lengths + "DIST FLOAT\nF\n" + r_vec + "- FLOAT\nF\nCOPY 1 0\n* FLOAT\nF\n";
  const std::string fused = output_of(main_of(with(body, "")));
  CHECK(fused.find("error") == std::string::npos);
  CHECK(fused == output_of(main_of(with(body, write_top_out))));
  // The DIST as the second operand: R - L.
  const std::string second = r_vec + values + lengths + "DIST FLOAT\nF\n- FLOAT\nF\n";
  const std::string fused_second = output_of(main_of(with(second, "")));
  CHECK(fused_second.find("error") == std::string::npos);
  CHECK(fused_second == output_of(main_of(with(second, write_top_out))));
  // Segment 0 is empty; segment 1 (7 elements) holds 1.0: (1.0 - 0.3)^2 first.
  char first[64];
  std::snprintf(first, sizeof first, "( %.14e ", (1.0 - 0.3) * (1.0 - 0.3));
  CHECK(fused.find(first) == 0);
}
