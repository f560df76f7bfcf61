// Tests of vseg::vcode::parse: tokens, constants, control structure, linking
// and the errors (each must name the right line).
#include <doctest/doctest.h>

#include <string>

#include "vseg/vcode/program.hpp"

using namespace vseg::vcode;

namespace {

// The line number of the error parse() reports for src (0 if none).
int error_line(const std::string& src) {
  try {
    parse(src);
  } catch (const error& e) {
    return e.line();
  }
  return 0;
}

}  // namespace

TEST_CASE("parse: functions, operations and immediate operands") {
  const program p = parse(
      "{ a comment\n spanning lines }\n"
      "FUNC MAIN1_1\n"
      "CONST INT 5\n"
      "COPY 1 0\n"
      "+ INT\n"
      "CALL F_2\n"
      "RET\n"
      "FUNC F_2 I INT O INT\n"
      "RET\n");
  REQUIRE(p.functions.size() == 2);
  CHECK(p.functions[0].name == "MAIN1_1");
  CHECK(p.functions[0].line == 3);
  CHECK(p.main == 0);  // no MAIN: the first function runs
  REQUIRE(p.code.size() == 6);
  CHECK(p.code[0].op == opcode::const_);
  CHECK(p.code[1].op == opcode::copy);
  CHECK(p.code[1].a == 1);
  CHECK(p.code[1].b == 0);
  CHECK(p.code[2].op == opcode::add);
  CHECK(p.code[2].ty == type::int_);
  CHECK(p.code[2].line == 6);
  CHECK(p.code[3].op == opcode::call);
  CHECK(p.code[3].a == p.functions[1].entry);
}

TEST_CASE("parse: MAIN is the entry wherever it is") {
  const program p = parse("FUNC A\nRET\nFUNC MAIN\nRET\n");
  CHECK(p.functions[static_cast<std::size_t>(p.main)].name == "MAIN");
}

TEST_CASE("parse: constants of every type") {
  const program p = parse(
      "FUNC M\n"
      "CONST INT -7\n"
      "CONST FLOAT -1.5e-3\n"
      "CONST BOOL T\n"
      "CONST SEGDES 4\n"
      "CONST INT (1 -2 3)\n"
      "CONST FLOAT ()\n"
      "CONST CHAR \"a\nb\"\n"
      "CONST INT STDERR\n"
      "CONST INT 23209834902834\n"
      "RET\n");
  REQUIRE(p.constants.size() == 9);
  CHECK(p.constants[0].ints == std::vector<std::int32_t>{-7});
  CHECK(p.constants[1].floats == std::vector<double>{-1.5e-3});
  CHECK(p.constants[2].bools == std::vector<bool>{true});
  CHECK(p.constants[3].ty == type::segdes);
  CHECK(p.constants[3].ints == std::vector<std::int32_t>{4});
  CHECK(p.constants[4].ints == std::vector<std::int32_t>{1, -2, 3});
  CHECK(p.constants[5].floats.empty());
  CHECK(p.constants[6].ints == std::vector<std::int32_t>{'a', '\n', 'b'});
  CHECK(p.constants[7].ints == std::vector<std::int32_t>{2});
  CHECK(p.constants[8].ints == std::vector<std::int32_t>{-168364750});  // glibc's %d keeps the low 32 bits
  CHECK(p.code.back().line == 12);  // the newline inside the string is counted
}

TEST_CASE("parse: IF/ELSE/ENDIF branch targets") {
  const program p = parse("FUNC M\nCONST BOOL T\nIF\nCONST INT 1\nELSE\nCONST INT 2\nENDIF\nRET\n");
  // 0 CONST, 1 IF, 2 CONST, 3 ELSE, 4 CONST, 5 RET
  REQUIRE(p.code.size() == 6);
  CHECK(p.code[1].op == opcode::if_);
  CHECK(p.code[1].a == 4);  // false: after the ELSE
  CHECK(p.code[3].op == opcode::else_);
  CHECK(p.code[3].a == 5);  // after the ENDIF
  const program q = parse("FUNC M\nCONST BOOL T\nIF\nCONST INT 1\nENDIF\nRET\n");
  CHECK(q.code[1].a == 3);
}

TEST_CASE("parse: errors name their line") {
  CHECK(error_line("FUNC M\nCONST INT 1\nFROB\nRET\n") == 3);            // unknown opcode
  CHECK(error_line("FUNC M\n+ BOOL\nRET\n") == 2);                      // type word not allowed
  CHECK(error_line("FUNC M\n+\nRET\n") == 3);                           // type word missing (next token)
  CHECK(error_line("FUNC M\nIF\nRET\n") == 3);                          // RET inside IF
  CHECK(error_line("FUNC M\nELSE\nRET\n") == 2);                        // ELSE without IF
  CHECK(error_line("FUNC M\nENDIF\nRET\n") == 2);                       // ENDIF without IF
  CHECK(error_line("FUNC M\nCALL X\nRET\n") == 2);                      // missing function
  CHECK(error_line("FUNC M\nRET\nFUNC M\nRET\n") == 3);                 // defined twice
  CHECK(error_line("FUNC M\nCONST INT (1 2\n") == 3);                   // unterminated vector
  CHECK(error_line("FUNC M\nCONST CHAR \"abc\n") == 2);                 // unterminated string
  CHECK(error_line("FUNC M\nCONST BOOL 1\nRET\n") == 2);                // bad BOOL
  CHECK(error_line("FUNC M\nCONST FLOAT (1.0 2)\nRET\n") == 2);         // INT in a FLOAT vector
  CHECK(error_line("FUNC M\nCONST SEGDES (1 -2)\nRET\n") == 2);         // negative length
  CHECK(error_line("FUNC M\nCOPY 1\nRET\n") == 3);                      // missing operand
  CHECK(error_line("FUNC M\nPOP -1 0\nRET\n") == 2);                    // negative operand
  CHECK(error_line("FUNC M\nCONST INT 1\n#\nRET\n") == 3);              // stray character
  CHECK(error_line("FUNC M\n{ open comment\n") == 2);
  CHECK(error_line("") == 1);                                           // no function
  CHECK(error_line("FUNC M\nCONST INT 1\n") == 3);                      // no RET
}
