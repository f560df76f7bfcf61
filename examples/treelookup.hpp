// treeLookup from "Work Efficient Higher-Order Vectorisation" (ICFP 2012),
// vectorised by hand the way a flattening compiler would:
//
//   treeLookup table xs
//     | length xs <= 1 = [table !: x | x <- xs]
//     | otherwise      = concat (map (treeLookup table) [take half xs, drop half xs])
//
// Each recursion level doubles the number of subproblems and the lifted
// body replicates `table` once per subproblem (expand). With virtual segments
// that replication is index work only: at depth d the table is virtually
// present 2^d times, but only its one physical copy exists. The example
// (treelookup.cpp) and bench_spmv's treelookup both run this function.
#pragma once

#include <cstdint>

#include "vseg/vseg.hpp"

namespace treelookup {

// What the deepest level looked like: its depth and the table elements
// present virtually there (one table per subproblem).
struct levels {
  std::int64_t depth = 0;
  double virtual_table_elements = 0;
};

// Lifted treeLookup: the queries of every subproblem, with its table.
// Returns table[q] for every query q, in order. O(queries * log queries)
// index work; no table element is copied.
inline vseg::array<std::int64_t> tree_lookup(vseg::nested<std::int64_t> tables,
                                             vseg::nested<std::int64_t> queries, levels* seen = nullptr) {
  std::int64_t depth = 0;
  // Halving keeps every subproblem's length within one of the others', and
  // the last subproblem (the upper half of the upper half ...) is always a
  // longest: when it holds at most one query, they all do.
  while (queries.size() != 0 && queries.length(queries.size() - 1) > 1) {
    const std::int64_t n = queries.size();
    // Two subproblems per subproblem: each segment split into its halves.
    auto doubled = vseg::expand(2, queries);
    // Subproblem j splits into [take half xs, drop half xs], half = |xs| / 2:
    // segments 2j and 2j + 1 of `doubled`, sliced by j's own length.
    const auto lengths = queries.lengths();  // the physical lengths: no copy
    auto starts = vseg::tabulate(2 * n, [&](std::int64_t k) {
      return k % 2 == 0 ? std::int64_t{0} : lengths[k / 2] / 2;
    });
    auto halves = vseg::tabulate(2 * n, [&](std::int64_t k) {
      const std::int64_t len = lengths[k / 2];
      return k % 2 == 0 ? len / 2 : len - len / 2;
    });
    queries = vseg::slice_l(doubled, starts, halves);
    // The lifted body needs the table once per subproblem: lifted replicate.
    tables = vseg::expand(2, tables);
    ++depth;
  }
  if (seen != nullptr) {
    seen->depth = depth;
    seen->virtual_table_elements = 0;
    for (std::int64_t len : tables.lengths()) seen->virtual_table_elements += static_cast<double>(len);
  }
  // Base case, lifted: [[table !: x | x <- xs] | (table, xs)], each xs of
  // length 0 or 1; concatenated, the answers in query order. When every xs
  // holds one query (a power-of-two count: the first subproblem, a shortest,
  // has one) that is one gather per subproblem, table !: (xs !: 0), which
  // reads no per-segment descriptor of the result.
  if (queries.size() != 0 && queries.length(0) == 1)
    return vseg::index_l(tables, vseg::index_l(queries, vseg::fill<std::int64_t>(queries.size(), 0)));
  return vseg::concat(vseg::index_l(tables, queries));
}

}  // namespace treelookup
