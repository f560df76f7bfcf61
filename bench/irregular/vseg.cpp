// bench/irregular's vseg contender: the programs of examples/ (each problem
// written in vseg's vectorised style), on the inputs of inputs.hpp converted
// to vseg arrays before the timing.
#include <cstdint>
#include <vector>

#include "bfs.hpp"
#include "dedup.hpp"
#include "harness.hpp"
#include "primes.hpp"
#include "quickhull.hpp"
#include "sort.hpp"
#include "spgemm.hpp"
#include "word_count.hpp"

namespace {

using namespace irregular;

// Segment lengths from CSR offsets.
vseg::array<std::int64_t> lengths_of(const std::vector<std::int64_t>& offsets) {
  return vseg::tabulate(static_cast<std::int64_t>(offsets.size()) - 1, [&](std::int64_t i) { return offsets[i + 1] - offsets[i]; });
}

std::uint64_t run_bfs(const graph& g) {
  const auto adjacency = vseg::nested<std::int32_t>::from_lengths(lengths_of(g.offsets), vseg::array<std::int32_t>(g.targets));
  auto levels = measure([&] { return examples::bfs_levels(adjacency, 0); });
  return digest_of(levels.data(), static_cast<std::size_t>(levels.size()));
}

vseg::csr_matrix to_vseg(const csr& a) {
  return {a.rows, a.cols, lengths_of(a.offsets),
          vseg::map([](std::int32_t j) { return std::int64_t{j}; }, vseg::array<std::int32_t>(a.col)),
          vseg::array<double>(a.val)};
}

std::uint64_t run_spgemm(const csr& in) {
  const auto a = to_vseg(in);
  const auto c = measure([&] { return examples::spgemm(a, a); });
  csr out;
  out.rows = c.rows, out.cols = c.cols;
  out.offsets.push_back(0);
  for (std::int64_t i = 0; i < c.rows; ++i) out.offsets.push_back(out.offsets.back() + c.row_lengths[i]);
  for (std::int64_t k = 0; k < c.nnz(); ++k) out.col.push_back(static_cast<std::int32_t>(c.col_indices[k])), out.val.push_back(c.values[k]);
  return digest_of(out);
}

}  // namespace

int main(int argc, char** argv) {
  return run_main(argc, argv, {
    {"bfs-rmat", [](std::int64_t s) { return run_bfs(load_rmat(s)); }},
    {"bfs-grid", [](std::int64_t s) { return run_bfs(load_grid(s)); }},
    {"spgemm-poisson", [](std::int64_t s) { return run_spgemm(poisson_2d(s)); }},
    {"spgemm-rmat", [](std::int64_t s) { return run_spgemm(rmat_matrix(static_cast<int>(s), 4)); }},
    {"quickhull", [](std::int64_t n) {
       const auto in = load_points(n);
       const auto ps = vseg::tabulate(n, [&](std::int64_t i) { return examples::point{in[i].x, in[i].y}; });
       auto r = measure([&] { return examples::upper_hull(ps); });
       return digest_of(r.data(), static_cast<std::size_t>(r.size()));
     }},
    {"primes", [](std::int64_t n) {
       auto r = measure([&] { return examples::primes(n); });
       return digest_of(r.data(), static_cast<std::size_t>(r.size()));
     }},
    {"dedup", [](std::int64_t n) {
       const vseg::array<std::int64_t> xs(random_with_duplicates(n));
       const auto r = measure([&] { return examples::dedup(xs); });
       return dedup_digest(vseg::to_vector(r), true);
     }},
    {"wordcount", [](std::int64_t n) {
       const vseg::array<char> text(load_text(n));
       const auto r = measure([&] { return examples::word_counts(text); });
       std::vector<word_count> wc;
       for (auto& [w, c] : examples::spelled(text, r)) wc.emplace_back(std::move(w), c);
       return digest_of(std::move(wc));
     }},
    {"sort", [](std::int64_t n) {
       const vseg::array<double> xs(random_doubles(n));
       auto r = measure([&] { return examples::sort_doubles(xs); });
       return digest_of(r.data(), static_cast<std::size_t>(r.size()));
     }},
    {"sort-kv", [](std::int64_t n) {
       const vseg::array<std::uint32_t> keys(random_keys(n));
       const auto values = vseg::iota<std::int64_t>(n);
       auto [k, v] = measure([&] { return examples::sort_pairs(keys, values); });
       return digest_of(k.data(), static_cast<std::size_t>(k.size())) ^ mix(digest_of(v.data(), static_cast<std::size_t>(v.size())));
     }},
  });
}
