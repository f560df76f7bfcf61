// The upper hull of random points with vseg (examples/quickhull.hpp),
// checked against a serial recursive quickhull; also degenerate inputs.
// Exits non-zero on a mismatch.
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

#include "quickhull.hpp"

namespace {

using examples::area;
using examples::point;

void hull_between(const std::vector<point>& ps, const std::vector<std::int32_t>& idx, point l, point r,
                  std::vector<std::int32_t>& out) {
  if (idx.empty()) return;
  std::int32_t far = idx[0];
  for (std::int32_t i : idx)
    if (area(l, r, ps[i]) > area(l, r, ps[far])) far = i;
  std::vector<std::int32_t> left, right;
  for (std::int32_t i : idx) {
    if (area(l, ps[far], ps[i]) > 0) left.push_back(i);
    else if (area(ps[far], r, ps[i]) > 0) right.push_back(i);
  }
  hull_between(ps, left, l, ps[far], out);
  out.push_back(far);
  hull_between(ps, right, ps[far], r, out);
}

std::vector<std::int32_t> upper_hull_reference(const std::vector<point>& ps) {
  if (ps.empty()) return {};
  auto less = [](point a, point b) { return a.x < b.x || (a.x == b.x && a.y < b.y); };
  std::int32_t lo = 0, hi = 0;
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(ps.size()); ++i) {
    if (less(ps[i], ps[lo])) lo = i;
    if (less(ps[hi], ps[i])) hi = i;
  }
  std::vector<std::int32_t> above, out{lo};
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(ps.size()); ++i)
    if (area(ps[lo], ps[hi], ps[i]) > 0) above.push_back(i);
  hull_between(ps, above, ps[lo], ps[hi], out);
  if (hi != lo) out.push_back(hi);
  return out;
}

bool check(const char* name, const std::vector<point>& ps) {
  const auto hull = examples::upper_hull(vseg::array<point>(ps));
  const auto expect = upper_hull_reference(ps);
  const bool ok = vseg::to_vector(hull) == expect;
  std::cout << "upper hull of " << name << " (" << ps.size() << " points): " << hull.size() << " vertices, "
            << (ok ? "ok" : "WRONG") << "\n";
  return ok;
}

}  // namespace

int main() {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<point> disc(200'000), square(100'000);
  for (auto& p : disc) {
    const double r = std::sqrt(u(rng)), t = 6.283185307179586 * u(rng);
    p = {r * std::cos(t), r * std::sin(t)};
  }
  for (auto& p : square) p = {u(rng), u(rng)};
  bool ok = check("a disc", disc);
  ok = check("a square", square) && ok;
  ok = check("one point", {{1, 2}}) && ok;
  ok = check("a line", {{0, 0}, {1, 1}, {2, 2}, {3, 3}}) && ok;
  return ok ? 0 : 1;
}
