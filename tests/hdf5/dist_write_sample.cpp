// Writes a sample distributed array to argv[1] on every rank (int64 values,
// uneven shards, rank r holding segments of lengths hashed from their global
// index) and prints, on rank 0, every segment's sum as the ranks computed it
// in memory, one a line: tests/hdf5/dist_read_with_python.py compares them
// with what the serial reader (read_sums) and h5py read from the file.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

#include "vseg/hdf5/dist.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 1, status = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc != 2) {
    if (rank == 0) std::fprintf(stderr, "usage: mpiexec -n P dist_write_sample OUT.h5\n");
    MPI_Finalize();
    return 2;
  }
  try {
    // Rank r holds segments [1000 r + 200 r^2, ...): shards of different sizes.
    const auto first = [](std::int64_t r) { return 1000 * r + 200 * r * r; };
    vseg::dist::variable<std::int64_t> mine;
    for (std::int64_t j = first(rank); j < first(rank + 1); ++j) {
      std::uint64_t h = (static_cast<std::uint64_t>(j) + 7) * 0xbf58476d1ce4e5b9ULL;
      h ^= h >> 29;
      const auto n = static_cast<std::int64_t>(h % 7 == 0 ? 0 : h % 300);
      mine.counts.push_back(n);
      for (std::int64_t k = 0; k < n; ++k) mine.data.push_back(static_cast<std::int64_t>((h >> 20) % 1000) - 500 + k);
    }
    const auto xs = vseg::dist::nested<std::int64_t>::from_segments(std::move(mine), MPI_COMM_WORLD);
    vseg::hdf5::save(argv[1], xs);
    // The sums, gathered to rank 0 in rank order.
    const std::vector<std::int64_t> sums = xs.sum_local_segments();
    const int count = static_cast<int>(sums.size());
    std::vector<int> counts(static_cast<std::size_t>(p)), displs(static_cast<std::size_t>(p));
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < p; ++r) {
      displs[static_cast<std::size_t>(r)] = total;
      total += counts[static_cast<std::size_t>(r)];
    }
    std::vector<std::int64_t> all(static_cast<std::size_t>(rank == 0 ? total : 0));
    MPI_Gatherv(sums.data(), count, MPI_INT64_T, all.data(), counts.data(), displs.data(), MPI_INT64_T, 0,
                MPI_COMM_WORLD);
    for (std::int64_t s : all) std::printf("%lld\n", static_cast<long long>(s));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dist_write_sample (rank %d): %s\n", rank, e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
