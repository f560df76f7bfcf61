// What the VCODE interpreter's unit tests share: a program's text run with
// its output captured, and the small program pieces every file builds on.
#pragma once

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "vseg/vcode/interpreter.hpp"
#include "vseg/vcode/program.hpp"

namespace vseg::vcode::testing {

// A temporary file's contents, read from its start; closes it.
inline std::string slurp(std::FILE* f) {
  std::rewind(f);
  std::string s;
  for (int c; (c = std::getc(f)) != EOF;) s.push_back(static_cast<char>(c));
  std::fclose(f);
  return s;
}

// src's standard output, or "error: " and the error's text.
inline std::string output_of(const std::string& src, run_options opt = {}) {
  opt.out = std::tmpfile();
  opt.err = std::tmpfile();
  REQUIRE(opt.out != nullptr);
  REQUIRE(opt.err != nullptr);
  std::string failure;
  try {
    run(parse(src), opt);
  } catch (const error& e) {
    failure = std::string("error: ") + e.what();
  }
  const std::string out = slurp(opt.out);
  slurp(opt.err);
  return failure.empty() ? out : failure;
}

// An output with an error's "line N: " taken out: a program that writes a
// value out first is longer, and fails at another line.
inline std::string without_line(const std::string& out) {
  if (out.rfind("error: line ", 0) != 0) return out;
  const std::size_t colon = out.find(": ", 12);
  return colon == std::string::npos ? out : "error: " + out.substr(colon + 2);
}

// A program whose main function is body.
inline std::string main_of(const std::string& body) { return "FUNC MAIN\n" + body + "RET\n"; }

// Writes the top entry out: PAIR materialises both parts, UNPAIR and POP
// leave the first. Tests run a program with each "F\n" marker replaced by
// write_top_out and by nothing, and compare (lazy values against written-out ones).
inline const std::string write_top_out = "COPY 1 0\nPAIR\nUNPAIR\nPOP 1 0\n";

// Every "F\n" in body replaced by f.
inline std::string with(std::string body, const std::string& f) {
  for (std::size_t at = body.find("F\n"); at != std::string::npos; at = body.find("F\n", at + f.size()))
    body.replace(at, 2, f);
  return body;
}

}  // namespace vseg::vcode::testing
