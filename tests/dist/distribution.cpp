// Tests of vseg/dist/distribution.hpp: the three constructors, owner lookup
// with empty ranks, and n = 0.
#include "vseg/dist/distribution.hpp"

#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace vseg::dist;
using namespace vseg::dist::testing;

TEST_CASE("uniform splits as evenly as possible, the first ranks one larger") {
  const int p = nranks();
  for (std::int64_t n : {0, 1, 5, 100, 101}) {
    auto d = distribution::uniform(n, MPI_COMM_WORLD);
    CHECK(d.global_size() == n);
    CHECK(d.nranks() == p);
    CHECK(d.offsets().size() == static_cast<std::size_t>(p) + 1);
    std::int64_t expected = n / p + (rank() < n % p ? 1 : 0);
    CHECK(d.local_size() == expected);
    CHECK(d.local_end() - d.local_begin() == expected);
    // Every owned item is owned by this rank.
    for (std::int64_t i = d.local_begin(); i < d.local_end(); ++i) CHECK(d.owner(i) == rank());
  }
}

TEST_CASE("from_local_size stacks the local sizes in rank order") {
  auto d = distribution::from_local_size(rank() % 2 == 0 ? rank() + 1 : 0, MPI_COMM_WORLD);
  std::int64_t before = 0;
  for (int r = 0; r < rank(); ++r) before += r % 2 == 0 ? r + 1 : 0;
  CHECK(d.local_begin() == before);
  CHECK(d.local_size() == (rank() % 2 == 0 ? rank() + 1 : 0));
  // owner skips the empty ranks.
  for (std::int64_t i = 0; i < d.global_size(); ++i) {
    int o = d.owner(i);
    CHECK(d.offsets()[o] <= i);
    CHECK(i < d.offsets()[o + 1]);
  }
}

TEST_CASE("from_offsets keeps consistent offsets, including all items on one rank") {
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(nranks()) + 1, 0);
  offsets.back() = 42;
  auto d = distribution::from_offsets(offsets, MPI_COMM_WORLD);
  CHECK(d.global_size() == 42);
  CHECK(d.local_size() == (rank() == nranks() - 1 ? 42 : 0));
  CHECK(d.owner(0) == nranks() - 1);
  CHECK(d.owner(41) == nranks() - 1);
  CHECK(d == distribution::from_local_size(rank() == nranks() - 1 ? 42 : 0, MPI_COMM_WORLD));
}
