// Segment descriptors.
//
// Glossary (the names of the ICFP 2012 paper and DPH's dph-lifted-vseg):
//   segd   a contiguous segment descriptor: segment j holds the elements
//          [starts[j], starts[j] + lengths[j]) of one flat data array, and
//          starts is the exclusive scan of lengths (this header);
//   ssegd  a scattered descriptor: per physical segment a (source block,
//          start, length) triple into one of several data blocks
//          (vseg/nested/ssegd.hpp);
//   vsegd  a virtual descriptor: vsegids[i] names the physical segment that
//          is the i-th virtual segment, so segments can be shared
//          (vseg/nested/vsegd.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/tuning.hpp"

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

  // The descriptor with a segment starting at every true flag (flags[0]
  // must be true unless flags is empty). O(flags). Throws
  // std::invalid_argument naming segd::from_head_flags when flags[0] is false.
  static segd from_head_flags(const array<bool>& flags);

  std::int64_t segments() const noexcept { return segments_; }
  std::int64_t elements() const noexcept { return elements_; }
  // The lengths and starts as arrays. A uniform descriptor may have been
  // built without them (from_int32_lengths, uniform); they are then
  // materialised on the first call, once, safely from any thread.
  const array<std::int64_t>& lengths() const;
  const array<std::int64_t>& starts() const;

  // L when every segment has L elements (and there is at least one
  // segment), otherwise -1. Found while the descriptor is built, at no extra
  // pass; segmented kernels use it to compute starts instead of reading them
  // (see detail::with_layout below).
  std::int64_t uniform_length() const noexcept { return uniform_; }

  std::int64_t length(std::int64_t j) const noexcept { return uniform_ >= 0 ? uniform_ : lengths_[j]; }
  std::int64_t start(std::int64_t j) const noexcept { return uniform_ >= 0 ? j * uniform_ : starts_[j]; }
  // The exclusive end of segment j.
  std::int64_t end(std::int64_t j) const noexcept { return uniform_ >= 0 ? (j + 1) * uniform_ : starts_[j] + lengths_[j]; }

  friend bool operator==(const segd& a, const segd& b);

 private:
  struct lazy_arrays;
  // A uniform descriptor without its arrays: segments x uniform.
  static segd uniform_without_arrays(std::int64_t segments, std::int64_t each);

  // Listed descriptors hold both arrays; a uniform one may hold neither
  // (lazy_ then builds them on demand).
  array<std::int64_t> lengths_;
  array<std::int64_t> starts_;
  std::shared_ptr<lazy_arrays> lazy_;
  std::int64_t segments_ = 0;
  std::int64_t elements_ = 0;
  std::int64_t uniform_ = -1;
};

// segd::from_head_flags under a free name: a segment starts at every true
// flag. O(flags). Throws std::invalid_argument when flags[0] is false.
inline segd segd_from_flags(const array<bool>& flags) { return segd::from_head_flags(flags); }

// Throws std::invalid_argument unless the descriptor covers exactly n elements.
void check_covers(const char* operation, const segd& s, std::int64_t n);

namespace detail {

// How a segmented kernel reads the geometry of segment j. A listed layout
// reads the descriptor's arrays; a uniform one, for a descriptor whose
// segments all have `each` elements, computes start, length and end and
// reads no descriptor memory. Flattened recursions (NESL's batcher sort,
// quicksort) spend whole levels on 2^18 segments of length 1 or 2, where the
// 16 bytes of starts and lengths per segment are most of the traffic.
struct listed_layout {
  const std::int64_t* starts;
  const std::int64_t* lengths;
  std::int64_t start(std::int64_t j) const noexcept { return starts[j]; }
  std::int64_t length(std::int64_t j) const noexcept { return lengths[j]; }
  std::int64_t end(std::int64_t j) const noexcept { return starts[j] + lengths[j]; }
};

struct uniform_layout {
  std::int64_t each;
  std::int64_t start(std::int64_t j) const noexcept { return j * each; }
  std::int64_t length(std::int64_t) const noexcept { return each; }
  std::int64_t end(std::int64_t j) const noexcept { return (j + 1) * each; }
};

template <class Layout>
inline constexpr bool is_uniform_layout = std::is_same_v<Layout, uniform_layout>;

// f(layout) with the layout that fits s: one dispatch per call, after which
// the kernel is compiled for that layout.
template <class F>
decltype(auto) with_layout(const segd& s, F&& f) {
  if (s.uniform_length() >= 0) return f(uniform_layout{s.uniform_length()});
  return f(listed_layout{s.starts().data(), s.lengths().data()});
}

// The grain of a loop over s's segments that touches one element of
// `element_bytes` in each (extract_s, replace_s): the element-wise grain,
// or tuning::one_per_segment_strided_grain when the segments average a
// cache line or more, so that those elements, on average, share no line.
inline std::int64_t one_per_segment_grain(const segd& s, std::size_t element_bytes) noexcept {
  const std::int64_t per_line = std::max<std::int64_t>(1, tuning::cache_line_bytes / static_cast<std::int64_t>(element_bytes));
  const bool strided = s.segments() > 0 && s.elements() / s.segments() >= per_line;
  return strided ? tuning::one_per_segment_strided_grain : tuning::elementwise_grain;
}

}  // namespace detail

}  // namespace vseg
