// A parsed VCODE program: the instructions of every function in one array,
// with calls and branches resolved to instruction indices.
//
// VCODE (Blelloch et al., "VCODE Reference Manual", version 2.1) is the stack
// language the NESL compiler emits. A program is a list of functions
//
//     FUNC name            { optional I <types> O <types> }
//     <statements>
//     RET
//
// where every statement is one line naming an operation, its type word and
// its immediate operands. parse() checks the whole program before anything
// runs: every token, every type word, IF/ELSE/ENDIF nesting, and that every
// CALL names a defined function. Errors are reported as vcode::error with the
// line number of the offending token.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vseg::vcode {

// A malformed program or a failed run, located at a source line.
class error : public std::runtime_error {
 public:
  error(int line, const std::string& what)
      : std::runtime_error(line > 0 ? "line " + std::to_string(line) + ": " + what : what),
        line_(line) {}
  // The 1-based source line of the problem (0 when it has none).
  int line() const noexcept { return line_; }

 private:
  int line_;
};

// The element types of VCODE vectors. `chars` is the CHAR type word: a string,
// stored as an INT vector of character codes.
enum class type : std::uint8_t { int_, bool_, float_, segdes, chars, none };

// Every VCODE operation, grouped as in the reference manual.
enum class opcode : std::uint8_t {
  // element-wise
  add, sub, mul, div, mod, lt, le, gt, ge, eq, ne, lshift, rshift,
  not_, and_, or_, xor_, select, rand,
  floor, ceil, trunc, round, log, sqrt, exp, sin, cos, tan, asin, acos, atan,
  sinh, cosh, tanh, i_to_f, i_to_b, b_to_i,
  // scans and reductions (segmented)
  plus_scan, mult_scan, max_scan, min_scan, and_scan, or_scan, xor_scan,
  plus_reduce, mult_reduce, max_reduce, min_reduce, and_reduce, or_reduce, xor_reduce,
  // permutations and other vector operations
  permute, dpermute, fpermute, bpermute, bfpermute, dfpermute,
  extract, replace, dist, index, rank_up, rank_down, pack,
  // segment descriptors
  length, make_segdes, lengths,
  // stack and control
  copy, pop, cpop, pair, unpair, call, ret, if_, else_, const_, exit,
  // timers, I/O, random seed
  start_timer, stop_timer, read, write, fopen, fclose, fread, fread_char, fwrite, spawn,
  srand,
};

// The spelling of an opcode in VCODE source ("+", "MAX_SCAN", ...).
std::string_view name(opcode op);

// The spelling of a type word in VCODE source ("INT", ...).
std::string_view name(type t);

// One instruction. Its operands depend on the opcode:
//   copy/pop/cpop: a = count, b = depth from the top of the stack;
//   call:          a = index of the callee's first instruction, b = function;
//   if_:           a = instruction to jump to when the condition is false;
//   else_:         a = instruction after the matching ENDIF;
//   const_:        a = index into program::constants.
struct instruction {
  opcode op;
  type ty = type::none;
  int line = 0;
  std::int64_t a = 0;
  std::int64_t b = 0;
};

// A constant operand: scalars are one-element vectors; a SEGDES constant holds
// segment lengths; a CHAR constant holds character codes in `ints`.
struct constant {
  type ty = type::int_;
  std::vector<std::int32_t> ints;
  std::vector<double> floats;
  std::vector<bool> bools;
};

// A function: its name, the line of its FUNC, and where its code starts.
struct function {
  std::string name;
  int line = 0;
  std::int64_t entry = 0;
};

struct program {
  std::vector<instruction> code;
  std::vector<constant> constants;
  std::vector<function> functions;
  // Index into `functions` of the function run first: MAIN if defined, else
  // the first function of the file (NESL's convention).
  std::int64_t main = 0;
};

// Parses and links VCODE source text. Throws vcode::error naming the line and
// the problem. O(length of the text).
program parse(std::string_view source);

}  // namespace vseg::vcode
