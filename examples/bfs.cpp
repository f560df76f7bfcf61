// BFS levels with vseg (examples/bfs.hpp) on a grid and a random graph,
// checked against a serial queue-based BFS. Exits non-zero on a mismatch.
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

#include "bfs.hpp"

namespace {

using adjacency = std::vector<std::vector<std::int32_t>>;

std::vector<std::int32_t> bfs_reference(const adjacency& g, std::int32_t source) {
  std::vector<std::int32_t> level(g.size(), -1), queue{source};
  level[source] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head)
    for (std::int32_t v : g[queue[head]])
      if (level[v] < 0) level[v] = level[queue[head]] + 1, queue.push_back(v);
  return level;
}

adjacency grid(std::int32_t side) {
  adjacency g(static_cast<std::size_t>(side) * side);
  for (std::int32_t r = 0; r < side; ++r)
    for (std::int32_t c = 0; c < side; ++c) {
      auto& a = g[r * side + c];
      if (r > 0) a.push_back((r - 1) * side + c);
      if (c > 0) a.push_back(r * side + c - 1);
      if (c + 1 < side) a.push_back(r * side + c + 1);
      if (r + 1 < side) a.push_back((r + 1) * side + c);
    }
  return g;
}

// n vertices, m random undirected edges with a skew towards low ids
// (some vertices stay isolated, so unreachable ones are tested too).
adjacency random_graph(std::int32_t n, std::int64_t m) {
  std::mt19937 rng(13);
  adjacency g(static_cast<std::size_t>(n));
  for (std::int64_t e = 0; e < m; ++e) {
    const auto u = static_cast<std::int32_t>(rng() % n), v = static_cast<std::int32_t>(rng() % (rng() % n + 1));
    if (u != v) g[u].push_back(v), g[v].push_back(u);
  }
  return g;
}

bool check(const char* name, const adjacency& g, std::int32_t source) {
  const auto levels = examples::bfs_levels(vseg::nested<std::int32_t>::from(g), source);
  const bool ok = vseg::to_vector(levels) == bfs_reference(g, source);
  std::cout << "bfs " << name << " (" << g.size() << " vertices): " << (ok ? "ok" : "WRONG") << "\n";
  return ok;
}

}  // namespace

int main() {
  bool ok = check("grid 120x120", grid(120), 0);
  ok = check("random graph", random_graph(60'000, 180'000), 0) && ok;
  ok = check("single vertex", adjacency(1), 0) && ok;
  return ok ? 0 : 1;
}
