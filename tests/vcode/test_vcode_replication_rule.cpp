// Tests of replications whose vsegids are a rule (lib/vcode/lazy.hpp's
// `replicated`, rule_*): NESL's copies of a nested vector, vertex-major
// after DIST/INDEX/PERMUTE and copy-major after SEGPERMUTE's flat PERMUTE
// (BFS's neighbours), read by a reduction, EXTRACT, BPERMUTE and an
// element-wise op. Each program runs once as written and once with the
// copies written out first (an element-wise OR of the value with itself),
// and must print the same; the rule is what keeps -m small.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "run_program.hpp"

using namespace vseg::vcode;
using namespace vseg::vcode::testing;

namespace {

// "(x x ... x)", n times.
std::string repeat(std::int64_t x, std::int64_t n) {
  std::string each(1, ' ');
  each += std::to_string(x);
  std::string s = "(";
  for (std::int64_t i = 0; i < n; ++i) s.append(each);
  s.push_back(')');
  return s;
}

// A uniform descriptor of n segments of len each.
std::string uniform(std::int64_t len, std::int64_t n) {
  return "CONST INT " + std::to_string(len) + "\nCONST INT " + std::to_string(n) + "\nMAKE_SEGDES\nDIST INT\nMAKE_SEGDES\n";
}

const std::string force = "COPY 1 0\nOR INT\n";

// The adjacency (1 2 3 | 4 5 6 | 7 8 9 | 10 11 12), f copies of each list,
// vertex-major (NESL's PRIM-DIST of a nested vector): DIST each element f
// times, INDEX starts e, strides 3 per list, PERMUTE over 4 segments of 3f.
std::string vertex_major(std::int64_t f, const std::string& then) {
  return "CONST INT (1 2 3 4 5 6 7 8 9 10 11 12)\nCONST INT " + repeat(f, 12) + "\nMAKE_SEGDES\nDIST INT\n" +
         "CONST INT (0 1 2 0 1 2 0 1 2 0 1 2)\nCONST INT " + repeat(3, 12) + "\nCONST INT " + repeat(f, 12) +
         "\nMAKE_SEGDES\nINDEX\nCONST INT " + repeat(3 * f, 4) + "\nMAKE_SEGDES\nPERMUTE INT\n" + then;
}

// The same copies copy-major (SEGPERMUTE's flat PERMUTE): list v's copy c
// goes to slot 4c + v, start 3 (4c + v), by an INDEX of stride 1 over the
// 4f lists.
std::string copy_major(std::int64_t f, const std::string& then) {
  return vertex_major(f, then) + "CONST INT (0 3 6 9)\nCONST INT (12 12 12 12)\nCONST INT " + repeat(f, 4) +
         "\nMAKE_SEGDES\nINDEX\nCONST INT 1\nCONST INT " + std::to_string(4 * f) + "\nMAKE_SEGDES\nDIST INT\n" +
         uniform(3, 4 * f) + "INDEX\nCONST INT " + std::to_string(12 * f) + "\nMAKE_SEGDES\nPERMUTE INT\n";
}

}  // namespace

TEST_CASE("replication rule: BFS's copies of a nested vector read as their written-out elements") {
  const std::int64_t f = 3000;  // 12,000 lists of 3: 36,000 elements, lazy
  const std::string reads[] = {
      uniform(3, 4 * f) + "+_REDUCE INT\n",                                     // fold_vs
      "CONST INT 2\nCONST INT " + std::to_string(4 * f) + "\nMAKE_SEGDES\nDIST INT\n" + uniform(3, 4 * f) +
          "EXTRACT INT\n",  // each list's last
      "CONST INT (5 7 35999 12 0)\nCONST INT " + std::to_string(12 * f) +
          "\nMAKE_SEGDES\nCONST INT 5\nMAKE_SEGDES\nBPERMUTE INT\n",  // a few, by search
      "CONST INT 1000\nCONST INT " + std::to_string(12 * f) + "\nMAKE_SEGDES\nDIST INT\n* INT\n",  // element-wise
  };
  for (const auto& read : reads) {
    CAPTURE(read);
    CHECK(output_of(main_of(vertex_major(f, "") + read)) == output_of(main_of(vertex_major(f, force) + read)));
    const std::string lazy = output_of(main_of(copy_major(f, "") + read));
    CHECK(lazy.find("error") == std::string::npos);
    CHECK(lazy == output_of(main_of(copy_major(f, force) + read)));
  }
  // Copy-major: the lists' sums 6 15 24 33, over and over; the last list's
  // last element 12; elements 5 7 35999 12 0 of 1 2 3 4 5 6 7 8 ... are
  // 6 8 12 1 1.
  const std::string sums = output_of(main_of(copy_major(f, "") + reads[0]));
  CHECK(sums.find("( 6 15 24 33 6 15 24 33 ") == 0);
  CHECK(sums.find(" 6 15 24 33 )") != std::string::npos);
  CHECK(output_of(main_of(copy_major(f, "") + reads[1])).find("( 3 6 9 12 3 6 ") == 0);
  CHECK(output_of(main_of(copy_major(f, "") + reads[2])).find("( 6 8 12 1 1 )") == 0);
  // Vertex-major: list 0's f copies first.
  CHECK(output_of(main_of(vertex_major(f, "") + reads[0])).find("( 6 6 6 6 ") == 0);
}

TEST_CASE("replication rule: a SEGPERMUTE that is not copy-major keeps the written vsegids") {
  // Slots reversed (list t to slot 4f - 1 - t): same elements as written out.
  const std::int64_t f = 3000;
  const std::string reversed =
      vertex_major(f, "") + "CONST INT " + std::to_string(12 * f - 3) + "\nCONST INT -3\nCONST INT " +
      std::to_string(4 * f) + "\nMAKE_SEGDES\nINDEX\nCONST INT 1\nCONST INT " +
      std::to_string(4 * f) + "\nMAKE_SEGDES\nDIST INT\n" + uniform(3, 4 * f) + "INDEX\nCONST INT " +
      std::to_string(12 * f) + "\nMAKE_SEGDES\nPERMUTE INT\n";
  const std::string read = uniform(3, 4 * f) + "+_REDUCE INT\n";
  const std::string out = output_of(main_of(reversed + read));
  CHECK(out == output_of(main_of(reversed + force + read)));
  CHECK(out.find("( 33 33 33 ") == 0);
}

TEST_CASE("replication rule: -m counts O(1) words for the copies' virtual segments") {
  // 40,000 copies of each list: 160,000 virtual segments, whose vsegids
  // and starts, stored, are 320,000 words per replication. The index the
  // program builds is 4f INTs (and its stride 1 written out): 160,000
  // words with every other vector, under 250,000.
  const std::int64_t f = 40000;
  run_options limited;
  limited.memory_words = 250000;
  const std::string out = output_of(main_of(copy_major(f, "") + uniform(3, 4 * f) + "+_REDUCE INT\n"), limited);
  CHECK(out.find("( 6 15 24 33 6 15 ") == 0);
}

TEST_CASE("replication rule: a uniform descriptor's LENGTHS, permuted, scanned, summed and gathered, as written out") {
  // 20,000 segments of 3: LENGTHS is a splat (uniform_lengths.cpp). Each op
  // runs on it as made and on it written out (PAIR writes its parts out).
  const std::int64_t n = 20000;
  const std::string lengths = uniform(3, n) + "LENGTHS\n";
  const std::string written = "COPY 1 0\nPAIR\nUNPAIR\nPOP 1 0\n";
  const std::string one = "CONST INT " + std::to_string(n) + "\nMAKE_SEGDES\n";
  // The index n - 1, n - 2, ..., 0 (a permutation), stored.
  const std::string reverse = "CONST INT " + std::to_string(n - 1) + "\nCONST INT -1\n" + one + "INDEX\n" + written;
  const std::string transpose = "CONST INT 0\nCONST INT 1\nCONST INT 400\nMAKE_SEGDES\nINDEX\n"
                                "CONST INT 400\nCONST INT 400\nMAKE_SEGDES\nDIST INT\n" + uniform(50, 400) + "INDEX\n";
  const std::string ops[] = {
      reverse + one + "PERMUTE INT\n",
      one + "+_SCAN INT\n",
      one + "+_REDUCE INT\n",
      one + "+_SCAN INT\n" + reverse + one + one + "BPERMUTE INT\n",
      // By a lazy transposition of 400 segments of 50 (SEGPERMUTE's index):
      // j / 50 + (j % 50) * 400, never written.
      transpose + one + "PERMUTE INT\n",
      one + "+_SCAN INT\n" + transpose + one + one + "BPERMUTE INT\n",
      // Not a permutation (0 twice), an index out of range: the plain path's errors.
      "CONST INT 0\nCONST INT 0\n" + one + "INDEX\n" + one + "PERMUTE INT\n",
      one + "+_SCAN INT\nCONST INT 5\nCONST INT 1\n" + one + "INDEX\n" + one + one + "BPERMUTE INT\n",
  };
  for (const auto& op : ops) {
    CAPTURE(op);
    CHECK(without_line(output_of(main_of(lengths + op))) == without_line(output_of(main_of(lengths + written + op))));
  }
  CHECK(output_of(main_of(lengths + ops[1])).find("( 0 3 6 9 ") == 0);
  CHECK(output_of(main_of(lengths + ops[2])) == "( 60000 )\n");
  CHECK(output_of(main_of(lengths + ops[3])).find("( 59997 59994 ") == 0);
  CHECK(output_of(main_of(lengths + ops[5])).find("( 0 1200 2400 ") == 0);  // 3 * (0, 400, 800, ...)
  CHECK(output_of(main_of(lengths + ops[6])).find("error") == 0);
  CHECK(output_of(main_of(lengths + ops[7])).find("error") == 0);
}

TEST_CASE("replication rule: -m counts a uniform descriptor's lengths as one INT") {
  // 1M segments of 3: LENGTHS, +_REDUCE (3M) and +_SCAN (a sequence) fit in
  // 1,000 words, where the lengths written out are 500,000.
  const std::string one = "CONST INT 1000000\nMAKE_SEGDES\n";
  run_options limited;
  limited.memory_words = 1000;
  const std::string lengths = uniform(3, 1000000) + "LENGTHS\n";
  CHECK(output_of(main_of(lengths + "COPY 1 0\n" + one + "+_REDUCE INT\nPOP 1 1\n"), limited) == "( 3000000 )\n");
  CHECK(output_of(main_of(lengths + one + "+_SCAN INT\nLENGTH INT\n"), limited) == "( 1000000 )\n");
}

TEST_CASE("replication rule: an INDEX of stride 1 whose starts are a lazy INDEX, read as written out") {
  // Starts 3 (4c + v) for list t = 5000 v + c (a lazy INDEX over 4 groups),
  // stride 1 over 20,000 lists of 3: kept as strided_lists (lazy.hpp) and
  // written out when read (here whole, and by an element-wise op).
  const std::string written = "COPY 1 0\nPAIR\nUNPAIR\nPOP 1 0\n";
  const auto lists = [&](const std::string& f) {
    return "CONST INT (0 3 6 9)\nCONST INT (12 12 12 12)\nCONST INT " + repeat(5000, 4) + "\nMAKE_SEGDES\nINDEX\n" +
           f + "CONST INT 1\nCONST INT 20000\nMAKE_SEGDES\nDIST INT\n" + uniform(3, 20000) + "INDEX\n";
  };
  const std::string plus = "CONST INT 7\nCONST INT 60000\nMAKE_SEGDES\nDIST INT\n+ INT\n";
  for (const std::string& read : {std::string(), plus}) {
    const std::string lazy = output_of(main_of(lists("") + read));
    CHECK(lazy == output_of(main_of(lists(written) + read)));
    CHECK(lazy.find(read.empty() ? "( 0 1 2 12 13 14 24 " : "( 7 8 9 19 20 21 31 ") == 0);
  }
}

TEST_CASE("replication rule: splat lengths scanned and summed over several segments, then extracted, as written out") {
  // The lengths of 20,000 segments of 3 over 400 segments of 50 (BFS's
  // ELT-INDICES over the copies): +_SCAN a lazy INDEX, +_REDUCE a splat,
  // EXTRACT from either without writing it; same output or error written out.
  const std::string written = "COPY 1 0\nPAIR\nUNPAIR\nPOP 1 0\n";
  const std::string lengths = uniform(3, 20000) + "LENGTHS\n";
  const std::string groups = uniform(50, 400);
  std::string at = "CONST INT (7 49 0";  // then 3, 4, ..., 49, 0, 1, ... (400 in all)
  for (int i = 3; i < 400; ++i) {
    at.push_back(' ');
    at.append(std::to_string(i % 50));
  }
  at.append(")\n");
  const std::string ops[] = {
      groups + "+_SCAN INT\n",
      groups + "+_REDUCE INT\n",
      groups + "+_SCAN INT\n" + at + groups + "EXTRACT INT\n",
      at + groups + "EXTRACT INT\n",
      "CONST INT 50\nCONST INT 400\nMAKE_SEGDES\nDIST INT\n" + groups + "EXTRACT INT\n",  // out of range: an error
  };
  for (const auto& op : ops) {
    CAPTURE(op);
    CHECK(without_line(output_of(main_of(lengths + op))) == without_line(output_of(main_of(lengths + written + op))));
  }
  CHECK(output_of(main_of(lengths + ops[0])).find("( 0 3 6 ") == 0);
  CHECK(output_of(main_of(lengths + ops[1])).find("( 150 150 ") == 0);
  CHECK(output_of(main_of(lengths + ops[2])).find("( 21 147 0 9 12 ") == 0);
  CHECK(output_of(main_of(lengths + ops[3])).find("( 3 3 3 ") == 0);
  CHECK(output_of(main_of(lengths + ops[4])).find("error") == 0);
}
