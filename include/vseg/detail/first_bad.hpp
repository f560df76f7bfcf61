// Recording the first offending position found by a parallel loop, so that
// the exception a checked primitive throws names the same value on every run.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <type_traits>

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

// Index types all_in_range takes: integers other than bool.
template <class I>
inline constexpr bool integer_index = std::is_integral_v<I> && !std::is_same_v<I, bool>;

// True when every index in ix[lo, hi) is in [0, n). Counts failures without a
// branch, on unsigned values of the index's own width, so the loop
// vectorises (a 32-bit index is compared as 32 bits, not widened).
template <class I>
bool all_in_range(const I* ix, std::int64_t lo, std::int64_t hi, std::int64_t n) noexcept {
  using U = std::make_unsigned_t<I>;
  // A bound beyond I's largest value admits every non-negative I; as U, the
  // negative ones are at least 2^(bits-1) and so stay out of range.
  constexpr auto largest = static_cast<std::uint64_t>(std::numeric_limits<I>::max());
  if (n <= 0) return lo >= hi;
  U bound = static_cast<U>(n);
  if (static_cast<std::uint64_t>(n) > largest) {
    if constexpr (std::is_unsigned_v<I>) return true;  // every value is below n
    else bound = static_cast<U>(largest + 1);
  }
  std::int64_t failed = 0;
  for (std::int64_t j = lo; j < hi; ++j) failed += static_cast<U>(ix[j]) >= bound;
  return failed == 0;
}

// The index of every segment for extract_s and replace_s: the elements of
// an array (index_list) or one index for all segments (index_repeated, VCODE's
// EXTRACT by a DIST of one value). ix[j] is segment j's index;
// all_in_range(lo, hi, each) says whether segments [lo, hi), all `each`
// long, have their index in range.
template <class I>
struct index_list {
  const I* ix;
  std::int64_t operator[](std::int64_t j) const noexcept { return static_cast<std::int64_t>(ix[j]); }
  bool all_in_range(std::int64_t lo, std::int64_t hi, std::int64_t each) const noexcept {
    if constexpr (integer_index<I>) {
      return detail::all_in_range(ix, lo, hi, each);
    } else {
      bool good = true;
      for (std::int64_t j = lo; j < hi; ++j) good &= in_range((*this)[j], each);
      return good;
    }
  }
};

struct index_repeated {
  std::int64_t k;
  std::int64_t operator[](std::int64_t) const noexcept { return k; }
  bool all_in_range(std::int64_t lo, std::int64_t hi, std::int64_t each) const noexcept {
    return lo >= hi || in_range(k, each);
  }
};

}  // namespace vseg::detail
