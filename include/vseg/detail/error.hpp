// Building the messages of vseg's exceptions: every one names the operation
// and the offending value (STYLE.md guideline 8).
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace vseg::detail {

template <class... Parts>
std::string message(std::string_view operation, const Parts&... parts) {
  std::ostringstream out;
  out << "vseg::" << operation << ": ";
  (out << ... << parts);
  return out.str();
}

template <class... Parts>
[[noreturn]] void throw_invalid(std::string_view operation, const Parts&... parts) {
  throw std::invalid_argument(message(operation, parts...));
}

template <class... Parts>
[[noreturn]] void throw_out_of_range(std::string_view operation, const Parts&... parts) {
  throw std::out_of_range(message(operation, parts...));
}

template <class... Parts>
[[noreturn]] void throw_overflow(std::string_view operation, const Parts&... parts) {
  throw std::overflow_error(message(operation, parts...));
}

// Throws std::invalid_argument unless two sizes agree.
inline void check_same_size(std::string_view operation, std::string_view what_a,
                            long long a, std::string_view what_b, long long b) {
  if (a != b)
    throw_invalid(operation, what_a, " has size ", a, " but ", what_b, " has size ", b);
}

// Throws std::invalid_argument unless an argument (`what`: "the flags", "the
// indices") has as many elements as the segment descriptor covers.
inline void check_covers_argument(std::string_view operation, long long covered, std::string_view what,
                                  long long n) {
  if (covered != n)
    throw_invalid(operation, "the segment descriptor covers ", covered, " elements but ", what, " have ", n);
}

}  // namespace vseg::detail
