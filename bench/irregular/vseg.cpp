// bench/irregular's vseg contender: the programs of examples/ (each problem
// written in vseg's vectorised style), on the inputs of inputs.hpp converted
// to vseg arrays before the timing.
#include <cstdint>
#include <vector>

#include "bfs.hpp"
#include "harness.hpp"
#include "sort.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  return run_main(argc, argv, {
    {"bfs-rmat", [](std::int64_t s) { return run_bfs(load_rmat(s)); }},
    {"bfs-grid", [](std::int64_t s) { return run_bfs(load_grid(s)); }},
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
