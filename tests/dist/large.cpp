// An exchange above 2^31 elements, on exactly 2 ranks (suite 'mpi-large'):
// rank 1 owns 2^31 + 2^26 chars (items of 4096 chars), rank 0 owns 2^26 and
// requests every item of both ranks, so it receives 2^31 + 2^27 chars from two
// owners, rank 1's block at a displacement of 2^26 and, in int-sized
// messages, a second message at a byte displacement above 2^31. With MPI-4
// (MPICH 4) this is one MPI_Alltoallv_c; with MPI-3.1 (Open MPI 4.1) the
// point-to-point path in messages of at most INT_MAX elements. Then the same
// bytes go back with put. Peak memory: about 7 GB over both ranks.
#include <doctest/doctest.h>
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "helpers.hpp"
#include "vseg/dist.hpp"

using namespace vseg::dist;
using vseg::dist::testing::nranks;
using vseg::dist::testing::rank;

namespace {

constexpr int item_chars = 4096;
constexpr std::int64_t rank0_items = std::int64_t{1} << 14;                                  // 64 MiB
constexpr std::int64_t rank1_items = (std::int64_t{1} << 19) + (std::int64_t{1} << 14);      // 2^31 + 2^26 chars

char pattern(std::int64_t item, std::int64_t c) {
  return static_cast<char>(static_cast<unsigned char>((item * 131 + c * 7 + (item >> 8)) & 0xff));
}

void fill(std::vector<char>& data, std::int64_t first_item) {
  const auto n_items = static_cast<std::int64_t>(data.size()) / item_chars;
  for (std::int64_t i = 0; i < n_items; ++i)
    for (std::int64_t c = 0; c < item_chars; ++c) data[i * item_chars + c] = pattern(first_item + i, c);
}

// The first (item, char) where data differs from the pattern, or -1.
std::int64_t first_mismatch(const std::vector<char>& data, std::int64_t first_item) {
  const auto n_items = static_cast<std::int64_t>(data.size()) / item_chars;
  for (std::int64_t i = 0; i < n_items; ++i)
    for (std::int64_t c = 0; c < item_chars; ++c)
      if (data[i * item_chars + c] != pattern(first_item + i, c)) return i * item_chars + c;
  return -1;
}

}  // namespace

TEST_CASE("take and put of more than 2^31 chars, counts and displacements above INT_MAX") {
  if (nranks() != 2) {
    MESSAGE("this test needs exactly 2 ranks; skipped");
    return;
  }
  auto d = distribution::from_offsets({0, rank0_items, rank0_items + rank1_items}, MPI_COMM_WORLD);
  std::vector<char> local(static_cast<std::size_t>(d.local_size() * item_chars));
  fill(local, d.local_begin());

  std::vector<std::int64_t> indices;
  if (rank() == 0) {
    indices.resize(static_cast<std::size_t>(d.global_size()));
    for (std::int64_t i = 0; i < d.global_size(); ++i) indices[static_cast<std::size_t>(i)] = i;
  }
  const std::int64_t total_chars = d.global_size() * item_chars;
  REQUIRE(total_chars > std::int64_t{1} << 31);

  std::vector<char> taken(indices.size() * item_chars);
  {
    global_indexer gi(d, indices, MPI_COMM_WORLD);
    gi.take(local, taken, item_chars);
  }  // frees the indexer's scratch buffers (2 GiB on rank 1)
  std::int64_t bad = rank() == 0 ? first_mismatch(taken, 0) : -1;
  CHECK(bad == -1);

  // Back to the owners: every item is written once, by rank 0.
  std::memset(local.data(), 0, local.size());
  {
    global_indexer gi(d, indices, MPI_COMM_WORLD);
    gi.put(taken, local, item_chars);
  }
  bad = first_mismatch(local, d.local_begin());
  CHECK(bad == -1);
}
