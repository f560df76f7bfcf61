// bench/irregular's ParlayLib contender: ParlayLib's own example programs
// (../shared/peers/parlaylib/examples: BFS, word_counts, quickhull, primes)
// and its library calls where it has no example (sort, stable_sort,
// remove_duplicates). SpGEMM has neither; it is written here with ParlayLib's
// primitives the way its examples are (a tabulate over rows, per-worker dense
// accumulators, flatten). Built twice: on ParlayLib's own scheduler
// (irregular_parlay) and with -DPARLAY_TBB (irregular_parlay_tbb).
#include <cstdint>
#include <utility>
#include <vector>

#include <parlay/internal/group_by.h>
#include <parlay/primitives.h>
#include <parlay/sequence.h>

#include "BFS.h"
#include "primes.h"
#include "quickhull.h"
#include "word_counts.h"

#include "harness.hpp"

namespace {

// C = A * B: every row by Gustavson's algorithm on the worker's own dense
// accumulator, rows in parallel, then flattened into CSR.
irregular::csr spgemm(const irregular::csr& a, const irregular::csr& b) {
  struct accumulator {
    std::vector<double> acc;
    std::vector<char> used;
  };
  auto workers = parlay::sequence<accumulator>(parlay::num_workers());
  auto rows = parlay::tabulate(a.rows, [&](std::int64_t i) {
    auto& w = workers[parlay::worker_id()];
    if (w.acc.empty()) w.acc.assign(static_cast<std::size_t>(b.cols), 0), w.used.assign(static_cast<std::size_t>(b.cols), 0);
    parlay::sequence<std::int32_t> cols;
    for (std::int64_t k = a.offsets[i]; k < a.offsets[i + 1]; ++k)
      for (std::int64_t l = b.offsets[a.col[k]]; l < b.offsets[a.col[k] + 1]; ++l) {
        const std::int32_t j = b.col[l];
        if (!w.used[j]) w.used[j] = 1, cols.push_back(j);
        w.acc[j] += a.val[k] * b.val[l];
      }
    std::sort(cols.begin(), cols.end());
    auto vals = parlay::map(cols, [&](std::int32_t j) { double x = w.acc[j]; w.acc[j] = 0, w.used[j] = 0; return x; });
    return std::make_pair(std::move(cols), std::move(vals));
  }, 1);
  irregular::csr c;
  c.rows = a.rows, c.cols = b.cols;
  auto lengths = parlay::map(rows, [](const auto& r) { return static_cast<std::int64_t>(r.first.size()); });
  auto [offsets, nnz] = parlay::scan(lengths);
  c.offsets.assign(offsets.begin(), offsets.end());
  c.offsets.push_back(nnz);
  c.col.resize(static_cast<std::size_t>(nnz));
  c.val.resize(static_cast<std::size_t>(nnz));
  parlay::parallel_for(0, a.rows, [&](std::int64_t i) {
    std::copy(rows[i].first.begin(), rows[i].first.end(), c.col.begin() + offsets[i]);
    std::copy(rows[i].second.begin(), rows[i].second.end(), c.val.begin() + offsets[i]);
  });
  return c;
}

using graph = parlay::sequence<parlay::sequence<int>>;

graph to_parlay(const irregular::graph& g) {
  return parlay::tabulate(g.vertices(), [&](std::int64_t u) {
    return parlay::sequence<int>(g.targets.begin() + g.offsets[u], g.targets.begin() + g.offsets[u + 1]);
  });
}

std::uint64_t run_bfs(const irregular::graph& g) {
  const graph G = to_parlay(g);
  auto frontiers = irregular::measure([&] { return BFS(0, G); });
  return irregular::digest_of(irregular::levels_from_frontiers(g.vertices(), frontiers));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace irregular;
  return run_main(argc, argv, {
    {"bfs-rmat", [](std::int64_t s) { return run_bfs(load_rmat(s)); }},
    {"bfs-grid", [](std::int64_t s) { return run_bfs(load_grid(s)); }},
    {"sort", [](std::int64_t n) {
       const auto v = random_doubles(n);
       const parlay::sequence<double> xs(v.begin(), v.end());
       auto r = measure([&] { return parlay::sort(xs); });
       return digest_of(r.data(), r.size());
     }},
    {"sort-kv", [](std::int64_t n) {
       const auto ks = random_keys(n);
       auto kv = parlay::tabulate(n, [&](std::int64_t i) { return std::make_pair(ks[i], i); });
       auto r = measure([&] { return parlay::stable_sort(kv, [](const auto& a, const auto& b) { return a.first < b.first; }); });
       std::vector<std::uint32_t> k(r.size());
       std::vector<std::int64_t> v(r.size());
       for (std::size_t i = 0; i < r.size(); ++i) k[i] = r[i].first, v[i] = r[i].second;
       return digest_of(k) ^ mix(digest_of(v));
     }},
    {"spgemm-poisson", [](std::int64_t s) { auto a = poisson_2d(s); return digest_of(measure([&] { return spgemm(a, a); })); }},
    {"spgemm-rmat", [](std::int64_t s) { auto a = rmat_matrix(static_cast<int>(s), 4); return digest_of(measure([&] { return spgemm(a, a); })); }},
    {"dedup", [](std::int64_t n) {
       const auto v = random_with_duplicates(n);
       const parlay::sequence<std::int64_t> xs(v.begin(), v.end());
       auto r = measure([&] { return parlay::remove_duplicates(xs); });
       return dedup_digest(std::vector<std::int64_t>(r.begin(), r.end()), false);
     }},
    {"wordcount", [](std::int64_t n) {
       const auto t = load_text(n);
       const parlay::sequence<char> text(t.begin(), t.end());
       auto r = measure([&] { return word_counts(text); });
       std::vector<word_count> wc;
       for (const auto& [w, c] : r) wc.emplace_back(std::string(w.begin(), w.end()), c);
       return digest_of(std::move(wc));
     }},
    {"quickhull", [](std::int64_t n) {
       const auto ps = load_points(n);
       const auto P = parlay::tabulate(n, [&](std::int64_t i) { return ::point{ps[i].x, ps[i].y}; });
       auto r = measure([&] { return upper_hull(P); });
       return digest_of(std::vector<std::int32_t>(r.begin(), r.end()));
     }},
    {"primes", [](std::int64_t n) {
       auto r = measure([&] { return primes(n); });
       return digest_of(std::vector<std::int64_t>(r.begin(), r.end()));
     }},
  });
}
