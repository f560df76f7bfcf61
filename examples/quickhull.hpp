// The upper convex hull by a flattened quickhull. Shared by
// examples/quickhull.cpp and the benchmark bench/irregular.
//
// Recursive quickhull splits one problem into two; the vectorised version
// keeps every open problem of a level as one segment of point indices, with
// the segment's line (left, right). One round, for all segments at once:
//   1. per segment, the point farthest above its line (tabulate_fold_s: the
//      distances are folded as they are computed, never stored);
//   2. every point goes to the left child (above left–far), the right child
//      (above far–right) or is dropped (inside the triangle): a stable
//      3-way partition_s;
//   3. the dropped and the empty children are filtered out (filter_segments)
//      and the survivors become the next level.
// The farthest points are the hull's vertices; sorted by x they are the
// upper hull from left to right.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "vseg/vseg.hpp"

namespace examples {

struct point {
  double x, y;
};

// Twice the signed area of (a, b, c): positive when c lies left of a -> b.
inline double area(point a, point b, point c) { return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x); }

// A point index with its distance (as an area) from a line; the farther
// wins, and on a tie the lower index (the same answer as a serial scan).
struct candidate {
  double area;
  std::int32_t index;
};

struct farthest {
  static candidate identity() { return {-std::numeric_limits<double>::infinity(), -1}; }
  candidate operator()(const candidate& a, const candidate& b) const {
    return b.area > a.area || (b.area == a.area && b.index >= 0 && (a.index < 0 || b.index < a.index)) ? b : a;
  }
};

// The indices of the points on the upper hull, left to right, from the
// leftmost to the rightmost point (lowest then highest y on ties of x).
// O(n log h) work for h hull points, typically O(n).
inline vseg::array<std::int32_t> upper_hull(const vseg::array<point>& ps) {
  const std::int64_t n = ps.size();
  if (n == 0) return {};
  auto left_of = [&](std::int32_t a, std::int32_t b) { return ps[a].x < ps[b].x || (ps[a].x == ps[b].x && ps[a].y < ps[b].y); };
  // The leftmost and the rightmost point, in one pass over the points.
  struct extremes {
    std::int32_t lo, hi;
  };
  const auto ends = vseg::tabulate_reduce(
      n, [](std::int64_t i) { return extremes{static_cast<std::int32_t>(i), static_cast<std::int32_t>(i)}; },
      vseg::make_monoid([&](extremes a, extremes b) {
        return extremes{left_of(b.lo, a.lo) ? b.lo : a.lo, left_of(a.hi, b.hi) ? b.hi : a.hi};
      }, extremes{0, 0}));
  const std::int32_t lo = ends.lo, hi = ends.hi;
  std::vector<std::int32_t> hull{lo};
  if (hi != lo) hull.push_back(hi);

  // The open problems: segment j holds the points above the line lines_l[j] -> lines_r[j].
  auto idx = vseg::pack(vseg::iota<std::int32_t>(n),
                        vseg::tabulate(n, [&](std::int64_t i) { return area(ps[lo], ps[hi], ps[i]) > 0; }));
  auto s = vseg::segd::single(idx.size());
  vseg::array<std::int32_t> lines_l{lo}, lines_r{hi};
  while (idx.size() > 0) {
    // Every point's distance from its segment's line, folded per segment
    // without being stored.
    const auto far = vseg::tabulate_fold_s(s, [&](std::int64_t j, std::int64_t i) {
      return candidate{area(ps[lines_l[j]], ps[lines_r[j]], ps[idx[i]]), idx[i]};
    }, farthest{});
    const auto mid = vseg::map([](const candidate& c) { return c.index; }, far);
    hull.insert(hull.end(), mid.begin(), mid.end());

    const auto side = vseg::tabulate_s(s, [&](std::int64_t j, std::int64_t i) {
      const point l = ps[lines_l[j]], m = ps[mid[j]], r = ps[lines_r[j]], p = ps[idx[i]];
      return static_cast<std::uint8_t>(area(l, m, p) > 0 ? 0 : area(m, r, p) > 0 ? 1 : 2);
    });
    const auto parts = vseg::partition_s(s, idx, side, 3);  // segments 3j, 3j+1, 3j+2
    const std::int64_t k = parts.descriptor.segments();
    const auto lengths = parts.descriptor.lengths();
    const auto keep = vseg::tabulate(k, [&](std::int64_t t) { return t % 3 != 2 && lengths[t] > 0; });
    const auto next = vseg::filter_segments(vseg::nested<std::int32_t>::from_segd(parts.descriptor, parts.data), keep);
    // Child 3j is (left, mid), child 3j+1 is (mid, right).
    lines_l = vseg::pack(vseg::tabulate(k, [&](std::int64_t t) { return t % 3 == 0 ? lines_l[t / 3] : mid[t / 3]; }), keep);
    lines_r = vseg::pack(vseg::tabulate(k, [&](std::int64_t t) { return t % 3 == 0 ? mid[t / 3] : lines_r[t / 3]; }), keep);
    idx = vseg::concat(next);
    s = vseg::segd::from_lengths(next.lengths());
  }
  return vseg::sort(vseg::array<std::int32_t>(hull), left_of);
}

}  // namespace examples
