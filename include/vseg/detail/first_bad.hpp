// Recording the first offending position found by a parallel loop, so that
// the exception a checked primitive throws names the same value on every run.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>

namespace vseg::detail {

class first_bad {
 public:
  // Notes that position i is bad (keeps the smallest such position).
  void note(std::int64_t i) noexcept {
    std::int64_t seen = pos_.load(std::memory_order_relaxed);
    while (i < seen && !pos_.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
    }
  }
  bool any() const noexcept { return pos_.load() != none; }
  std::int64_t position() const noexcept { return pos_.load(); }

 private:
  static constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::atomic<std::int64_t> pos_{none};
};

// True when 0 <= i < n.
inline bool in_range(std::int64_t i, std::int64_t n) noexcept {
  return static_cast<std::uint64_t>(i) < static_cast<std::uint64_t>(n);
}

}  // namespace vseg::detail
