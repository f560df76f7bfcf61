// Saturating addition of counts, shared by segd.cpp and the nested layer.
#pragma once

#include <cstdint>

namespace vseg::detail {

// a + b for counts, or -1 when either is negative or the sum overflows (a
// monoid for reduce: -1 absorbs).
struct saturating_plus {
  static constexpr std::int64_t identity() { return 0; }
  std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    std::int64_t r;
    if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &r)) return -1;
    return r;
  }
};

}  // namespace vseg::detail
