// bench/irregular's oneTBB contender: for each problem the straightforward
// parallel version a TBB user writes in about forty lines: parallel_for and
// parallel_invoke, atomics, per-thread buffers and tbb::parallel_sort.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_sort.h>

#include "harness.hpp"

namespace {

using namespace irregular;

// The positions i in [0, n) with keep(i), in order: per-block counts, their
// prefix sums, then every block writes its share.
template <class Keep>
std::vector<std::int64_t> filter_index(std::int64_t n, Keep keep) {
  const std::int64_t block = 1 << 14, blocks = (n + block - 1) / block;
  std::vector<std::int64_t> count(static_cast<std::size_t>(blocks + 1), 0);
  tbb::parallel_for(std::int64_t{0}, blocks, [&](std::int64_t b) {
    for (std::int64_t i = b * block; i < std::min(n, (b + 1) * block); ++i) count[b + 1] += keep(i) ? 1 : 0;
  });
  for (std::int64_t b = 0; b < blocks; ++b) count[b + 1] += count[b];
  std::vector<std::int64_t> out(static_cast<std::size_t>(count[blocks]));
  tbb::parallel_for(std::int64_t{0}, blocks, [&](std::int64_t b) {
    std::int64_t o = count[b];
    for (std::int64_t i = b * block; i < std::min(n, (b + 1) * block); ++i)
      if (keep(i)) out[o++] = i;
  });
  return out;
}

// Level-synchronous BFS: claim a vertex with a compare-exchange on its level,
// collect the next frontier in per-thread vectors.
std::vector<std::int32_t> bfs(const graph& g, std::int32_t source) {
  std::vector<std::atomic<std::int32_t>> level(static_cast<std::size_t>(g.vertices()));
  tbb::parallel_for(std::size_t{0}, level.size(), [&](std::size_t v) { level[v].store(-1, std::memory_order_relaxed); });
  level[source] = 0;
  std::vector<std::int32_t> frontier{source};
  for (std::int32_t d = 1; !frontier.empty(); ++d) {
    tbb::enumerable_thread_specific<std::vector<std::int32_t>> next;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, frontier.size(), 64), [&](const auto& r) {
      auto& mine = next.local();
      for (std::size_t i = r.begin(); i < r.end(); ++i)
        for (std::int64_t k = g.offsets[frontier[i]]; k < g.offsets[frontier[i] + 1]; ++k) {
          std::int32_t unseen = -1;
          const std::int32_t v = g.targets[k];
          if (level[v].load(std::memory_order_relaxed) < 0 && level[v].compare_exchange_strong(unseen, d)) mine.push_back(v);
        }
    });
    frontier.clear();
    for (auto& part : next) frontier.insert(frontier.end(), part.begin(), part.end());
  }
  return std::vector<std::int32_t>(level.begin(), level.end());
}

// C = A * B: rows in parallel, each by Gustavson's algorithm on a per-thread
// dense accumulator; a counting pass sizes the rows, a second fills them.
csr spgemm(const csr& a, const csr& b) {
  struct spa {
    std::vector<double> acc;
    std::vector<char> used;
    std::vector<std::int32_t> cols;
  };
  tbb::enumerable_thread_specific<spa> spas([&] { return spa{std::vector<double>(b.cols), std::vector<char>(b.cols), {}}; });
  auto row = [&](std::int64_t i, spa& s) {
    s.cols.clear();
    for (std::int64_t k = a.offsets[i]; k < a.offsets[i + 1]; ++k)
      for (std::int64_t l = b.offsets[a.col[k]]; l < b.offsets[a.col[k] + 1]; ++l) {
        const std::int32_t j = b.col[l];
        if (!s.used[j]) s.used[j] = 1, s.cols.push_back(j);
        s.acc[j] += a.val[k] * b.val[l];
      }
  };
  csr c;
  c.rows = a.rows, c.cols = b.cols;
  c.offsets.assign(static_cast<std::size_t>(a.rows + 1), 0);
  tbb::parallel_for(std::int64_t{0}, a.rows, [&](std::int64_t i) {
    auto& s = spas.local();
    row(i, s);
    c.offsets[i + 1] = static_cast<std::int64_t>(s.cols.size());
    for (std::int32_t j : s.cols) s.acc[j] = 0, s.used[j] = 0;
  });
  for (std::int64_t i = 0; i < a.rows; ++i) c.offsets[i + 1] += c.offsets[i];
  c.col.resize(static_cast<std::size_t>(c.offsets[a.rows]));
  c.val.resize(c.col.size());
  tbb::parallel_for(std::int64_t{0}, a.rows, [&](std::int64_t i) {
    auto& s = spas.local();
    row(i, s);
    std::sort(s.cols.begin(), s.cols.end());
    std::int64_t o = c.offsets[i];
    for (std::int32_t j : s.cols) c.col[o] = j, c.val[o++] = s.acc[j], s.acc[j] = 0, s.used[j] = 0;
  });
  return c;
}

// First occurrences in input order: sort (value, position) pairs, so each
// value's run starts at its first position; mark those positions and keep
// them in order. (The concurrent_hash_map version, a lock per element, was
// 50x slower on 10^7 values with 10^6 distinct.)
std::vector<std::int64_t> dedup(const std::vector<std::int64_t>& xs) {
  const std::int64_t n = static_cast<std::int64_t>(xs.size());
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs(xs.size());
  tbb::parallel_for(std::int64_t{0}, n, [&](std::int64_t i) { pairs[i] = {xs[i], i}; });
  tbb::parallel_sort(pairs.begin(), pairs.end());
  std::vector<char> first(xs.size());
  tbb::parallel_for(std::int64_t{0}, n, [&](std::int64_t k) {
    first[pairs[k].second] = k == 0 || pairs[k].first != pairs[k - 1].first;
  });
  const auto keep = filter_index(n, [&](std::int64_t i) { return first[i] != 0; });
  std::vector<std::int64_t> out(keep.size());
  tbb::parallel_for(std::size_t{0}, keep.size(), [&](std::size_t k) { out[k] = xs[keep[k]]; });
  return out;
}

// Per-thread hash maps over chunks of the text cut at spaces, then merged.
std::vector<word_count> word_counts(const std::vector<char>& text) {
  using counts = std::unordered_map<std::string_view, std::int64_t>;
  tbb::combinable<counts> local;
  const std::int64_t n = static_cast<std::int64_t>(text.size());
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n, 1 << 16), [&](const auto& r) {
    auto& c = local.local();
    std::int64_t i = r.begin();
    while (i > 0 && i < n && text[i - 1] != ' ') ++i;  // the word under the cut belongs to the left chunk
    while (i < r.end()) {
      while (i < n && text[i] == ' ') ++i;
      const std::int64_t w = i;
      while (i < n && text[i] != ' ') ++i;
      if (i > w && w < r.end()) ++c[std::string_view(text.data() + w, static_cast<std::size_t>(i - w))];
    }
  });
  counts all;
  local.combine_each([&](const counts& c) { for (const auto& [w, k] : c) all[w] += k; });
  std::vector<word_count> out;
  for (const auto& [w, c] : all) out.emplace_back(std::string(w), c);
  return out;
}

// Quickhull: the farthest point by parallel_reduce, the two sides by a
// parallel filter, the two recursions by parallel_invoke.
void hull_between(const std::vector<point>& ps, const std::vector<std::int32_t>& idx, point l, point r,
                  std::vector<std::int32_t>& out) {
  if (idx.empty()) return;
  const std::int64_t n = static_cast<std::int64_t>(idx.size());
  using best = std::pair<double, std::int32_t>;
  const best far = tbb::parallel_reduce(
      tbb::blocked_range<std::int64_t>(0, n, 4096), best{-1, -1},
      [&](const auto& r_, best b) {
        for (std::int64_t k = r_.begin(); k < r_.end(); ++k)
          if (const double a = area(l, r, ps[idx[k]]); a > b.first || (a == b.first && idx[k] < b.second)) b = {a, idx[k]};
        return b;
      },
      [](best x, best y) { return x.first > y.first || (x.first == y.first && x.second < y.second) ? x : y; });
  const point m = ps[far.second];
  auto side = [&](point p, point q) {
    const auto keep = filter_index(n, [&](std::int64_t k) { return area(p, q, ps[idx[k]]) > 0; });
    std::vector<std::int32_t> s(keep.size());
    for (std::size_t k = 0; k < keep.size(); ++k) s[k] = idx[keep[k]];
    return s;
  };
  std::vector<std::int32_t> left_out, right_out;
  tbb::parallel_invoke([&] { hull_between(ps, side(l, m), l, m, left_out); },
                       [&] { hull_between(ps, side(m, r), m, r, right_out); });
  out.insert(out.end(), left_out.begin(), left_out.end());
  out.push_back(far.second);
  out.insert(out.end(), right_out.begin(), right_out.end());
}

std::vector<std::int32_t> upper_hull(const std::vector<point>& ps) {
  const std::int64_t n = static_cast<std::int64_t>(ps.size());
  auto less = [&](std::int64_t a, std::int64_t b) { return ps[a].x < ps[b].x || (ps[a].x == ps[b].x && ps[a].y < ps[b].y); };
  using ends = std::pair<std::int64_t, std::int64_t>;
  const ends e = tbb::parallel_reduce(
      tbb::blocked_range<std::int64_t>(0, n), ends{0, 0},
      [&](const auto& r, ends b) {
        for (std::int64_t i = r.begin(); i < r.end(); ++i) {
          if (less(i, b.first)) b.first = i;
          if (less(b.second, i)) b.second = i;
        }
        return b;
      },
      [&](ends x, ends y) { return ends{less(y.first, x.first) ? y.first : x.first, less(x.second, y.second) ? y.second : x.second}; });
  const point lo = ps[e.first], hi = ps[e.second];
  const auto keep = filter_index(n, [&](std::int64_t i) { return area(lo, hi, ps[i]) > 0; });
  std::vector<std::int32_t> above(keep.begin(), keep.end()), out{static_cast<std::int32_t>(e.first)};
  hull_between(ps, above, lo, hi, out);
  out.push_back(static_cast<std::int32_t>(e.second));
  return out;
}

// The primes up to n: the small primes serially, then blocks of the range
// sieved in parallel (each block's flags stay in cache).
std::vector<std::int64_t> primes(std::int64_t n) {
  const std::int64_t root = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
  std::vector<char> composite(static_cast<std::size_t>(n + 1), 0);
  std::vector<std::int64_t> small;
  for (std::int64_t p = 2; p <= root; ++p)
    if (!composite[p]) {
      small.push_back(p);
      for (std::int64_t k = p * p; k <= root; k += p) composite[k] = 1;
    }
  const std::int64_t block = 1 << 16;
  tbb::parallel_for(std::int64_t{0}, n / block + 1, [&](std::int64_t b) {
    const std::int64_t lo = std::max(root + 1, b * block), hi = std::min(n + 1, (b + 1) * block);
    for (std::int64_t p : small)
      for (std::int64_t k = std::max(p * p, (lo + p - 1) / p * p); k < hi; k += p) composite[k] = 1;
  });
  const auto keep = filter_index(n + 1, [&](std::int64_t i) { return i >= 2 && !composite[i]; });
  return keep;
}

}  // namespace

int main(int argc, char** argv) {
  return run_main(argc, argv, {
    {"bfs-rmat", [](std::int64_t s) { auto g = load_rmat(s); return digest_of(measure([&] { return bfs(g, 0); })); }},
    {"bfs-grid", [](std::int64_t s) { auto g = load_grid(s); return digest_of(measure([&] { return bfs(g, 0); })); }},
    {"sort", [](std::int64_t n) {
       const auto xs = random_doubles(n);
       return digest_of(measure([&] { auto ys = xs; tbb::parallel_sort(ys.begin(), ys.end()); return ys; }));
     }},
    {"sort-kv", [](std::int64_t n) {
       const auto ks = random_keys(n);
       std::vector<std::pair<std::uint32_t, std::int64_t>> kv(ks.size());
       for (std::size_t i = 0; i < ks.size(); ++i) kv[i] = {ks[i], static_cast<std::int64_t>(i)};
       // parallel_sort is not stable; ordering by (key, position) makes it so.
       auto r = measure([&] { auto ys = kv; tbb::parallel_sort(ys.begin(), ys.end()); return ys; });
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
