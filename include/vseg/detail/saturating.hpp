#pragma once

#include <cstdint>

// a + b for non-negative counts, -1 once either is -1 or the sum overflows int64.
namespace vseg::detail {
struct saturating_plus {
  static constexpr std::int64_t identity() { return 0; }
  std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    std::int64_t r;
    if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &r)) return -1;
    return r;
  }
};
}  // namespace vseg::detail
