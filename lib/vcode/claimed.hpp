// A set of n slots that threads claim at once: the check that a PERMUTE's
// targets are a permutation (each slot claimed exactly once) in n bits,
// without writing the permuted data.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace vseg::vcode::detail {

class claimed_slots {
 public:
  // n unclaimed slots. O(n / 64).
  explicit claimed_slots(std::int64_t n) : bits_(static_cast<std::size_t>((n + 63) / 64)) {}
  // Claims slot u (0 <= u < n); false when it was claimed before. O(1), thread-safe.
  bool claim(std::int64_t u) noexcept {
    const std::uint64_t bit = std::uint64_t{1} << (u % 64);
    return (bits_[static_cast<std::size_t>(u / 64)].fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
  }

 private:
  std::vector<std::atomic<std::uint64_t>> bits_;
};

}  // namespace vseg::vcode::detail
