// Integer arguments of the examples, positional (integer_arg: a missing one
// takes its default) or after a flag (integer_text): a present one must be a
// whole decimal integer in [lo, hi], else std::invalid_argument names the
// argument and the text (the caller prints it after the program's name).
// (`dist_spmv --help` used to run on a stencil of side 0.)
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace examples {

// text as an integer in [lo, hi]; else std::invalid_argument naming what
// (e.g. "argument 2 (queries)" or "--rows") and the text. O(length of text).
inline std::int64_t integer_text(const char* text, const std::string& what, std::int64_t lo, std::int64_t hi) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi)
    throw std::invalid_argument(what + " is '" + text + "', not an integer in [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "]");
  return v;
}

// argv[i] as an integer in [lo, hi], or fallback when argc <= i. O(length of argv[i]).
inline std::int64_t integer_arg(int argc, char** argv, int i, const char* name,
                                std::int64_t fallback, std::int64_t lo, std::int64_t hi) {
  if (argc <= i) return fallback;
  return integer_text(argv[i], "argument " + std::to_string(i) + " (" + name + ")", lo, hi);
}

}  // namespace examples
