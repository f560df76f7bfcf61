// vseg::multilevel<T>: nested arrays of any depth, with virtual segments at
// every level.
//
// The bottom is a nested<T> (depth 1). Each level above it has its own
// descriptors over the *virtual segments of the level below*:
//
//   starts[p], lengths[p]   physical segment p = the virtual segments
//                           [starts[p], starts[p] + lengths[p]) below;
//   vsegids[i]              the physical segment that is virtual segment i.
//
// levels()[0] is the outermost level. Replicating, expanding or packing the
// outer level, concatenating it away, and expanding or packing the innermost
// segments all cost work in proportion to the descriptors, never to the data
// below them, so replication can be stacked arbitrarily deep: 64 levels of
// doubling describe more than 2^64 elements in a few kilobytes, and
// virtual_elements() throws std::overflow_error rather than wrapping.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/flat.hpp"
#include "vseg/nested.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/fold.hpp"

namespace vseg {

// The descriptors of one level above the bottom.
struct level_descriptor {
  array<std::int64_t> starts;   // per physical segment: first virtual segment below
  array<std::int64_t> lengths;  // per physical segment: number of virtual segments below
  array<std::int64_t> vsegids;  // per virtual segment: its physical segment
};

template <class T>
class multilevel {
 public:
  // A depth-1 multilevel array: the nested array itself.
  explicit multilevel(nested<T> bottom) : bottom_(std::move(bottom)) {}

  // Number of levels of nesting above the elements (1 for a nested<T>).
  std::int64_t depth() const noexcept { return static_cast<std::int64_t>(levels_.size()) + 1; }

  // Number of virtual segments of the outermost level.
  std::int64_t size() const noexcept {
    return levels_.empty() ? bottom_.size() : levels_.front().vsegids.size();
  }

  // A multilevel array from its levels (outermost first) over a bottom,
  // checked: every vsegid names a physical segment and every physical
  // segment lies inside the level below. O(descriptors). Throws
  // std::invalid_argument naming the level and the entry.
  static multilevel from_levels(std::vector<level_descriptor> levels, nested<T> bottom) {
    multilevel r(std::move(bottom));
    for (std::size_t k = levels.size(); k-- > 0;) {
      const level_descriptor& l = levels[k];
      const std::int64_t below = k + 1 < levels.size() ? levels[k + 1].vsegids.size() : r.bottom_.size();
      detail::check_same_size("multilevel::from_levels", "starts", l.starts.size(), "lengths", l.lengths.size());
      for (std::int64_t p = 0; p < l.starts.size(); ++p)
        if (l.starts[p] < 0 || l.lengths[p] < 0 || l.starts[p] > below - l.lengths[p])
          detail::throw_invalid("multilevel::from_levels", "level ", k, " physical segment ", p, " [", l.starts[p],
                                ", +", l.lengths[p], ") outside the ", below, " segments below");
      for (std::int64_t i = 0; i < l.vsegids.size(); ++i)
        if (!detail::in_range(l.vsegids[i], l.starts.size()))
          detail::throw_invalid("multilevel::from_levels", "level ", k, " vsegid ", i, " is ", l.vsegids[i]);
    }
    r.levels_ = std::move(levels);
    return r;
  }

  const std::vector<level_descriptor>& levels() const noexcept { return levels_; }
  const nested<T>& bottom() const noexcept { return bottom_; }

  // Total descriptor entries over all levels (what the operations above cost).
  std::int64_t descriptor_size() const noexcept {
    std::int64_t n = bottom_.size() + bottom_.descriptor_segments();
    for (const auto& l : levels_) n += l.starts.size() + l.vsegids.size();
    return n;
  }

 private:
  template <class U>
  friend multilevel<U> replicate(std::int64_t n, const multilevel<U>& xs);
  template <class U>
  friend multilevel<U> expand(const array<std::int64_t>& counts, const multilevel<U>& xs);
  template <class U>
  friend multilevel<U> pack(const multilevel<U>& xs, const array<bool>& flags);
  template <class U>
  friend multilevel<U> concat_outer(const multilevel<U>& xs);
  template <class U>
  friend multilevel<U> expand_inner(const array<std::int64_t>& counts, const multilevel<U>& xs);
  template <class U>
  friend multilevel<U> pack_inner(const multilevel<U>& xs, const array<bool>& flags);
  template <class U>
  friend std::int64_t virtual_elements(const multilevel<U>& xs);

  // After the bottom's segment i became counts[i] segments, the level above
  // names ranges of the new bottom: [S[s], S[s + l]) with S the scan of counts.
  void remap_above_bottom(const array<std::int64_t>& counts) {
    if (levels_.empty()) return;
    const auto scanned = scan_with_total(counts, plus<std::int64_t>{});
    level_descriptor& above = levels_.back();
    const array<std::int64_t>& S = scanned.prefixes;
    const std::int64_t total = scanned.total;
    auto at = [&](std::int64_t i) { return i < S.size() ? S[i] : total; };
    auto starts = map([&](std::int64_t s) { return at(s); }, above.starts);
    auto lengths = zip_with([&](std::int64_t s, std::int64_t l) { return at(s + l) - at(s); },
                            above.starts, above.lengths);
    above.starts = std::move(starts);
    above.lengths = std::move(lengths);
  }

  std::vector<level_descriptor> levels_;  // outermost first
  nested<T> bottom_;
};

// [xs, xs, ..., xs] (n times) as a new outermost level: one physical
// segment covering all of xs, named n times. O(n) index work.
template <class T>
multilevel<T> replicate(std::int64_t n, const multilevel<T>& xs) {
  if (n < 0) detail::throw_invalid("replicate", "negative count ", n);
  multilevel<T> r = xs;
  r.levels_.insert(r.levels_.begin(), level_descriptor{array<std::int64_t>{0},
                                                       array<std::int64_t>{xs.size()},
                                                       fill<std::int64_t>(n, 0)});
  return r;
}

// Lifted replicate of the outermost level: segment i repeated counts[i]
// times. O(result segments).
template <class T>
multilevel<T> expand(const array<std::int64_t>& counts, const multilevel<T>& xs) {
  if (xs.levels_.empty()) return multilevel<T>(expand(counts, xs.bottom_));
  detail::check_same_size("expand", "counts", counts.size(), "segments", xs.size());
  multilevel<T> r = xs;
  r.levels_.front().vsegids = expand(counts, xs.levels_.front().vsegids);
  return r;
}

// The outermost segments whose flag is true. O(segments).
template <class T>
multilevel<T> pack(const multilevel<T>& xs, const array<bool>& flags) {
  if (xs.levels_.empty()) return multilevel<T>(pack(xs.bottom_, flags));
  detail::check_same_size("pack", "flags", flags.size(), "segments", xs.size());
  multilevel<T> r = xs;
  r.levels_.front().vsegids = pack(xs.levels_.front().vsegids, flags);
  return r;
}

// The outermost level concatenated away: depth drops by one. Only the
// level below's vsegids are rewritten, O(segments of the level below that
// are reached); no element moves. Throws std::invalid_argument at depth 1.
template <class T>
multilevel<T> concat_outer(const multilevel<T>& xs) {
  if (xs.levels_.empty())
    detail::throw_invalid("concat_outer", "a multilevel array of depth 1 has no outer level");
  const level_descriptor& top = xs.levels_.front();
  // The below-level virtual segments, in order: for every outer virtual
  // segment the range of its physical segment.
  const segd ranges = segd::from_lengths(bpermute_unchecked(top.lengths, top.vsegids));
  const array<std::int64_t> range_starts = bpermute_unchecked(top.starts, top.vsegids);
  auto picked = buffer<std::int64_t>::for_overwrite(ranges.elements());
  std::int64_t* o = picked.data();
  detail::for_each_segment_piece(ranges.segments(), ranges.elements(),
                                 [&](std::int64_t j) { return ranges.end(j); },
                                 [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                                   const std::int64_t shift = range_starts[j] - ranges.start(j);
                                   for (std::int64_t k = lo; k < hi; ++k) o[k] = k + shift;
                                 });
  const array<std::int64_t> below = std::move(picked).freeze();  // indices into the level below
  multilevel<T> r = xs;
  r.levels_.erase(r.levels_.begin());
  if (r.levels_.empty()) {
    // below indexes the bottom's own virtual segments, so the ids stay valid.
    r.bottom_ = xs.bottom_.with_vsegids_unchecked(bpermute_unchecked(xs.bottom_.vsegids(), below));
  } else {
    r.levels_.front().vsegids = bpermute_unchecked(r.levels_.front().vsegids, below);
  }
  return r;
}

// Lifted replicate of the innermost segments: bottom segment i repeated
// counts[i] times; the level above is re-pointed. O(descriptors).
template <class T>
multilevel<T> expand_inner(const array<std::int64_t>& counts, const multilevel<T>& xs) {
  detail::check_same_size("expand_inner", "counts", counts.size(), "innermost segments",
                          xs.bottom_.size());
  multilevel<T> r = xs;
  r.bottom_ = expand(counts, xs.bottom_);
  r.remap_above_bottom(counts);
  return r;
}

// The innermost segments whose flag is true; the level above is re-pointed.
// O(descriptors).
template <class T>
multilevel<T> pack_inner(const multilevel<T>& xs, const array<bool>& flags) {
  detail::check_same_size("pack_inner", "flags", flags.size(), "innermost segments",
                          xs.bottom_.size());
  multilevel<T> r = xs;
  r.bottom_ = pack(xs.bottom_, flags);
  r.remap_above_bottom(map([](bool f) { return std::int64_t{f ? 1 : 0}; }, flags));
  return r;
}

// The number of elements the array describes, counting every replication.
// O(descriptors). Throws std::overflow_error when it exceeds 2^63-1.
template <class T>
std::int64_t virtual_elements(const multilevel<T>& xs) {
  // Counts are kept in 128 bits and clamped at 2^100: a clamped count is
  // only ever reported as an overflow, never as a number.
  __extension__ typedef unsigned __int128 wide;
  const wide cap = wide{1} << 100;
  auto clamp = [&](wide v) { return v > cap ? cap : v; };
  // Elements per virtual segment of the current level, starting at the bottom.
  std::vector<wide> per_virtual(static_cast<std::size_t>(xs.bottom_.size()));
  for (std::int64_t i = 0; i < xs.bottom_.size(); ++i)
    per_virtual[static_cast<std::size_t>(i)] = static_cast<wide>(xs.bottom_.length(i));
  for (auto level = xs.levels_.rbegin(); level != xs.levels_.rend(); ++level) {
    std::vector<wide> prefix(per_virtual.size() + 1, 0);
    for (std::size_t i = 0; i < per_virtual.size(); ++i)
      prefix[i + 1] = clamp(prefix[i] + per_virtual[i]);
    std::vector<wide> next(static_cast<std::size_t>(level->vsegids.size()));
    for (std::int64_t k = 0; k < level->vsegids.size(); ++k) {
      const std::int64_t p = level->vsegids[k];
      const auto s = static_cast<std::size_t>(level->starts[p]);
      const auto e = s + static_cast<std::size_t>(level->lengths[p]);
      // A clamped prefix makes the difference meaningless: keep it clamped.
      next[static_cast<std::size_t>(k)] = prefix[e] >= cap ? cap : prefix[e] - prefix[s];
    }
    per_virtual = std::move(next);
  }
  wide total = 0;
  for (wide v : per_virtual) total = clamp(total + v);
  if (total > static_cast<wide>(std::numeric_limits<std::int64_t>::max()))
    detail::throw_overflow("virtual_elements", "a multilevel array of depth ", xs.depth(),
                           " describes more than 2^63-1 elements");
  return static_cast<std::int64_t>(total);
}
}  // namespace vseg
