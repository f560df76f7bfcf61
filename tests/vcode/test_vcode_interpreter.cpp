// Tests of vseg::vcode::run on small programs: the output format, stack
// operations, segmented operations, RAND's sequence and run-time errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "run_program.hpp"

using namespace vseg::vcode;
using namespace vseg::vcode::testing;

namespace {

struct outcome {
  std::string out, err;
  run_result result;
};

// Runs src with stdout and stderr captured in temporary files.
outcome run_text(const std::string& src, run_options opt = {}) {
  opt.out = std::tmpfile();
  opt.err = std::tmpfile();
  REQUIRE(opt.out != nullptr);
  REQUIRE(opt.err != nullptr);
  outcome o;
  try {
    o.result = run(parse(src), opt);
  } catch (...) {
    std::fclose(opt.out);
    std::fclose(opt.err);
    throw;
  }
  o.out = slurp(opt.out);
  o.err = slurp(opt.err);
  return o;
}

}  // namespace

TEST_CASE("run: the final stack dump in NESL's format") {
  const auto o = run_text(main_of(
      "CONST INT (1 -2)\nCONST BOOL (T F)\nCONST FLOAT 1.5\nCONST SEGDES (2 0 1)\nCONST INT ()\n"));
  CHECK(o.out == "( 1 -2 )\n( T F )\n( 1.50000000000000e+00 )\n[ 2 0 1 ]\n( )\n");
}

TEST_CASE("run: INT wraps at 32 bits and shifts take the count mod 32") {
  const auto o = run_text(main_of(
      "CONST INT 2147483647\nCONST INT 1\n+ INT\n"
      "CONST INT 65536\nCONST INT 65536\n* INT\n"
      "CONST INT 1\nCONST INT 33\nLSHIFT\n"
      "CONST INT -7\nCONST INT 2\n%\n"
      "CONST FLOAT -2.7\nROUND\n"));
  CHECK(o.out == "( -2147483648 )\n( 0 )\n( 2 )\n( -1 )\n( -2 )\n");
}

TEST_CASE("run: COPY, POP, CPOP address the stack from the top") {
  // stack 0 1 2 3 (3 on top)
  const std::string push = "CONST INT 0\nCONST INT 1\nCONST INT 2\nCONST INT 3\n";
  CHECK(run_text(main_of(push + "COPY 2 1\n")).out == "( 0 )\n( 1 )\n( 2 )\n( 3 )\n( 1 )\n( 2 )\n");
  CHECK(run_text(main_of(push + "POP 2 1\n")).out == "( 0 )\n( 3 )\n");
  CHECK(run_text(main_of(push + "CPOP 2 1\n")).out == "( 0 )\n( 3 )\n( 1 )\n( 2 )\n");
}

TEST_CASE("run: a run of stack moves gives what the moves one by one give") {
  // Runs of moves are done at once (plan_shuffle); traced, they go one by
  // one. Every run below must leave the same stack both ways.
  const std::string push = "CONST INT 0\nCONST INT 1\nCONST INT 2\nCONST INT 3\n";
  const char* runs[] = {
      "COPY 2 1\nPOP 1 0\nCPOP 1 2\n",
      "CPOP 1 3\nCPOP 1 3\nCPOP 1 3\nCPOP 1 3\n",  // four rotations: the stack as it was
      "COPY 1 0\nCOPY 2 0\nPOP 2 2\nCPOP 2 1\nCOPY 3 0\n",
      "POP 1 3\nCOPY 1 2\nCOPY 1 0\nPOP 0 2\n",
      "COPY 4 0\nPOP 4 4\n",                        // copies that replace the originals
  };
  for (const char* r : runs) {
    INFO(r);
    const std::string src = main_of(push + r);
    run_options traced;
    traced.trace = true;
    traced.out = std::tmpfile();
    traced.err = std::tmpfile();
    run(parse(src), traced);
    CHECK(run_text(src).out == slurp(traced.out));
    std::fclose(traced.err);
  }
  CHECK(run_text(main_of(push + "COPY 2 1\nPOP 1 0\nCPOP 1 2\n")).out == "( 0 )\n( 1 )\n( 3 )\n( 1 )\n( 2 )\n");
}

TEST_CASE("run: CALL, IF/ELSE and EXIT") {
  const auto o = run_text(
      "FUNC MAIN\nCONST BOOL F\nIF\nCONST INT 1\nELSE\nCALL TWO\nENDIF\nRET\n"
      "FUNC TWO\nCONST INT 2\nRET\n");
  CHECK(o.out == "( 2 )\n");
  const auto e = run_text(main_of("CONST INT 1\nEXIT\nCONST INT 2\n"));
  CHECK(e.out.empty());
  CHECK(e.result.exited);
}

TEST_CASE("run: segmented scans, reductions and descriptors") {
  const std::string data = "CONST INT (1 2 3 4 5)\nCONST SEGDES (2 0 3)\n";
  CHECK(run_text(main_of(data + "+_SCAN INT\n")).out == "( 0 1 0 3 7 )\n");
  CHECK(run_text(main_of(data + "+_REDUCE INT\n")).out == "( 3 0 12 )\n");
  CHECK(run_text(main_of(data + "MAX_REDUCE INT\n")).out == "( 2 -2147483648 5 )\n");
  CHECK(run_text(main_of("CONST INT (2 0 3)\nMAKE_SEGDES\nCOPY 1 0\nLENGTHS\n")).out == "[ 2 0 3 ]\n( 2 0 3 )\n");
}

TEST_CASE("run: permutations with local indices") {
  const std::string seg = "CONST SEGDES (2 3)\n";
  // PERMUTE: data index segd
  CHECK(run_text(main_of("CONST INT (10 20 30 40 50)\nCONST INT (1 0 2 0 1)\n" + seg + "PERMUTE INT\n")).out ==
        "( 20 10 40 50 30 )\n");
  // BPERMUTE: data index src_segd dst_segd
  CHECK(run_text(main_of("CONST INT (10 20 30 40 50)\nCONST INT (1 2 2)\n" + seg +
                         "CONST SEGDES (1 2)\nBPERMUTE INT\n"))
            .out == "( 20 50 50 )\n");
  // DPERMUTE: data index defaults src_segd dst_segd
  CHECK(run_text(main_of("CONST INT (1 2)\nCONST INT (1 0)\nCONST INT (7 7 7 7)\nCONST SEGDES (1 1)\n"
                         "CONST SEGDES (2 2)\nDPERMUTE INT\n"))
            .out == "( 7 1 2 7 )\n");
  // EXTRACT and REPLACE: one element per segment
  CHECK(run_text(main_of("CONST INT (10 20 30 40 50)\nCONST INT (1 2)\n" + seg + "EXTRACT INT\n")).out ==
        "( 20 50 )\n");
  CHECK(run_text(main_of("CONST INT (10 20 30 40 50)\nCONST INT (1 2)\nCONST INT (0 0)\n" + seg +
                         "REPLACE INT\n"))
            .out == "( 10 0 30 40 0 )\n");
  // PACK leaves the data and the new descriptor
  CHECK(run_text(main_of("CONST INT (1 2 3 4 5)\nCONST BOOL (T F F T T)\n" + seg + "PACK INT\n")).out ==
        "( 1 4 5 )\n[ 1 2 ]\n");
  // PACKs by shared flags (the flags keep their plan, pack_plan): over the
  // same descriptor, over another of the same size (the plan must not be
  // reused: [ 1 3 ], not [ 2 2 ]), and over the first again.
  CHECK(run_text(main_of("CONST BOOL (T F T T F T)\nCONST SEGDES (3 3)\nCONST INT (1 2 3 4 5 6)\nCOPY 1 2\n"
                         "COPY 1 2\nPACK INT\nCONST BOOL (T T F F T T)\nCOPY 1 4\nCOPY 1 4\nPACK BOOL\n"
                         "CONST INT (10 20 30 40 50 60)\nCOPY 1 6\nCONST SEGDES (2 4)\nPACK INT\n"
                         "CONST INT (7 8 9 10 11 12)\nCOPY 1 8\nCOPY 1 8\nPACK INT\n"))
            .out == "( T F T T F T )\n[ 3 3 ]\n( 1 3 4 6 )\n[ 2 2 ]\n( T F F T )\n[ 2 2 ]\n( 10 30 40 60 )\n"
                    "[ 1 3 ]\n( 7 9 10 12 )\n[ 2 2 ]\n");
  // INDEX: start stride segd; DIST: value segd; RANK_UP: data segd
  CHECK(run_text(main_of("CONST INT (5 0)\nCONST INT (2 -1)\n" + seg + "INDEX\n")).out == "( 5 7 0 -1 -2 )\n");
  CHECK(run_text(main_of("CONST INT (8 9)\n" + seg + "DIST INT\n")).out == "( 8 8 9 9 9 )\n");
  CHECK(run_text(main_of("CONST INT (3 1 2 2 1)\n" + seg + "RANK_UP INT\n")).out == "( 1 0 1 2 0 )\n");
  CHECK(run_text(main_of("CONST INT (3 1 2 2 1)\n" + seg + "RANK_DOWN INT\n")).out == "( 0 1 0 1 2 )\n");
}

TEST_CASE("run: RAND gives glibc's unseeded lrand48 sequence, mod the bound") {
  // lrand48 from the zero state: 0, 2116118, 89401895, ...
  const auto o = run_text(main_of("CONST INT (1000000000 1000000000 1000000000)\nRAND\n"));
  CHECK(o.out == "( 0 2116118 89401895 )\n");
  // A long vector is generated in parallel blocks: it must equal the serial sequence.
  const auto big = run_text(main_of("CONST INT 100000\nCONST SEGDES 40000\nDIST INT\nRAND\n"
                                    "CONST INT 39999\nCONST SEGDES 40000\nEXTRACT INT\n"));
  unsigned long long x = 0;
  long long last = 0;
  for (int i = 0; i < 40000; ++i) {
    x = (0x5DEECE66DULL * x + 0xB) & ((1ULL << 48) - 1);
    last = static_cast<long long>(x >> 17) % 100000;
  }
  CHECK(big.out == "( " + std::to_string(last) + " )\n");
}

TEST_CASE("run: WRITE goes to the error stream and leaves a status") {
  const auto o = run_text(main_of("CONST CHAR \"hi\n\"\nWRITE CHAR\nCONST INT (1 2)\nWRITE INT\n"));
  CHECK(o.err == "hi\n( 1 2 )\n");
  CHECK(o.out == "( )\n( T )\n( )\n( T )\n");
}

TEST_CASE("run: every operation short of arguments is a stack underflow, whatever its fast paths read") {
  // Each operation runs on k = 0..6 values; the values are lazy DISTs
  // (20,000 INTs), which send operations down their lazy paths. Every run
  // either finishes or throws vcode::error (a crash fails the binary), and
  // the k that underflow are 0..arity-1: a path that reads a value before
  // checking the depth (PACK's lazy path once did) crashes or breaks this.
  const std::string lazy = "CONST INT 3\nCONST SEGDES 20000\nDIST INT\n";
  const char* ops[] = {"PACK INT",      "PERMUTE INT",  "DPERMUTE INT", "FPERMUTE INT", "BPERMUTE INT",
                       "BFPERMUTE INT", "DFPERMUTE INT", "EXTRACT INT", "REPLACE INT",  "DIST INT",
                       "INDEX",         "RANK_UP INT",  "SELECT INT",   "+_SCAN INT",   "+_REDUCE INT",
                       "+ INT",         "NOT INT",      "LENGTHS",      "LENGTH INT",   "MAKE_SEGDES",
                       "RSHIFT",        "B_TO_I",       "I_TO_F",       "RAND"};
  for (const char* op : ops) {
    CAPTURE(op);
    int underflows = 0;
    bool past_arity = false;
    for (int k = 0; k <= 6; ++k) {
      std::string body;
      for (int i = 0; i < k; ++i) body += lazy;
      bool underflow = false;
      try {
        run_text(main_of(body + op + "\n"));
      } catch (const error& e) {
        underflow = std::string(e.what()).find("stack underflow") != std::string::npos;
      }
      if (underflow) {
        CHECK_FALSE(past_arity);  // no underflow with more values than a run that had enough
        ++underflows;
      } else {
        past_arity = true;
      }
    }
    CHECK(underflows >= 1);  // with no value every operation here underflows
    CHECK(past_arity);       // and with 6 values none does
  }
}

TEST_CASE("run: run-time errors name the line and never crash") {
  auto line_of = [](const std::string& src) {
    try {
      run_text(src);
    } catch (const error& e) {
      return e.line();
    }
    return 0;
  };
  CHECK(line_of(main_of("POP 1 0\n")) == 2);                                              // underflow
  // The third move of a run of stack moves underflows: its own line.
  CHECK(line_of(main_of("CONST INT 1\nCONST INT 2\nCOPY 1 1\nPOP 2 0\nCPOP 1 1\n")) == 6);
  CHECK(line_of(main_of("CONST INT 1\nCONST FLOAT 1.0\n+ INT\n")) == 4);                  // wrong type
  CHECK(line_of(main_of("CONST INT (1 2)\nCONST INT (1)\n+ INT\n")) == 4);                // length
  CHECK(line_of(main_of("CONST INT (1)\nCONST INT (5)\nCONST SEGDES 1\nPERMUTE INT\n")) == 5);
  CHECK(line_of(main_of("CONST INT 1\nCONST INT 0\n/ INT\n")) == 4);                      // division
  CHECK(line_of(main_of("CONST INT 1\nIF\nENDIF\n")) == 3);                               // IF on INT
  CHECK(line_of(main_of("CONST INT (1 -1)\nMAKE_SEGDES\n")) == 3);                        // negative length
  run_options small;
  small.memory_words = 10;
  small.out = std::tmpfile();
  CHECK_THROWS_AS(run(parse(main_of("CONST INT 7\nCONST SEGDES 100\nDIST INT\n")), small), error);
  std::fclose(small.out);
  // -m inside a run of stack moves: 60 INTs are 30 words; under a limit of
  // 70 the second COPY fails on its own line, though the run's POP would
  // bring the stack back to 30.
  run_options seventy;
  seventy.memory_words = 70;
  seventy.out = std::tmpfile();
  int line = 0;
  try {
    run(parse(main_of("CONST INT 1\nCONST SEGDES 60\nDIST INT\nCOPY 1 0\nCOPY 1 0\nPOP 2 0\n")), seventy);
  } catch (const error& e) {
    line = e.line();
  }
  CHECK(line == 6);
  std::fclose(seventy.out);
}

TEST_CASE("run: -m stops an INDEX, DIST, RAND or splat before it allocates its result") {
  // Each result would be 2^31 INTs (8 GiB): with -m 1000 the op must fail
  // at once, naming the limit, before anything is allocated or filled.
  const std::string huge = "CONST INT 2147483647\nMAKE_SEGDES\n";
  const std::string two_huge = "CONST INT (1073741824 1073741823)\nMAKE_SEGDES\n";
  const char* programs[] = {
      "CONST INT 0\nCONST INT 1\n",           // INDEX over one segment
      "CONST INT (0 0)\nCONST INT (1 1)\n",   // INDEX over two
      "CONST INT (7 8)\n",                     // DIST over two segments: no splat
      "CONST INT 7\n",                         // DIST over one: a splat, then +_SCAN needs it written
      "CONST INT 7\n",                         // RAND with a splat bound (found by fuzz/vcode_run_fuzzer)
  };
  const std::string tails[] = {"INDEX\n", "INDEX\n", "DIST INT\n", "DIST INT\n" + huge + "+_SCAN INT\n",
                               "DIST INT\nRAND\n"};
  const std::string descs[] = {huge, two_huge, two_huge, huge, huge};
  for (int k = 0; k < 5; ++k) {
    INFO(k);
    run_options small;
    small.memory_words = 1000;
    small.out = std::tmpfile();
    small.err = std::tmpfile();
    const std::string src = main_of(std::string(programs[k]) + descs[k] + tails[k]);
    try {
      run(parse(src), small);
      FAIL("no error");
    } catch (const error& e) {
      // "needs": the check before the allocation, which names the result's size.
      CHECK(std::string(e.what()).find("memory limit exceeded") != std::string::npos);
      CHECK(std::string(e.what()).find("needs") != std::string::npos);
    }
    std::fclose(small.out);
    std::fclose(small.err);
  }
}

TEST_CASE("run: DIST of a scalar over a big segment is a splat that writes no elements") {
  // X = 70000 copies of 3, once as a DIST (a splat: value::splat) and once
  // as an INDEX with stride 0 over two segments (a real vector: only INDEX
  // over one segment makes a splat). Every use must print the same.
  const std::string seg = "CONST INT 70000\nMAKE_SEGDES\n";  // S
  const std::string by_dist = "CONST INT 3\nCOPY 1 1\nDIST INT\n";                   // S X
  const std::string by_index = "CONST INT (3 3)\nCONST INT (0 0)\nCONST SEGDES (35000 35000)\nINDEX\n";  // S X
  const std::string with_iota = "CONST INT 0\nCONST INT 1\nCOPY 1 3\nINDEX\n";     // S X I, I = 0 1 2 ...
  const char* uses[] = {
      "COPY 1 1\nCOPY 1 1\n+ INT\nCOPY 1 3\n+_REDUCE INT\n",                // sum of X + I
      "COPY 1 0\nCOPY 1 2\n- INT\nCOPY 1 3\n+_REDUCE INT\n",                // sum of I - X
      "COPY 1 1\nCOPY 1 0\n* INT\nCOPY 1 3\n+_REDUCE INT\n",                // X * X: both splats
      "COPY 1 1\nI_TO_F\nCOPY 1 3\n+_REDUCE FLOAT\n",                        // a unary op
      "COPY 1 1\nLENGTH INT\n",                                               // its length
      "COPY 1 1\nCOPY 1 0\nPAIR\nUNPAIR\n- INT\nCOPY 1 3\n+_REDUCE INT\n",  // through a pair
      "COPY 1 1\nCOPY 1 0\nCOPY 1 4\n+_SCAN INT\n+ INT\nCOPY 1 3\n+_REDUCE INT\n",  // X + scan X
  };
  for (const char* use : uses) {
    INFO(use);
    const auto splat = run_text(main_of(seg + by_dist + with_iota + use));
    const auto real = run_text(main_of(seg + by_index + with_iota + use));
    CHECK(splat.out == real.out);
  }
  CHECK(run_text(main_of(seg + by_dist + with_iota + uses[2] + "POP 3 1\n")).out == "( 630000 )\n");
  CHECK(run_text(main_of(seg + by_dist + with_iota + uses[4] + "POP 3 1\n")).out == "( 70000 )\n");
  // The final dump prints a splat as its elements.
  std::string threes = "(";
  for (int i = 0; i < 70000; ++i) threes += " 3";
  threes += " )\n";
  CHECK(run_text(main_of(seg + by_dist + "POP 1 1\n")).out == threes);
  // A splat holds one element: 70000 INTs fit in 100 words only as a splat.
  run_options small;
  small.memory_words = 100;
  small.out = std::tmpfile();
  small.err = std::tmpfile();
  CHECK_NOTHROW(run(parse(main_of(seg + by_dist + "COPY 1 0\n+ INT\nPOP 1 1\nPOP 1 0\n")), small));
  CHECK_THROWS_AS(run(parse(main_of(seg + by_index)), small), error);
  std::fclose(small.out);
  std::fclose(small.err);
  // A shorter later argument is a length mismatch, as for any vector; a
  // longer later splat is used by its prefix, as any longer vector is.
  CHECK_THROWS_WITH_AS(run_text(main_of(seg + by_dist + "CONST INT (1 2)\n+ INT\n")),
                       doctest::Contains("vector length mismatch"), error);
  CHECK(run_text(main_of(seg + by_dist + "CONST INT (1 2)\nCPOP 1 1\n+ INT\n")).out == "[ 70000 ]\n( 4 5 )\n");
}

TEST_CASE("run: INDEX over a big segment is a lazy sequence, and PERMUTE of it an inverse permutation") {
  // The same programs with I = INDEX over one segment of 70000 (a splat with
  // a step) and over two segments (a real vector) must print the same.
  const std::string seg = "CONST INT 70000\nMAKE_SEGDES\n";                                         // S
  const std::string lazy_iota = "CONST INT 0\nCONST INT 1\nCOPY 1 2\nINDEX\n";                       // S I
  const std::string real_iota = "CONST INT (0 35000)\nCONST INT (1 1)\nCONST SEGDES (35000 35000)\nINDEX\n";
  const std::string lazy_seq = "CONST INT 5\nCONST INT -3\nCOPY 1 3\nINDEX\n";                       // S I Y
  const std::string real_seq = "CONST INT (5 -104995)\nCONST INT (-3 -3)\nCONST SEGDES (35000 35000)\nINDEX\n";
  // P = (I * 7919) mod 70000, a permutation (7919 is prime to 70000), made
  // from I + 0, which is written out, so that P is a plain vector.
  const std::string perm = "COPY 1 1\nCONST INT 0\nCOPY 1 4\nDIST INT\n+ INT\n"
                           "CONST INT 7919\nCOPY 1 4\nDIST INT\n* INT\n"
                           "CONST INT 70000\nCOPY 1 4\nDIST INT\n%\n";                         // S I Y P
  const std::string inverse = "COPY 1 2\nCOPY 1 1\nCOPY 1 5\nPERMUTE INT\n";                      // S I Y P Q
  const std::string uses[] = {
      inverse,                                                 // the positions permuted: Q, the inverse of P
      "COPY 1 1\nCOPY 1 1\nCOPY 1 5\nPERMUTE INT\n",          // 5, 2, -1, ... permuted
      inverse + "COPY 1 3\nCOPY 1 1\nCOPY 1 6\nPERMUTE INT\n",  // the inverse of Q: P again
      "COPY 1 1\nCOPY 1 3\n+ INT\n",                          // an element-wise op reads them
      "COPY 1 1\nCOPY 1 4\n+_SCAN INT\n",                     // any other op writes them out
  };
  for (const auto& use : uses) {
    INFO(use);
    const auto lazy = run_text(main_of(seg + lazy_iota + lazy_seq + perm + use));
    const auto real = run_text(main_of(seg + real_iota + real_seq + perm + use));
    CHECK(lazy.out.size() > 70000);
    CHECK(lazy.out == real.out);
  }
  // The inverse of the inverse is P.
  const auto twice = run_text(main_of(seg + lazy_iota + lazy_seq + perm + uses[2] + "COPY 1 2\n= INT\nCOPY 1 5\nAND_REDUCE BOOL\n"));
  CHECK(twice.out.substr(twice.out.rfind('(')) == "( T )\n");
  // Positions permuted within two segments (reversed in each): written out,
  // then permuted as any vector.
  const std::string two = "CONST SEGDES (35000 35000)\nCONST INT (34999 34999)\nCONST INT (-1 -1)\nCOPY 1 2\nINDEX\nCPOP 1 1\n";
  const auto two_lazy = run_text(main_of(seg + lazy_iota + "POP 1 1\n" + two + "PERMUTE INT\n"));
  CHECK(two_lazy.out.substr(0, 20) == "( 34999 34998 34997 ");
  CHECK(two_lazy.out == run_text(main_of(seg + real_iota + "POP 1 1\n" + two + "PERMUTE INT\n")).out);
  // Bad indices: errors as for a real vector, naming the line (13: PERMUTE).
  const std::string zeros = "CONST INT 0\nCONST INT 0\nCOPY 1 3\nINDEX\nCOPY 1 2\n";  // S I Z S
  int line = 0;
  try {
    run_text(main_of(seg + lazy_iota + zeros + "PERMUTE INT\n"));
  } catch (const error& e) {
    line = e.line();
    CHECK(std::string(e.what()).find("inverse_permutation: index 0 at position 1 repeats") != std::string::npos);
  }
  CHECK(line == 13);
  CHECK_THROWS_WITH_AS(run_text(main_of(seg + lazy_iota + "CONST INT (1 0)\nCOPY 1 2\nPERMUTE INT\n")),
                       doctest::Contains("vector length mismatch: the data has 70000 elements, the indices has 2"), error);
  // An index once checked is known to be a permutation (value::permutation)
  // until it is written in place: here P * 0, after which the next PERMUTE
  // by it must find the repeat again.
  const std::string by_p = "COPY 1 1\nCOPY 1 1\nCOPY 1 5\nPERMUTE INT\n";  // S I Y P Y'
  const std::string times_zero = "CONST INT 0\nCOPY 1 4\nDIST INT\n* INT\n";
  const auto again = run_text(main_of(seg + lazy_iota + lazy_seq + perm + by_p + "POP 1 0\n" + by_p));
  CHECK(again.out == run_text(main_of(seg + real_iota + real_seq + perm + by_p + "POP 1 0\n" + by_p)).out);
  CHECK_THROWS_WITH_AS(run_text(main_of(seg + lazy_iota + lazy_seq + perm + by_p + "POP 1 0\n" + times_zero + by_p)),
                       doctest::Contains("index 0 at position 1 repeats"), error);
  CHECK_THROWS_WITH_AS(run_text(main_of(seg + lazy_iota + lazy_seq + perm + inverse + "POP 1 0\n" + times_zero +
                                        "COPY 1 2\nCOPY 1 1\nCOPY 1 5\nPERMUTE INT\n")),
                       doctest::Contains("index 0 at position 1 repeats"), error);
  // An inverse keeps the permutation it inverted (value::inverse), until
  // written in place: Q * 0 inverted must find the repeat, not give P.
  CHECK_THROWS_WITH_AS(run_text(main_of(seg + lazy_iota + lazy_seq + perm + inverse +
                                        "CONST INT 0\nCOPY 1 5\nDIST INT\n* INT\n" +
                                        "COPY 1 3\nCOPY 1 1\nCOPY 1 6\nPERMUTE INT\n")),
                       doctest::Contains("index 0 at position 1 repeats"), error);
}

TEST_CASE("run: an element-wise op writes over an operand only when nothing else holds it") {
  // X = RAND over 70000 elements, copied; X + 1 must leave the copy as it
  // was, so (X + 1) - X sums to 70000. The second program drops the copy
  // first, so the sum of X + 1 - 1 checks the write in place is still right.
  const std::string x = "CONST INT 70000\nMAKE_SEGDES\nCONST INT 1000\nCOPY 1 1\nDIST INT\nRAND\n";  // S X
  const std::string one = "CONST INT 1\nCOPY 1 3\nDIST INT\n";
  CHECK(run_text(main_of(x + "COPY 1 0\n" + one + "+ INT\nCPOP 1 1\n- INT\nCOPY 1 1\n+_REDUCE INT\nPOP 1 1\n")).out ==
        "( 70000 )\n");
  const auto sum = [&](const std::string& body) {
    const auto o = run_text(main_of(x + body + "COPY 1 1\n+_REDUCE INT\nPOP 1 1\n"));
    return o.out;
  };
  const std::string one_over_x = "CONST INT 1\nCOPY 1 2\nDIST INT\n";  // S X 1
  CHECK(sum(one_over_x + "+ INT\n" + one_over_x + "- INT\n") == sum(""));
  CHECK(sum(one_over_x + "+ INT\n") != sum(""));
}

TEST_CASE("run: EXTRACT and REPLACE use a splat index as one index for every segment") {
  // 300 segments of 4; the index 2 as a DIST over 300 (a splat) and as a
  // real vector (INDEX with stride 0 over two segments) must print the same.
  const std::string data = "CONST INT 0\nCONST INT 1\nCONST SEGDES 1200\nINDEX\n";        // D = 0 .. 1199
  const std::string seg = "CONST INT 4\nCONST SEGDES 300\nDIST INT\nMAKE_SEGDES\n";      // D S (300 x 4)
  const auto index = [](int k) {
    return std::make_pair("CONST INT " + std::to_string(k) + "\nCONST SEGDES 300\nDIST INT\n",
                          "CONST INT (" + std::to_string(k) + " " + std::to_string(k) +
                              ")\nCONST INT (0 0)\nCONST SEGDES (150 150)\nINDEX\n");
  };
  const auto [splat2, real2] = index(2);
  // EXTRACT: data index segd -> D S K X
  const std::string extract = "COPY 1 2\nCOPY 1 1\nCOPY 1 3\nEXTRACT INT\n";
  const auto e_splat = run_text(main_of(data + seg + splat2 + extract));
  CHECK(e_splat.out == run_text(main_of(data + seg + real2 + extract)).out);
  CHECK(e_splat.out.substr(e_splat.out.rfind('(')).substr(0, 15) == "( 2 6 10 14 18 ");
  // REPLACE: data index values segd -> D S K D'. D is still held below,
  // so the first REPLACE writes a copy; the second (index 1, from a splat
  // too) writes that copy in place, as its only reference.
  const std::string values = "CONST INT -7\nCONST SEGDES 300\nDIST INT\n";
  const std::string replace = "COPY 1 2\nCOPY 1 1\n" + values + "COPY 1 4\nREPLACE INT\n";
  const std::string again = "CONST INT 1\nCONST SEGDES 300\nDIST INT\n" + values + "COPY 1 4\nREPLACE INT\n";
  const auto r_splat = run_text(main_of(data + seg + splat2 + replace + again));
  CHECK(r_splat.out == run_text(main_of(data + seg + real2 + replace + again)).out);
  CHECK(r_splat.out.substr(r_splat.out.rfind('(')).substr(0, 20) == "( 0 -7 -7 3 4 -7 -7 ");
  CHECK(r_splat.out.substr(0, 14) == "( 0 1 2 3 4 5 ");  // the original D, unchanged
  // An index out of range names the line and the first short segment.
  const auto [splat4, real4] = index(4);
  CHECK_THROWS_WITH_AS(run_text(main_of(data + seg + splat4 + extract)),
                       doctest::Contains("extract_s: index 4 outside segment 0 of length 4"), error);
  CHECK_THROWS_WITH_AS(run_text(main_of(data + seg + splat4 + replace)),
                       doctest::Contains("replace_s: index 4 outside segment 0 of length 4"), error);
  // A splat of the wrong length is a length mismatch, as a vector is.
  CHECK_THROWS_WITH_AS(run_text(main_of(data + seg + "CONST INT 1\nCONST SEGDES 299\nDIST INT\n" + extract)),
                       doctest::Contains("vector length mismatch"), error);
}

TEST_CASE("run: the sandbox refuses SPAWN and the file operations, naming the line") {
  run_options sandboxed;
  sandboxed.sandbox = true;
  struct refused {
    std::string op, body;  // the body ends with the refused operation, on line 1 + its line count
  };
  const refused cases[] = {
      {"FOPEN", "CONST CHAR \"/nonexistent/vseg-sandbox\"\nCONST INT 1\nFOPEN\n"},
      {"FCLOSE", "CONST INT 5\nFCLOSE\n"},
      {"FREAD INT", "CONST INT 0\nFREAD INT\n"},
      {"FWRITE INT", "CONST INT (1 2)\nCONST INT 1\nFWRITE INT\n"},
      {"FREAD_CHAR", "CONST INT (10)\nCONST INT 5\nCONST INT 0\nFREAD_CHAR\n"},
      {"SPAWN", "CONST CHAR \"true\"\nCONST INT -1\nCONST INT -1\nCONST INT 2\nSPAWN\n"},
  };
  for (const auto& c : cases) {
    INFO(c.op);
    const auto lines = std::count(c.body.begin(), c.body.end(), '\n');
    const std::string expected = "line " + std::to_string(lines + 1) + ": " + c.op + ": refused in the sandbox";
    CHECK_THROWS_WITH_AS(run_text(main_of(c.body), sandboxed), doctest::Contains(expected.c_str()), error);
  }
  // Outside the sandbox the same file operations run (and fail softly: a
  // status on the stack, no exception).
  for (const auto& c : cases)
    if (c.op != "SPAWN") CHECK_NOTHROW(run_text(main_of(c.body)));
  // WRITE (to standard error) stays allowed.
  CHECK(run_text(main_of("CONST INT (4 5)\nWRITE INT\n"), sandboxed).err.find("4 5") != std::string::npos);
}

TEST_CASE("run: max_instructions stops a run at its budget") {
  const std::string body = "CONST INT 1\nCONST INT 2\n+ INT\n";  // 4 instructions with the RET
  run_options exact;
  exact.max_instructions = 4;
  CHECK(run_text(main_of(body), exact).result.instructions == 4);
  run_options short_by_one;
  short_by_one.max_instructions = 3;
  CHECK_THROWS_WITH_AS(run_text(main_of(body), short_by_one), doctest::Contains("budget of 3 instructions"),
                       error);
  // F(n) calls F(n-1) twice: 2^50 calls, never deeper than 51, stopped by the budget.
  const std::string doubling =
      "FUNC MAIN\nCONST INT 50\nCALL F\nRET\n"
      "FUNC F\nCOPY 1 0\nCONST INT 0\n= INT\nIF\nPOP 1 0\nELSE\n"
      "CONST INT 1\n- INT\nCOPY 1 0\nCALL F\nCALL F\nENDIF\nRET\n";
  run_options budget;
  budget.max_call_depth = 60;
  budget.max_instructions = 100'000;
  CHECK_THROWS_WITH_AS(run_text(doubling, budget), doctest::Contains("budget of 100000 instructions"), error);
  // The same program with n = 3 ends within the budget.
  std::string small = doubling;
  small.replace(small.find("CONST INT 50"), 12, "CONST INT 3");
  CHECK_NOTHROW(run_text(small, budget));
}

TEST_CASE("run: FLOAT sums and products go left to right in each segment, as NESL's") {
  // Values of mixed magnitudes and signs, where the order of the additions
  // changes the rounding; segments longer than vseg's blocks (16,384), which
  // fold_s and scan_s would combine per block.
  std::vector<double> x(50000);
  std::uint64_t state = 12345;
  for (std::size_t i = 0; i < x.size(); ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    const double r = static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5;
    x[i] = i % 7 == 0 ? r * 1e12 : i % 3 == 0 ? r * 1e-3 : r;
  }
  const std::vector<std::size_t> lengths{20000, 0, 30000};
  auto number = [](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return std::string(buf);
  };
  auto printed = [](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.14e", v);
    return std::string(buf);
  };
  std::string data = "CONST FLOAT (";
  for (double v : x) data.append(" ").append(number(v));
  data += " )\nCONST SEGDES (20000 0 30000)\n";
  // NESL's order: from the identity, one element after the other.
  std::string sums = "(", scan = "(", products = "(";
  std::size_t at = 0;
  double grouped_differs = 0;
  for (std::size_t len : lengths) {
    double sum = 0, product = 1, by_four[4] = {0, 0, 0, 0};
    for (std::size_t i = at; i < at + len; ++i) {
      scan.append(" ").append(printed(sum));
      sum += x[i];
      product *= 1.0 + x[i] * 1e-15;
      by_four[(i - at) % 4] += x[i];
    }
    at += len;
    sums.append(" ").append(printed(sum));
    products.append(" ").append(printed(product));
    grouped_differs += std::abs((by_four[0] + by_four[1]) + (by_four[2] + by_four[3]) - sum);
  }
  // Another order (four accumulators) would round differently on this data.
  REQUIRE(grouped_differs > 0);
  CHECK(run_text(main_of(data + "+_REDUCE FLOAT\n")).out == sums + " )\n");
  CHECK(run_text(main_of(data + "+_SCAN FLOAT\n")).out == scan + " )\n");
  // Products of 1 + x * 1e-15: a FLOAT vector built by element-wise ops.
  const std::string factors = data.substr(0, data.find("CONST SEGDES")) + "CONST FLOAT 1.0e-15\nCONST SEGDES 50000\n"
                              "DIST FLOAT\n* FLOAT\nCONST FLOAT 1.0\nCONST SEGDES 50000\nDIST FLOAT\n+ FLOAT\n"
                              "CONST SEGDES (20000 0 30000)\n";
  CHECK(run_text(main_of(factors + "*_REDUCE FLOAT\n")).out == products + " )\n");
}

TEST_CASE("run: BPERMUTE by a lazy INDEX computes its indices, checked per segment") {
  // S: two source segments of 30000, D: data 0.. and 100000..; T: two
  // destination segments of 10000 and 20000; I: an INDEX over T (lazy: 30000
  // elements) with starts 5 and 29999, strides 2 and -1.
  const std::string head =
      "CONST INT (30000 30000)\nMAKE_SEGDES\nCONST INT (0 100000)\nCONST INT (1 1)\nCOPY 1 2\nINDEX\n"
      "CONST INT (10000 20000)\nMAKE_SEGDES\n";
  const auto with_strides = [&](const std::string& strides, const std::string& force) {
    return main_of(head + "CONST INT (5 29999)\nCONST INT " + strides + "\nCOPY 1 2\nINDEX\n" + force +
                   "CPOP 1 1\nCOPY 1 3\nCPOP 1 1\nBPERMUTE INT\n");
  };
  // OR of the index with itself writes it out (a stored index, the plain BPERMUTE).
  const auto lazy = run_text(with_strides("(2 -1)", ""));
  const auto stored = run_text(with_strides("(2 -1)", "COPY 1 0\nOR INT\n"));
  CHECK(lazy.out == stored.out);
  CHECK(lazy.out.find("( 5 7 9 11 ") != std::string::npos);
  CHECK(lazy.out.find(" 20001 20003 129999 129998 ") != std::string::npos);
  // Stride 3 reaches 5 + 3 * 9999 = 30002 in a segment of 30000: the plain
  // BPERMUTE reports it, on BPERMUTE's line.
  const std::string bad = with_strides("(3 -1)", "");
  int line = 0;
  try {
    run_text(bad);
  } catch (const error& e) {
    line = e.line();
  }
  CHECK(line == 17);
  // One source and destination segment, the INDEX over two: each of its
  // segments reads the one source segment.
  const std::string flat = main_of(
      "CONST INT (60000)\nMAKE_SEGDES\nCONST INT (0)\nCONST INT (1)\nCOPY 1 2\nINDEX\n"
      "CONST INT (10000 20000)\nMAKE_SEGDES\nCONST INT (5 59999)\nCONST INT (2 -1)\nCOPY 1 2\nINDEX\n"
      "POP 1 1\nCONST INT (30000)\nMAKE_SEGDES\nCOPY 1 3\nCPOP 1 1\nBPERMUTE INT\n");
  const auto one = run_text(flat);
  CHECK(one.out.find("( 5 7 9 11 ") != std::string::npos);
  CHECK(one.out.find(" 20001 20003 59999 59998 ") != std::string::npos);
}

TEST_CASE("run: DIST, INDEX and MAKE_SEGDES over repeated values keep their argument's form, with the same results and errors") {
  // L: a lazy DIST of (a b) over two segments of 10000 (20000 elements, at
  // least lazy_min). `force` writes the top entry out (OR with itself), so
  // each program runs once on the lazy value and once on a stored one.
  const auto lazy_dist = [](const std::string& ab) {
    return "CONST INT " + ab + "\nCONST INT (10000 10000)\nMAKE_SEGDES\nDIST INT\n";
  };
  const std::string force = "COPY 1 0\nOR INT\n";
  const auto error_of = [](const std::string& src) {
    try {
      run_text(src);
    } catch (const error& e) {
      const std::string what = e.what();  // "line N: " and the message: the forced program is 2 lines longer
      return what.substr(what.find(": ") + 2);
    }
    return std::string("no error");
  };
  // MAKE_SEGDES of 20000 lengths of 3 (uniform, not written), and its LENGTHS.
  const auto segdes = [&](const std::string& ab, const std::string& f) {
    return main_of(lazy_dist(ab) + f + "MAKE_SEGDES\nCOPY 1 0\nLENGTHS\n");
  };
  const auto lazy = run_text(segdes("(3 3)", ""));
  CHECK(lazy.out == run_text(segdes("(3 3)", force)).out);
  CHECK(lazy.out.find("[ 3 3 3 ") == 0);
  CHECK(lazy.out.size() == 2 * (2 + 2 * 20000 + 2));  // "[ ", "3 " 20000 times, "]\n"; then "( ... )\n"
  CHECK(run_text(segdes("(3 4)", "")).out == run_text(segdes("(3 4)", force)).out);  // unequal: the plain path
  // A negative length and a total past 2^31 - 1 are the plain MAKE_SEGDES's errors.
  CHECK(error_of(segdes("(-1 -1)", "")) == error_of(segdes("(-1 -1)", force)));
  CHECK(error_of(segdes("(-1 -1)", "")).find("negative length") != std::string::npos);
  CHECK(error_of(segdes("(200000 200000)", "")) == error_of(segdes("(200000 200000)", force)));
  CHECK(error_of(segdes("(200000 200000)", "")).find("more than a VCODE INT can count") != std::string::npos);
  // 20000 segments of one element (a splat of lengths), and INDEX over them
  // with lazy starts (7 9) and strides: the starts; DIST of lazy values over
  // them: the values.
  const auto ones = [&](const std::string& f) {
    return main_of("CONST INT (1)\nCONST INT (20000)\nMAKE_SEGDES\nDIST INT\nMAKE_SEGDES\nCOPY 1 0\n" +
                   lazy_dist("(7 9)") + f + lazy_dist("(2 5)") + "CPOP 1 2\nINDEX\nCPOP 1 1\n" + lazy_dist("(4 6)") + f +
                   "CPOP 1 1\nDIST INT\n");
  };
  const auto shared = run_text(ones(""));
  CHECK(shared.out == run_text(ones(force)).out);
  CHECK(shared.out.find("( 7 7 7 ") != std::string::npos);
  CHECK(shared.out.find(" 9 9 9 )") != std::string::npos);
  CHECK(shared.out.find("( 4 4 4 ") != std::string::npos);
  // Starts of the wrong length: the same error on either path.
  const std::string short_starts = main_of(
      "CONST INT (7)\nCONST INT (10000)\nMAKE_SEGDES\nDIST INT\nCONST INT (1)\nCONST INT (20000)\nMAKE_SEGDES\n"
      "DIST INT\nMAKE_SEGDES\nCOPY 1 1\nCPOP 1 1\nINDEX\n");
  CHECK(error_of(short_starts).find("the starts") != std::string::npos);
  // PERMUTE over one-element segments: the data when every index is 0,
  // else the checked scatter's error.
  const auto permute_ones = [](const std::string& index) {
    return main_of("CONST INT (5 6 7)\nCONST INT " + index + "\nCONST INT (1 1 1)\nMAKE_SEGDES\nPERMUTE INT\n");
  };
  CHECK(run_text(permute_ones("(0 0 0)")).out == "( 5 6 7 )\n");
  CHECK(error_of(permute_ones("(0 1 0)")).find("index 1 at position 1 outside its segment") != std::string::npos);
}

TEST_CASE("run: NESL's TRANSPOSE-INDEX over lazy starts and strides gives the same elements as over stored ones") {
  // starts: INDEX (0, 1) over groups of 8000 and 12000; strides: DIST of
  // `lengths` over the same groups; then INDEX over 20000 segments of 3.
  // With lengths equal to the groups' this is a transposition (kept as
  // lazy.hpp's `transposed`); `force` writes an entry out (OR with itself),
  // so the same program also runs the plain INDEX on stored vectors.
  const std::string force = "COPY 1 0\nOR INT\n";
  const auto transpose = [&](const std::string& lengths, const std::string& f) {
    return main_of("CONST INT (0 0)\nCONST INT (1 1)\nCONST INT (8000 12000)\nMAKE_SEGDES\nINDEX\n" + f +
                   "CONST INT " + lengths + "\nCONST INT (8000 12000)\nMAKE_SEGDES\nDIST INT\n" + f +
                   "CONST INT (3)\nCONST INT (20000)\nMAKE_SEGDES\nDIST INT\nMAKE_SEGDES\nINDEX\n" + force);
  };
  const std::string lazy = run_text(transpose("(8000 12000)", "")).out;
  CHECK(lazy == run_text(transpose("(8000 12000)", force)).out);
  // Segment e of a group of n is e, e + n, e + 2n.
  CHECK(lazy.find("( 0 8000 16000 1 8001 16001 2 8002 16002 ") == 0);
  CHECK(lazy.find(" 7999 15999 23999 0 12000 24000 1 12001 24001 ") != std::string::npos);
  CHECK(lazy.find(" 11999 23999 35999 )") != std::string::npos);
  // Strides that are not the groups' lengths: not a transposition, the same result either way.
  const std::string other = run_text(transpose("(8000 11999)", "")).out;
  CHECK(other == run_text(transpose("(8000 11999)", force)).out);
  CHECK(other.find(" 0 11999 23998 ") != std::string::npos);
}

TEST_CASE("run: BPERMUTE from a small source is deferred, PERMUTE and BPERMUTE of it compose its index, with the same results and errors") {
  // S: a segment of 1000, D: 100 + 3i over it (written out by OR, as a
  // stored source); T: a segment of 20000, X: (5 + 7j) mod 1000 over T;
  // G = BPERMUTE D by X: deferred (20000 indices, at least lazy_min, from
  // a source of 1000). `force` writes the top entry out (a PACK by all-true
  // flags reads its data as a vector), so each program also runs on a
  // stored G through the plain paths.
  const auto program = [](const std::string& ty, const std::string& force, const std::string& use) {
    const std::string to_ty = ty == "FLOAT" ? "I_TO_F\n" : "";
    return main_of("CONST INT (1000)\nMAKE_SEGDES\nCONST INT (100)\nCONST INT (3)\nCOPY 1 2\nINDEX\nCOPY 1 0\nOR INT\n" +
                   to_ty +
                   "CONST INT (20000)\nMAKE_SEGDES\nCONST INT (5)\nCONST INT (7)\nCOPY 1 2\nINDEX\n"
                   "CONST INT (1000)\nCOPY 1 2\nDIST INT\n%\n"  // S D T X
                   "COPY 1 2\nCOPY 1 1\nCOPY 1 5\nCOPY 1 4\nBPERMUTE " + ty + "\n" +  // S D T X G
                   force + use);
  };
  const std::string force_int = "CONST BOOL (T)\nCOPY 1 3\nDIST BOOL\nCOPY 1 3\nPACK INT\nPOP 1 0\n";
  const auto force = [&](const std::string& ty) { return ty == "INT" ? force_int : "CONST BOOL (T)\nCOPY 1 3\nDIST BOOL\nCOPY 1 3\nPACK FLOAT\nPOP 1 0\n"; };
  const auto error_of = [](const std::string& src) {
    try {
      run_text(src);
    } catch (const error& e) {
      const std::string what = e.what();  // "line N: " and the message: the forced program is longer
      return what.substr(what.find(": ") + 2);
    }
    return std::string("no error");
  };
  // P: the reversal of T (an INDEX written out by OR), a permutation.
  const std::string reversal = "CONST INT (19999)\nCONST INT (-1)\nCOPY 1 4\nINDEX\nCOPY 1 0\nOR INT\n";
  // U: a segment of 50, Q: (1 + 401k) mod 20000 over U (written out: INDEX then %).
  const std::string fifty = "CONST INT (50)\nMAKE_SEGDES\nCONST INT (1)\nCONST INT (401)\nCOPY 1 2\nINDEX\n"
                            "CONST INT (20000)\nCOPY 1 2\nDIST INT\n%\n";  // ... G U Q
  const std::string bpermute_by_q = "COPY 1 2\nCOPY 1 1\nCOPY 1 6\nCOPY 1 4\nBPERMUTE TY\n";  // G Q T U
  const std::vector<std::string> uses = {
      "",                                                                      // G itself
      "COPY 1 0\nCOPY 1 0\n+ TY\n* TY\n",                                     // G * (G + G), read block by block
      reversal + "COPY 1 3\nPERMUTE TY\nCOPY 1 0\n* TY\n",                     // PERMUTE of G, squared
      reversal + "COPY 1 3\nPERMUTE TY\n" + reversal + "COPY 1 3\nPERMUTE TY\n",  // and back: G again
      fifty + bpermute_by_q,                                                  // BPERMUTE of G by Q
      reversal + "COPY 1 3\nPERMUTE TY\n" + fifty + bpermute_by_q,            // of G permuted
  };
  for (const std::string ty : {"INT", "FLOAT"}) {
    CAPTURE(ty);
    for (std::string use : uses) {
      for (std::size_t at = use.find("TY"); at != std::string::npos; at = use.find("TY")) use.replace(at, 2, ty);
      CAPTURE(use);
      const auto deferred = run_text(program(ty, "", use));
      CHECK(deferred.out == run_text(program(ty, force(ty), use)).out);
      CHECK(deferred.out.size() > 400);
    }
  }
  // G's elements themselves: 100 + 3 ((5 + 7j) mod 1000).
  const std::string g = run_text(program("INT", "", "")).out;
  std::string expected = "( ";
  for (int j = 0; j < 4; ++j) expected += std::to_string(100 + 3 * ((5 + 7 * j) % 1000)) + " ";
  CHECK(g.find(expected) != std::string::npos);
  // PERMUTE of G by a non-permutation (X, repeated values) and BPERMUTE of
  // G by an index past its end: the plain paths' errors.
  const std::string by_x = "COPY 1 1\nCOPY 1 3\nPERMUTE INT\n";
  CHECK(error_of(program("INT", "", by_x)) == error_of(program("INT", force_int, by_x)));
  CHECK(error_of(program("INT", "", by_x)) != "no error");
  std::string by_q_int = bpermute_by_q;
  by_q_int.replace(by_q_int.find("TY"), 2, "INT");
  const std::string past_end = "CONST INT (3)\nMAKE_SEGDES\nCONST INT (0 20000 1)\n" + by_q_int;
  CHECK(error_of(program("INT", "", past_end)) == error_of(program("INT", force_int, past_end)));
  CHECK(error_of(program("INT", "", past_end)).find("index 20000 at position 1") != std::string::npos);
  const std::string bad = program("INT", "", past_end);
  int line = 0;
  try {
    run_text(bad);
  } catch (const error& e) {
    line = e.line();
  }
  CHECK(line == std::count(bad.begin(), bad.end(), '\n') - 1);  // BPERMUTE's, the line before RET
}

TEST_CASE("run: an element-wise op of a lazy DIST and a stored vector reads each segment's value where it is") {
  // L: a lazy DIST of (5 6 7 8 9 10) over segments of (0 7000 0 10000 3 1),
  // 17004 elements (empty segments included); X: 100, 103, 106, ... written
  // out (an INDEX that long is lazy too, so it is forced by OR with itself).
  // Each program runs once on the lazy L and once on L forced the same way.
  const std::string force = "COPY 1 0\nOR INT\n";
  const auto lazy_dist = [](const std::string& f) {
    return "CONST INT (5 6 7 8 9 10)\nCONST INT (0 7000 0 10000 3 1)\nMAKE_SEGDES\nDIST INT\n" + f;
  };
  const auto x_of = [&](int n) {
    return "CONST INT (100)\nCONST INT (3)\nCONST INT " + std::to_string(n) + "\nMAKE_SEGDES\nINDEX\n" + force;
  };
  for (const char* op : {"- INT", "< INT", "* INT"}) {
    CAPTURE(op);
    // L op X, X op L, L op (a longer X), and L op X with X kept: X must be unchanged.
    const auto programs = [&](const std::string& f) {
      return std::vector<std::string>{
          main_of(lazy_dist(f) + x_of(17004) + std::string(op) + "\n"),
          main_of(x_of(17004) + lazy_dist(f) + std::string(op) + "\n"),
          main_of(lazy_dist(f) + x_of(17010) + std::string(op) + "\n"),
          main_of(x_of(17004) + lazy_dist(f) + "COPY 1 1\n" + std::string(op) + "\nPOP 1 0\n"),
      };
    };
    const auto lazy = programs("");
    const auto stored = programs(force);
    for (std::size_t i = 0; i < lazy.size(); ++i) CHECK(run_text(lazy[i]).out == run_text(stored[i]).out);
  }
  // The values where they are: 6 - 100 = -94 first, 8 - (100 + 3 * 7000) after
  // the 7000 sixes, and X - L's last element 100 + 3 * 17003 - 10.
  const auto minus = run_text(main_of(lazy_dist("") + x_of(17004) + "- INT\n")).out;
  CHECK(minus.find("( -94 -97 ") == 0);
  CHECK(minus.find(" -21091 -21092 -21095 ") != std::string::npos);  // 6 - 21097, then 8 - 21100, 8 - 21103
  CHECK(run_text(main_of(x_of(17004) + lazy_dist("") + "- INT\n")).out.find(" 51099 )") != std::string::npos);
  CHECK(run_text(main_of(x_of(17004) + lazy_dist("") + "COPY 1 1\n- INT\nPOP 1 0\n")).out.find("( 100 103 ") == 0);
}

TEST_CASE("run: an element-wise op of a replication beside a stored vector or a lazy DIST gives the written-out result") {
  // R: (5 6 7 8) replicated 5000 times by NESL's DIST, INDEX, PERMUTE
  // (lazy.hpp), held as virtual segments over one copy; X as above.
  const std::string force = "COPY 1 0\nOR INT\n";
  const auto r_of = [](const std::string& f) {
    return "CONST INT (5 6 7 8)\nCONST INT (5000 5000 5000 5000)\nMAKE_SEGDES\nDIST INT\n"
           "CONST INT (0 1 2 3)\nCONST INT (4 4 4 4)\nCONST INT (5000 5000 5000 5000)\nMAKE_SEGDES\nINDEX\n"
           "CONST INT (20000)\nMAKE_SEGDES\nPERMUTE INT\n" +
           f;
  };
  const auto x_of = [&](int n) {
    return "CONST INT (100)\nCONST INT (3)\nCONST INT " + std::to_string(n) + "\nMAKE_SEGDES\nINDEX\n" + force;
  };
  for (const char* op : {"- INT", "< INT"}) {
    CAPTURE(op);
    const auto programs = [&](const std::string& f) {
      return std::vector<std::string>{
          main_of(r_of(f) + x_of(20000) + std::string(op) + "\n"),
          main_of(x_of(20000) + r_of(f) + std::string(op) + "\n"),
          main_of(r_of(f) + x_of(20007) + std::string(op) + "\n"),
          main_of(x_of(20000) + r_of(f) + "COPY 1 1\n" + std::string(op) + "\nPOP 1 0\n"),
      };
    };
    const auto lazy = programs("");
    const auto stored = programs(force);
    for (std::size_t i = 0; i < lazy.size(); ++i) CHECK(run_text(lazy[i]).out == run_text(stored[i]).out);
  }
  // A lazy DIST L beside R, in both orders: L's segments (0 7000 0 10000
  // 2999 1) end where R's virtual segments (5000 each) do not.
  const auto l_of = [](const std::string& f) {
    return "CONST INT (5 6 7 8 9 10)\nCONST INT (0 7000 0 10000 2999 1)\nMAKE_SEGDES\nDIST INT\n" + f;
  };
  for (const char* op : {"- INT", "< INT"}) {
    CAPTURE(op);
    CHECK(run_text(main_of(l_of("") + r_of("") + std::string(op) + "\n")).out ==
          run_text(main_of(l_of(force) + r_of(force) + std::string(op) + "\n")).out);
    CHECK(run_text(main_of(r_of("") + l_of("") + std::string(op) + "\n")).out ==
          run_text(main_of(r_of(force) + l_of(force) + std::string(op) + "\n")).out);
  }
  // 6 - 5, 6 - 6, 6 - 7, ...; the last: 10 - 8.
  const auto l_minus_r = run_text(main_of(l_of("") + r_of("") + "- INT\n")).out;
  CHECK(l_minus_r.find("( 1 0 -1 -2 1 ") == 0);
  CHECK(l_minus_r.find(" 2 )") != std::string::npos);
  // 5 - 100, 6 - 103, 7 - 106, 8 - 109, 5 - 112; and X - R's last, 100 + 3 * 19999 - 8.
  CHECK(run_text(main_of(r_of("") + x_of(20000) + "- INT\n")).out.find("( -95 -97 -99 -101 -107 ") == 0);
  CHECK(run_text(main_of(x_of(20000) + r_of("") + "- INT\n")).out.find(" 60089 )") != std::string::npos);
}

namespace {

// A DPERMUTE whose defaults (computed first) reach it either held by it
// alone (CPOP: scattered into in place, permute_default_s_into) or with a
// second reference kept below (COPY: permute_default_s's fresh copy).
std::string dpermute_of(const std::string& defaults, const std::string& data, const std::string& index,
                        const std::string& segds, const std::string& ty, bool shared) {
  return main_of(defaults + data + index + (shared ? "COPY 1 2\n" : "CPOP 1 2\n") + segds + "DPERMUTE " + ty + "\n" +
                 (shared ? "POP 1 1\n" : ""));
}

}  // namespace

TEST_CASE("run: DPERMUTE into defaults nothing else holds equals the copying DPERMUTE") {
  // Random defaults (stored, held once), positions as data.
  const std::string rand_defaults = "CONST INT 1000000\nCONST SEGDES 26000\nDIST INT\nRAND\n";
  const std::string positions = "CONST INT 0\nCONST INT 1\nCONST SEGDES 23000\nINDEX\n";
  const std::string uneven = "CONST SEGDES (5000 15000 3000)\nCONST SEGDES (6000 16000 4000)\n";
  struct shape {
    std::string name, defaults, data, index, segds, ty;
  };
  const std::vector<shape> shapes = {
      // Uniform descriptors, 20 segments: whole segments per task; random
      // indices repeat, so the later position must win.
      {"uniform", "CONST INT 1000000\nCONST SEGDES 40000\nDIST INT\nRAND\n",
       "CONST INT 0\nCONST INT 1\nCONST SEGDES 20000\nINDEX\n", "CONST INT 2000\nCONST SEGDES 20000\nDIST INT\nRAND\n",
       "CONST INT 1000\nCONST SEGDES 20\nDIST INT\nMAKE_SEGDES\nCONST INT 2000\nCONST SEGDES 20\nDIST INT\nMAKE_SEGDES\n",
       "INT"},
      // Uneven segments, random indices below each target segment's length:
      // the parallel scatter finds repeats and redoes them in order.
      {"repeats", rand_defaults, positions,
       "CONST INT (6000 16000 4000)\nCONST SEGDES (5000 15000 3000)\nDIST INT\nRAND\n", uneven, "INT"},
      // Uneven segments, distinct indices (each segment's first positions).
      {"distinct", rand_defaults, positions,
       "CONST INT (0 0 0)\nCONST INT (1 1 1)\nCONST SEGDES (5000 15000 3000)\nINDEX\n", uneven, "INT"},
      // FLOATs, repeats.
      {"float", rand_defaults + "I_TO_F\n", positions + "I_TO_F\n",
       "CONST INT (6000 16000 4000)\nCONST SEGDES (5000 15000 3000)\nDIST INT\nRAND\n", uneven, "FLOAT"},
      // A short one (the serial scatter), with a repeat and an empty segment.
      {"short", "CONST INT (7 7 7 7 7)\n", "CONST INT (1 2 3 4)\n", "CONST INT (1 1 0 0)\n",
       "CONST SEGDES (3 0 1)\nCONST SEGDES (4 0 1)\n", "INT"},
  };
  for (const shape& s : shapes) {
    CAPTURE(s.name);
    const auto in_place = run_text(dpermute_of(s.defaults, s.data, s.index, s.segds, s.ty, false));
    const auto copied = run_text(dpermute_of(s.defaults, s.data, s.index, s.segds, s.ty, true));
    CHECK(in_place.out.size() > 10);
    CHECK(in_place.out == copied.out);
  }
  // By hand: position 1 wins index 1 of the first segment over position 0.
  CHECK(run_text(dpermute_of("CONST INT (7 7 7 7 7)\n", "CONST INT (1 2 3 4)\n", "CONST INT (1 1 0 0)\n",
                             "CONST SEGDES (3 0 1)\nCONST SEGDES (4 0 1)\n", "INT", false))
            .out == "( 3 2 7 7 4 )\n");
  // An index outside its segment: the same error on both paths.
  for (const bool shared : {false, true}) {
    CAPTURE(shared);
    CHECK_THROWS_WITH_AS(run_text(dpermute_of("CONST INT (7 7 7 7)\n", "CONST INT (1 2)\n", "CONST INT (1 2)\n",
                                              "CONST SEGDES (1 1)\nCONST SEGDES (2 2)\n", "INT", shared)),
                         doctest::Contains("index 2 at position 1 outside its segment"), error);
  }
}
