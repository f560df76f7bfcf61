// Breadth-first search, level-synchronous and vectorised. Shared by
// examples/bfs.cpp and the benchmark bench/irregular.
//
// The graph is a nested array: segment v holds v's neighbours. One step
// takes the whole frontier at once:
//   1. gather the frontier's neighbour lists (virtual: no element copied)
//      and concat them into one flat array of candidates;
//   2. keep the candidates not yet visited (pack);
//   3. a vertex reached from several frontier vertices is kept at its
//      first candidate (remove_duplicates keeps first occurrences in
//      input order), so the next frontier is duplicate-free and the same
//      on any number of threads;
//   4. those form the next frontier; scatter their level.
#pragma once

#include <cstdint>
#include <vector>

#include "vseg/vseg.hpp"

namespace examples {

// level[v] = the number of edges on a shortest path from source to v, -1
// when v is unreachable. O(vertices + edges) work; one step per level.
inline vseg::array<std::int32_t> bfs_levels(const vseg::nested<std::int32_t>& graph, std::int32_t source) {
  const std::int64_t n = graph.size();
  std::vector<std::int32_t> level(static_cast<std::size_t>(n), -1);  // updated in place, level by level
  level.at(static_cast<std::size_t>(source)) = 0;
  vseg::array<std::int32_t> frontier{source};
  for (std::int32_t d = 1; frontier.size() > 0; ++d) {
    const auto out = vseg::concat(vseg::gather(graph, frontier));
    const auto fresh = vseg::pack(out, vseg::map([&](std::int32_t v) { return level[v] < 0; }, out));
    frontier = vseg::remove_duplicates(fresh);
    vseg::scatter_into(level, frontier, d);
  }
  return vseg::array<std::int32_t>(level);
}

}  // namespace examples
