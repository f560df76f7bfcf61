// treeLookup from "Work Efficient Higher-Order Vectorisation" (ICFP 2012),
// vectorised by hand the way a flattening compiler would:
//
//   treeLookup table xs
//     | length xs == 1 = [table !: (xs !: 0)]
//     | otherwise      = concat (map (treeLookup table) [take half xs, drop half xs])
//
// Each recursion level doubles the number of subproblems and the lifted
// body replicates `table` once per subproblem (expand). With virtual segments
// that replication is index work only: at depth d the table is virtually
// present 2^d times, but only its one physical copy exists. A copying
// representation would need 2^d * |table| elements — at the sizes below,
// far more memory than the machine has.
#include <chrono>
#include <cstdint>
#include <exception>
#include <iostream>

#include "vseg/vseg.hpp"

#include "args.hpp"

using vseg::array;
using vseg::nested;

namespace {

// Lifted treeLookup: the queries of every subproblem, with the table
// replicated once per subproblem. Returns table[q] for every query q, in order.
array<std::int64_t> tree_lookup(nested<std::int64_t> tables, nested<std::int64_t> queries,
                                std::int64_t& depth, double& virtual_table_elements) {
  depth = 0;
  while (true) {
    virtual_table_elements = 0;
    for (std::int64_t len : tables.lengths()) virtual_table_elements += static_cast<double>(len);
    // Split until no subproblem holds more than one query. With a query
    // count that is not a power of two the halves differ by one, and some
    // subproblems reach length 1 (or 0) a level before the others.
    if (queries.size() == 0 || vseg::reduce(queries.lengths(), vseg::maximum<std::int64_t>{}) <= 1) break;
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
  // Base case, lifted: [[table !: x | x <- xs] | (table, xs)], each xs of
  // length 0 or 1; concatenated, the answers in query order.
  return vseg::concat(vseg::index_l(tables, queries));
}

// Looks up query_count keys in a table of table_size and checks the result
// against the flat gather; 0 when they match.
int run(std::int64_t table_size, std::int64_t query_count) {
  auto table = vseg::tabulate(table_size, [](std::int64_t i) { return (i * 2654435761) % 1000003; });
  auto queries = vseg::tabulate(query_count, [&](std::int64_t i) {
    return static_cast<std::int64_t>((static_cast<std::uint64_t>(i) * 11400714819323198485ull) %
                                     static_cast<std::uint64_t>(table_size));
  });

  const auto t0 = std::chrono::steady_clock::now();
  std::int64_t depth = 0;
  double virtual_elements = 0;
  auto result = tree_lookup(vseg::replicate(1, table),
                            nested<std::int64_t>::from_lengths(array<std::int64_t>{query_count}, queries),
                            depth, virtual_elements);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Check against the flat-vector version: a plain gather.
  auto expected = vseg::bpermute(table, queries);
  const bool ok = result == expected;
  std::cout << "treeLookup: table " << table_size << ", queries " << query_count << ", depth "
            << depth << "\n"
            << "  virtual table elements at the deepest level: " << virtual_elements << " ("
            << virtual_elements * 8 / 1e9 << " GB if copied; physical: " << table_size * 8 / 1e6
            << " MB)\n"
            << "  time " << seconds << " s, result " << (ok ? "matches" : "DIFFERS FROM")
            << " the flat gather\n";
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(examples::integer_arg(argc, argv, 1, "table size", std::int64_t{1} << 24, 1,
                                     std::int64_t{1} << 36),
               examples::integer_arg(argc, argv, 2, "queries", std::int64_t{1} << 20, 0,
                                     std::int64_t{1} << 36));
  } catch (const std::exception& e) {
    std::cerr << "treelookup: " << e.what() << "\n";
    return 2;
  }
}
