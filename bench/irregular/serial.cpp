// bench/irregular's serial contender: the textbook sequential C++ for each
// problem, with the standard library's containers. It is also the reference
// the other contenders' answers are checked against.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "harness.hpp"

namespace {

using namespace irregular;

// Levels of a breadth-first search from source, with a FIFO queue.
std::vector<std::int32_t> bfs(const graph& g, std::int32_t source) {
  std::vector<std::int32_t> level(static_cast<std::size_t>(g.vertices()), -1), queue;
  queue.reserve(level.size());
  level[source] = 0;
  queue.push_back(source);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::int32_t u = queue[head];
    for (std::int64_t k = g.offsets[u]; k < g.offsets[u + 1]; ++k)
      if (const std::int32_t v = g.targets[k]; level[v] < 0) level[v] = level[u] + 1, queue.push_back(v);
  }
  return level;
}

// C = A * B by Gustavson's algorithm with a dense accumulator per row.
csr spgemm(const csr& a, const csr& b) {
  csr c;
  c.rows = a.rows, c.cols = b.cols;
  c.offsets.push_back(0);
  std::vector<double> acc(static_cast<std::size_t>(b.cols), 0);
  std::vector<char> used(static_cast<std::size_t>(b.cols), 0);
  std::vector<std::int32_t> row;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    row.clear();
    for (std::int64_t k = a.offsets[i]; k < a.offsets[i + 1]; ++k) {
      const std::int32_t r = a.col[k];
      for (std::int64_t l = b.offsets[r]; l < b.offsets[r + 1]; ++l) {
        const std::int32_t j = b.col[l];
        if (!used[j]) used[j] = 1, row.push_back(j);
        acc[j] += a.val[k] * b.val[l];
      }
    }
    std::sort(row.begin(), row.end());
    for (std::int32_t j : row) c.col.push_back(j), c.val.push_back(acc[j]), acc[j] = 0, used[j] = 0;
    c.offsets.push_back(static_cast<std::int64_t>(c.col.size()));
  }
  return c;
}

// The first occurrence of every value, in input order.
std::vector<std::int64_t> dedup(const std::vector<std::int64_t>& xs) {
  std::unordered_set<std::int64_t> seen(xs.size() / 8);
  std::vector<std::int64_t> out;
  for (std::int64_t x : xs)
    if (seen.insert(x).second) out.push_back(x);
  return out;
}

std::vector<word_count> word_counts(const std::vector<char>& text) {
  std::unordered_map<std::string_view, std::int64_t> counts;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    while (p < end && *p == ' ') ++p;
    const char* w = p;
    while (p < end && *p != ' ') ++p;
    if (p > w) ++counts[std::string_view(w, static_cast<std::size_t>(p - w))];
  }
  std::vector<word_count> out;
  for (const auto& [w, c] : counts) out.emplace_back(std::string(w), c);
  return out;
}

// Indices of the points strictly above l -> r, between them on the upper hull.
void hull_between(const std::vector<point>& ps, const std::vector<std::int32_t>& idx, point l, point r,
                  std::vector<std::int32_t>& out) {
  if (idx.empty()) return;
  std::int32_t far = idx[0];
  double best = area(l, r, ps[far]);
  for (std::int32_t i : idx)
    if (const double a = area(l, r, ps[i]); a > best) best = a, far = i;
  const point m = ps[far];
  std::vector<std::int32_t> left, right;
  for (std::int32_t i : idx) {
    if (area(l, m, ps[i]) > 0) left.push_back(i);
    else if (area(m, r, ps[i]) > 0) right.push_back(i);
  }
  hull_between(ps, left, l, m, out);
  out.push_back(far);
  hull_between(ps, right, m, r, out);
}

// The upper hull, left to right, as point indices (ParlayLib's example's answer).
std::vector<std::int32_t> upper_hull(const std::vector<point>& ps) {
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
  out.push_back(hi);
  return out;
}

// The primes up to n, by the sieve of Eratosthenes.
std::vector<std::int64_t> primes(std::int64_t n) {
  std::vector<bool> composite(static_cast<std::size_t>(n + 1), false);
  std::vector<std::int64_t> out;
  for (std::int64_t p = 2; p <= n; ++p) {
    if (composite[p]) continue;
    out.push_back(p);
    for (std::int64_t k = p * p; k <= n; k += p) composite[k] = true;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  return run_main(argc, argv, {
    {"bfs-rmat", [](std::int64_t s) { auto g = load_rmat(s); return digest_of(measure([&] { return bfs(g, 0); })); }},
    {"bfs-grid", [](std::int64_t s) { auto g = load_grid(s); return digest_of(measure([&] { return bfs(g, 0); })); }},
    {"sort", [](std::int64_t n) {
       const auto xs = random_doubles(n);
       return digest_of(measure([&] { auto ys = xs; std::sort(ys.begin(), ys.end()); return ys; }));
     }},
    {"sort-kv", [](std::int64_t n) {
       const auto ks = random_keys(n);
       std::vector<std::pair<std::uint32_t, std::int64_t>> kv(ks.size());
       for (std::size_t i = 0; i < ks.size(); ++i) kv[i] = {ks[i], static_cast<std::int64_t>(i)};
       auto r = measure([&] {
         auto ys = kv;
         std::stable_sort(ys.begin(), ys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
         return ys;
       });
       std::vector<std::uint32_t> k(r.size());
       std::vector<std::int64_t> v(r.size());
       for (std::size_t i = 0; i < r.size(); ++i) k[i] = r[i].first, v[i] = r[i].second;
       return digest_of(k) ^ mix(digest_of(v));
     }},
    {"spgemm-poisson", [](std::int64_t s) { auto a = poisson_2d(s); return digest_of(measure([&] { return spgemm(a, a); })); }},
    {"spgemm-rmat", [](std::int64_t s) { auto a = rmat_matrix(static_cast<int>(s), 4); return digest_of(measure([&] { return spgemm(a, a); })); }},
    {"dedup", [](std::int64_t n) { auto xs = random_with_duplicates(n); return dedup_digest(measure([&] { return dedup(xs); }), true); }},
    {"wordcount", [](std::int64_t n) { auto t = load_text(n); return digest_of(measure([&] { return word_counts(t); })); }},
    {"quickhull", [](std::int64_t n) { auto ps = load_points(n); return digest_of(measure([&] { return upper_hull(ps); })); }},
    {"primes", [](std::int64_t n) { return digest_of(measure([&] { return primes(n); })); }},
  });
}
