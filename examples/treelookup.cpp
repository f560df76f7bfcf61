// treeLookup (treelookup.hpp) on a large table: prints the depth, the table
// elements present virtually at the deepest level against the one physical
// copy (a copying representation would need 2^depth tables: at the default
// sizes, far more memory than the machine has), the time, and whether the
// answers equal the flat gather table[q].
//
//   ./treelookup [table size=2^24] [queries=2^20]
#include <chrono>
#include <cstdint>
#include <exception>
#include <iostream>

#include "vseg/vseg.hpp"

#include "args.hpp"
#include "treelookup.hpp"

using vseg::array;
using vseg::nested;

namespace {

// Looks up query_count keys in a table of table_size and checks the result
// against the flat gather; 0 when they match.
int run(std::int64_t table_size, std::int64_t query_count) {
  auto table = vseg::tabulate(table_size, [](std::int64_t i) { return (i * 2654435761) % 1000003; });
  auto queries = vseg::tabulate(query_count, [&](std::int64_t i) {
    return static_cast<std::int64_t>((static_cast<std::uint64_t>(i) * 11400714819323198485ull) %
                                     static_cast<std::uint64_t>(table_size));
  });

  const auto t0 = std::chrono::steady_clock::now();
  treelookup::levels seen;
  auto result = treelookup::tree_lookup(
      vseg::replicate(1, table), nested<std::int64_t>::from_lengths(array<std::int64_t>{query_count}, queries),
      &seen);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Check against the flat-vector version: a plain gather.
  auto expected = vseg::bpermute(table, queries);
  const bool ok = result == expected;
  std::cout << "treeLookup: table " << table_size << ", queries " << query_count << ", depth "
            << seen.depth << "\n"
            << "  virtual table elements at the deepest level: " << seen.virtual_table_elements << " ("
            << seen.virtual_table_elements * 8 / 1e9 << " GB if copied; physical: " << table_size * 8 / 1e6
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
