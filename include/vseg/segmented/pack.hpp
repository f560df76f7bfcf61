// pack_s: keep the flagged elements of every segment. O(elements + segments).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat/pack.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/segmented_array.hpp"

namespace vseg {

namespace detail {

// The descriptor of pack_s(s, ·, f): each segment's kept count, folded
// straight from the flags (no array of 0/1 counts is built). s covers f.
// O(elements + segments).
inline segd packed_segd(const segd& s, std::span<const bool> f) {
  auto counts = buffer<std::int64_t>::for_overwrite(s.segments());
  fold_segments<std::int64_t>(
      s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
      [&](std::int64_t, std::int64_t lo, std::int64_t hi, std::int64_t acc) {
        return acc + count_flags(f.data(), lo, hi);
      },
      plus<std::int64_t>{}, counts.data());
  return segd::from_lengths(std::move(counts).freeze());
}

// What pack_s computes from the descriptor and the flags alone: the packed
// descriptor, the output offset of each fixed block of flat_block elements
// (as flag_offsets) and the number kept. s covers f. O(elements + segments).
struct pack_layout {
  segd descriptor;
  std::vector<std::int64_t> offsets;
  std::int64_t kept = 0;
};

inline pack_layout plan_pack(const segd& s, std::span<const bool> f) {
  const std::int64_t m = s.segments();
  const std::int64_t n = s.elements();
  const std::int64_t block = tuning::flat_block;
  pack_layout layout;
  layout.kept = flag_offsets(f, layout.offsets);
  if (m > 0 && m <= n / block) {
    // Few segments (quicksort's partitions): the per-block counts give the
    // kept count before any position p in at most one block's scan, so the
    // flags are read once, not twice.
    auto kept_before = [&](std::int64_t p) {
      if (p == n) return layout.kept;
      const std::int64_t b = p / block;
      return layout.offsets[static_cast<std::size_t>(b)] + count_flags(f.data(), b * block, p);
    };
    auto counts = buffer<std::int64_t>::for_overwrite(m);
    std::int64_t* cnt = counts.data();
    parallel_for(m, tuning::segments_per_task, [&](std::int64_t lo, std::int64_t hi) {
      std::int64_t before = kept_before(s.start(lo));
      for (std::int64_t j = lo; j < hi; ++j) {
        const std::int64_t after = kept_before(s.end(j));
        cnt[j] = after - before;
        before = after;
      }
    });
    layout.descriptor = segd::from_lengths(std::move(counts).freeze());
  } else {
    layout.descriptor = packed_segd(s, f);
  }
  return layout;
}

}  // namespace detail

// Per segment, the elements whose flag is true, with the new descriptor.
// Throws std::invalid_argument unless s covers data and flags.
// O(elements + segments).
template <contiguous_input R, contiguous_input Flags>
segmented_array<element_t<R>> pack_s(const segd& s, const R& data, const Flags& flags) {
  using T = element_t<R>;
  check_covers("pack_s", s, detail::ssize(data));
  detail::check_covers_argument("pack_s", s.elements(), "the flags", detail::ssize(flags));
  const auto f = detail::as_span(flags);
  detail::pack_layout layout = detail::plan_pack(s, f);
  array<T> kept = detail::pack_with_offsets<T>(detail::as_span(data), f, layout.offsets, layout.kept);
  return {std::move(layout.descriptor), std::move(kept)};
}

// pack_s by one descriptor and one set of flags, planned once and applied
// to any number of arrays: the fields of a structure of arrays, or the
// vectors a flattening compiler makes of a sequence of tuples (NESL's
// `{p in points; c in cross | c > 0}` packs the index, x and y vectors of
// the points by the same flags, so its VCODE runs three PACKs). The plan
// counts the flags (the packed descriptor and each block's output offset)
// once; each apply() only copies.
class pack_plan {
 public:
  // Throws std::invalid_argument unless s covers flags. O(elements + segments).
  pack_plan(segd s, array<bool> flags)
      : source_(std::move(s)), flags_(std::move(flags)) {
    detail::check_covers_argument("pack_plan", source_.elements(), "the flags", flags_.size());
    layout_ = detail::plan_pack(source_, flags_.span());
  }

  // The descriptor and the flags the plan was made for.
  const segd& source() const noexcept { return source_; }
  const array<bool>& flags() const noexcept { return flags_; }
  // The descriptor of every packed array, and its element count.
  const segd& descriptor() const noexcept { return layout_.descriptor; }
  std::int64_t kept() const noexcept { return layout_.kept; }

  // Whether s is, as far as O(1) can tell, the descriptor the plan was made
  // for: the same segments and elements, and the same lengths array (or
  // both uniform with the same length). False does not prove s differs;
  // operator== compares the lengths.
  bool made_for(const segd& s) const {
    if (s.segments() != source_.segments() || s.elements() != source_.elements()) return false;
    if (s.uniform_length() >= 0 || source_.uniform_length() >= 0) return s.uniform_length() == source_.uniform_length();
    return s.lengths().data() == source_.lengths().data();
  }

  // pack_s(source(), data, flags()).data: each segment's flagged elements.
  // Throws std::invalid_argument unless data has source().elements()
  // elements. O(elements).
  template <contiguous_input R>
  array<element_t<R>> apply(const R& data) const {
    using T = element_t<R>;
    check_covers("pack_plan::apply", source_, detail::ssize(data));
    return detail::pack_with_offsets<T>(detail::as_span(data), flags_.span(), layout_.offsets, layout_.kept);
  }

  // The output offset of each fixed block of tuning::flat_block elements
  // (for a caller that writes the kept elements itself, block by block).
  const std::vector<std::int64_t>& block_offsets() const noexcept { return layout_.offsets; }

 private:
  segd source_;
  array<bool> flags_;
  detail::pack_layout layout_;
};

}  // namespace vseg
