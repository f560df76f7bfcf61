// Running a parsed VCODE program on vseg's primitives.
//
// run() executes the program from its main function and, when it returns,
// prints the whole stack to the `out` stream, bottom to top, in NESL's format:
// `( 1 2 3 )` for INT, `( T F )` for BOOL, `( 1.00000000000000e+00 )` for
// FLOAT (%.14e), `[ 2 3 ]` for a segment descriptor (its lengths). EXIT stops
// at once without the dump. WRITE goes to `err`.
//
// Every run-time error (stack underflow, a wrong type, a length mismatch, an
// index out of range, division by zero, the memory limit) throws
// vcode::error naming the source line and the operation; nothing the program
// does can crash the interpreter.
#pragma once

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "vseg/vcode/program.hpp"

namespace vseg::vcode {

struct run_options {
  // Largest number of 8-byte words the vectors on the stack may hold at once
  // (the -m option of NESL's vinterp counts the same unit).
  std::int64_t memory_words = std::numeric_limits<std::int64_t>::max();
  // Deepest CALL nesting before the run stops with an error.
  std::int64_t max_call_depth = 1 << 20;
  // Most instructions the run may execute before it stops with an error: a
  // time budget for programs that are not trusted (fuzzing).
  std::int64_t max_instructions = std::numeric_limits<std::int64_t>::max();
  // Refuse, with an error naming the line, the operations that reach outside
  // the run: SPAWN (runs a command) and FOPEN, FCLOSE, FREAD, FREAD_CHAR,
  // FWRITE (open and use any file the user may). For untrusted programs.
  bool sandbox = false;
  // Print every instruction executed, with the stack's shape, to `err`.
  bool trace = false;
  // Time every vector operation and report the totals per operation and
  // type word in run_result::profile (two clock reads per instruction).
  bool profile = false;
  // With profile: also total the time per operation and operand shapes
  // (run_result::shapes), to find which sizes an operation is slow on.
  bool profile_shapes = false;
  // The streams VCODE calls STDIN, STDOUT and STDERR (file descriptors 0, 1, 2).
  std::FILE* in = stdin;
  std::FILE* out = stdout;
  std::FILE* err = stderr;
};

// What a run did: how many instructions it executed and whether it ended
// with EXIT (no stack dump) or by returning from main.
struct run_result {
  std::int64_t instructions = 0;
  bool exited = false;
  // With run_options::profile: per operation ("+ INT", "DPERMUTE FLOAT"),
  // how often it ran and its total wall time, the most expensive first.
  struct op_time {
    std::string op;
    std::int64_t count = 0;
    double seconds = 0;
  };
  std::vector<op_time> profile;
  // With run_options::profile_shapes: the same per operation and the shapes
  // of the top three stack entries before it ("INDEX INT INT[8] INT[8]
  // SEGDES[8:16]"; a descriptor shows segments:elements).
  std::vector<op_time> shapes;
};

// Runs prog from its main function. Throws vcode::error on a run-time error.
run_result run(const program& prog, const run_options& options = {});

}  // namespace vseg::vcode
