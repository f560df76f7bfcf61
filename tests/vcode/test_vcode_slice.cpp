// Tests of BPERMUTE by a flat INDEX sequence (start, start + 1, ...: what
// NESL's drop emits), which lib/vcode/gathered.cpp turns into a slice of the
// data without writing the index, and by a lazy segmented INDEX whose runs
// continue each other (radix's drop; lib/vcode/replication.cpp,
// bpermute_by_index): each program is run once as written and
// once with the index (or the data) written out first, and must print the
// same, or fail with the same error.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "run_program.hpp"

using namespace vseg::vcode;
using namespace vseg::vcode::testing;

namespace {

// src's standard output, or "error: " and the error's text without its line
// (the programs that write a value out are longer).
std::string printed(const std::string& src) { return without_line(output_of(src)); }

// Every "TY" in s replaced by ty.
std::string typed(std::string s, const std::string& ty) {
  for (std::size_t at = s.find("TY"); at != std::string::npos; at = s.find("TY")) s.replace(at, 2, ty);
  return s;
}

// Every "CAST\n" in s replaced by I_TO_F for FLOAT, removed for INT.
std::string cast(std::string s, const std::string& ty) {
  for (std::size_t at = s.find("CAST\n"); at != std::string::npos; at = s.find("CAST\n"))
    s.replace(at, 5, ty == "FLOAT" ? "I_TO_F\n" : "");
  return s;
}

// The data D over S, one segment of 100000, left as `S D`:
// stored: 100 + 3i, written out (an INDEX that long is a sequence, so OR
// with itself writes it); gathered: a BPERMUTE of 1000 such values by
// (5 + 7i) mod 1000, deferred (gathered.hpp); shared_written: the same
// gather, of which a copy was written out (its elements kept in the form).
std::string data_of(const std::string& kind, const std::string& ty) {
  const std::string to_ty = ty == "FLOAT" ? "I_TO_F\n" : "";
  const std::string stored = "CONST INT (100)\nCONST INT (3)\nCOPY 1 2\nINDEX\nCOPY 1 0\nOR INT\n" + to_ty;
  if (kind == "stored") return "CONST INT (100000)\nMAKE_SEGDES\n" + stored;
  std::string g = "CONST INT (1000)\nMAKE_SEGDES\n" + stored +
                  "CONST INT (100000)\nMAKE_SEGDES\nCONST INT (5)\nCONST INT (7)\nCOPY 1 2\nINDEX\n"
                  "CONST INT (1000)\nCOPY 1 2\nDIST INT\n%\n"  // S0 D0 S X0
                  "COPY 1 2\nCOPY 1 1\nCOPY 1 5\nCOPY 1 4\nBPERMUTE " + ty + "\n"  // S0 D0 S X0 G
                  "CPOP 1 1\nPOP 1 0\n";                                            // S0 D0 S G
  if (kind == "shared_written") g += "COPY 1 0\n" + write_top_out + "POP 1 0\n";
  return g;
}

// `S D`, then the index `start + step * j` over T, n elements (a flat INDEX,
// written out when force_index), then BPERMUTE D by it: `S D T X Y`, then use.
std::string text_of(const std::string& kind, const std::string& ty, int start, int step, int n,
                    const std::string& force_data, const std::string& force_index, const std::string& use) {
  return "FUNC MAIN\n" + data_of(kind, ty) + force_data + "CONST INT (" + std::to_string(n) +
         ")\nMAKE_SEGDES\nCONST INT (" + std::to_string(start) + ")\nCONST INT (" + std::to_string(step) +
         ")\nCOPY 1 2\nINDEX\n" + force_index + "COPY 1 2\nCOPY 1 1\nCOPY 1 5\nCOPY 1 4\nBPERMUTE " + ty + "\n" +
         cast(typed(use, ty), ty) + "RET\n";
}

// A VCODE vector literal: "(a b c)".
std::string literal(const std::vector<int>& xs) {
  std::string s = "(";
  for (const int x : xs) {
    if (s.size() > 1) s += ' ';
    s += std::to_string(x);
  }
  s += ')';
  return s;
}

// `S D`, then U (one segment of the runs' total length) and the INDEX X of
// the given runs (segment t: starts[t], starts[t] + strides[t], ... for
// lengths[t] elements; a lazy `affine` INDEX, written out when
// force_index), then BPERMUTE D by X from S into U: `S D U X Y`, then use.
std::string runs_text(const std::string& kind, const std::string& ty, const std::vector<int>& lengths,
                      const std::vector<int>& starts, const std::vector<int>& strides,
                      const std::string& force_index, const std::string& use) {
  int total = 0;
  for (const int len : lengths) total += len;
  return "FUNC MAIN\n" + data_of(kind, ty) + "CONST INT (" + std::to_string(total) + ")\nMAKE_SEGDES\n" +
         "CONST INT " + literal(starts) + "\nCONST INT " + literal(strides) + "\nCONST INT " + literal(lengths) +
         "\nMAKE_SEGDES\nINDEX\n" + force_index + "COPY 1 2\nCOPY 1 1\nCOPY 1 5\nCOPY 1 4\nBPERMUTE " + ty +
         "\n" + cast(typed(use, ty), ty) + "RET\n";
}

// What is done with the BPERMUTE's result Y (on top of `S D T X Y`).
std::vector<std::string> uses_of_y() {
  // U: a segment of 50, Q: (1 + 401k) mod 60000 over U; a BPERMUTE by Q
  // reads the slice (of a deferred gather: composes its sliced index);
  // every slice below has more than 60000 elements.
  const std::string by_q = "CONST INT (50)\nMAKE_SEGDES\nCONST INT (1)\nCONST INT (401)\nCOPY 1 2\nINDEX\n"
                           "CONST INT (60000)\nCOPY 1 2\nDIST INT\n%\n"  // ... Y U Q
                           "COPY 1 2\nCOPY 1 1\nCOPY 1 6\nCOPY 1 4\nBPERMUTE TY\n";
  return {
      "",                                   // Y itself
      "COPY 1 0\nCOPY 1 0\n+ TY\n* TY\n",  // Y * (Y + Y), read block by block
      by_q,
      // D and X dropped: Y alone holds its buffer, and + 1 may write over it.
      "CPOP 1 3\nPOP 1 0\nCPOP 1 1\nPOP 1 0\nCONST INT (1)\nCOPY 1 2\nDIST INT\nCAST\n+ TY\n",
  };
}

}  // namespace

TEST_CASE("slice: BPERMUTE by a flat INDEX sequence gives the elements the written-out index gives") {
  const std::vector<std::string> uses = uses_of_y();
  for (const std::string kind : {"stored", "gathered", "shared_written"}) {
    for (const std::string ty : {"INT", "FLOAT"}) {
      for (const std::string& use : uses) {
        CAPTURE(kind);
        CAPTURE(ty);
        CAPTURE(use);
        // The last 69993 of 100000 (a drop; 30007 is no multiple of the
        // gathered D's period, 1000), and the whole (an INDEX of
        // 2^16 elements or more is a sequence).
        for (const auto& [start, n] : {std::pair{30007, 69993}, std::pair{0, 100000}}) {
          const std::string sliced = printed(text_of(kind, ty, start, 1, n, "", "", use));
          CHECK(sliced == printed(text_of(kind, ty, start, 1, n, "", write_top_out, use)));
          if (kind == "stored") CHECK(sliced == printed(text_of(kind, ty, start, 1, n, write_top_out, write_top_out, use)));
          CHECK(sliced.find("error") == std::string::npos);
          CHECK(sliced.size() > 200);
        }
      }
    }
  }
  // Y's first elements for the stored D: 100 + 3 (30007 + j).
  const std::string y = printed(text_of("stored", "INT", 30007, 1, 69993, "", "", ""));
  CHECK(y.find("( 90121 90124 90127 ") != std::string::npos);
  // For the gathered D: 100 + 3 ((5 + 7 (30007 + j)) mod 1000).
  const std::string g = printed(text_of("gathered", "INT", 30007, 1, 69993, "", "", ""));
  CHECK(g.find("( " + std::to_string(100 + 3 * ((5 + 7 * 30007) % 1000)) + " " +
               std::to_string(100 + 3 * ((5 + 7 * 30008) % 1000)) + " ") != std::string::npos);
}

TEST_CASE("slice: an index sequence past the data's end, or not of step 1, is BPERMUTE's as written out") {
  for (const std::string kind : {"stored", "gathered"}) {
    CAPTURE(kind);
    // 70000 from 30001: the last index is 100000, one past the end.
    const std::string past = printed(text_of(kind, "INT", 30001, 1, 70000, "", "", ""));
    CHECK(past == printed(text_of(kind, "INT", 30001, 1, 70000, "", write_top_out, "")));
    CHECK(past.find("index 100000 at position 69999") != std::string::npos);
    // A negative start.
    const std::string negative = printed(text_of(kind, "INT", -1, 1, 70000, "", "", ""));
    CHECK(negative == printed(text_of(kind, "INT", -1, 1, 70000, "", write_top_out, "")));
    CHECK(negative.find("index -1 at position 0") != std::string::npos);
    // Steps -1 and 0 (the last 70000 reversed; the last element repeated).
    for (const int step : {-1, 0}) {
      const std::string other = printed(text_of(kind, "FLOAT", 99999, step, 70000, "", "", ""));
      CHECK(other == printed(text_of(kind, "FLOAT", 99999, step, 70000, "", write_top_out, "")));
      CHECK(other.find("error") == std::string::npos);
    }
  }
}

TEST_CASE("slice: BPERMUTE by a segmented INDEX whose runs continue each other, into one segment") {
  // Radix's drop: an INDEX of several segments of stride 1, each starting
  // where the last ended, gathering from one segment into one. It is the
  // slice [30000, 100000) of D; an empty segment (its start and stride
  // anything) does not break the run.
  struct runs {
    std::vector<int> lengths, starts, strides;
  };
  const std::vector<runs> contiguous = {
      {{30000, 40000}, {30000, 60000}, {1, 1}},
      {{30000, 0, 39999, 1}, {30000, 5, 60000, 99999}, {1, 1, 1, 7}},  // a run of one element: any stride
      {{0, 30000, 40000}, {7, 30000, 60000}, {3, 1, 1}},              // the first segment empty
  };
  // Every use of Y on stored data; Y itself otherwise (the gathered data
  // is written out before it is sliced, so it is stored data then).
  const std::vector<std::string> uses = uses_of_y();
  for (const std::string kind : {"stored", "gathered", "shared_written"}) {
    for (const std::string ty : {"INT", "FLOAT"}) {
      for (std::size_t u = 0; u < (kind == "stored" ? uses.size() : 1); ++u) {
        for (const runs& r : contiguous) {
          if (&r != &contiguous[0] && (kind != "stored" || u > 0)) continue;
          CAPTURE(kind);
          CAPTURE(ty);
          CAPTURE(uses[u]);
          CAPTURE(r.lengths.size());
          const std::string sliced = printed(runs_text(kind, ty, r.lengths, r.starts, r.strides, "", uses[u]));
          CHECK(sliced == printed(runs_text(kind, ty, r.lengths, r.starts, r.strides, write_top_out, uses[u])));
          CHECK(sliced.find("error") == std::string::npos);
          CHECK(sliced.size() > 200);
        }
      }
    }
  }
  // Y's first elements for the stored D: 100 + 3 (30000 + j).
  const std::string y = printed(runs_text("stored", "INT", {30000, 40000}, {30000, 60000}, {1, 1}, "", ""));
  CHECK(y.find("( 90100 90103 90106 ") != std::string::npos);
  // Runs that do not continue each other (a gap of one, a stride of 2, a
  // step back) are gathered as written; runs past the end give BPERMUTE's
  // error.
  const std::vector<runs> gathered = {
      {{30000, 39999}, {30000, 60001}, {1, 1}},
      {{30000, 20000}, {30000, 60000}, {1, 2}},
      {{30000, 40000}, {30000, 59999}, {1, 1}},
  };
  for (const runs& r : gathered) {
    CAPTURE(r.starts[1]);
    CAPTURE(r.strides[1]);
    const std::string out = printed(runs_text("stored", "FLOAT", r.lengths, r.starts, r.strides, "", ""));
    CHECK(out == printed(runs_text("stored", "FLOAT", r.lengths, r.starts, r.strides, write_top_out, "")));
    CHECK(out.find("error") == std::string::npos);
  }
  const std::string past = printed(runs_text("stored", "INT", {30000, 40000}, {30001, 60001}, {1, 1}, "", ""));
  CHECK(past == printed(runs_text("stored", "INT", {30000, 40000}, {30001, 60001}, {1, 1}, write_top_out, "")));
  CHECK(past.find("index 100000 at position 69999") != std::string::npos);
}
