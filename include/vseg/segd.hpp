// Segment descriptors.
//
// Glossary (the names of the ICFP 2012 paper and DPH's dph-lifted-vseg):
//   segd   a contiguous segment descriptor: segment j holds the elements
//          [starts[j], starts[j] + lengths[j]) of one flat data array, and
//          starts is the exclusive scan of lengths (this header);
//   ssegd  a scattered descriptor: per physical segment a (source block,
//          start, length) triple into one of several data blocks
//          (vseg/nested.hpp);
//   vsegd  a virtual descriptor: vsegids[i] names the physical segment that
//          is the i-th virtual segment, so segments can be shared
//          (vseg/nested.hpp).
#pragma once

#include <cstdint>
#include <span>

#include "vseg/array.hpp"

namespace vseg {

// A contiguous segment descriptor: lengths, starts and the element count.
class segd {
 public:
  // The descriptor of zero segments.
  segd() = default;

  // The descriptor with these lengths. O(segments). Throws
  // std::invalid_argument for a negative length and std::overflow_error when
  // the lengths do not sum within int64.
  static segd from_lengths(array<std::int64_t> lengths);

  // The descriptor with these 32-bit lengths (widened to int64), checked as
  // from_lengths is; one pass to check and sum, one to write the starts.
  static segd from_int32_lengths(std::span<const std::int32_t> lengths);

  // One segment of n elements.
  static segd single(std::int64_t n);

  // n segments of length `each`.
  static segd uniform(std::int64_t n, std::int64_t each);

  std::int64_t segments() const noexcept { return lengths_.size(); }
  std::int64_t elements() const noexcept { return elements_; }
  const array<std::int64_t>& lengths() const noexcept { return lengths_; }
  const array<std::int64_t>& starts() const noexcept { return starts_; }

  std::int64_t length(std::int64_t j) const noexcept { return lengths_[j]; }
  std::int64_t start(std::int64_t j) const noexcept { return starts_[j]; }
  // The exclusive end of segment j.
  std::int64_t end(std::int64_t j) const noexcept { return starts_[j] + lengths_[j]; }

  friend bool operator==(const segd& a, const segd& b) { return a.lengths_ == b.lengths_; }

 private:
  array<std::int64_t> lengths_;
  array<std::int64_t> starts_;
  std::int64_t elements_ = 0;
};

// Throws std::invalid_argument unless the descriptor covers exactly n elements.
void check_covers(const char* operation, const segd& s, std::int64_t n);

}  // namespace vseg
