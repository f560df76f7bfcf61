// Shared helpers of the MPI tests: the communicator's shape, gathering every
// rank's vector on every rank (so a serial reference can be computed
// everywhere), seeded random inputs, and a global segmented array that every
// rank rebuilds and distributes by segment counts.
#pragma once

#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "vseg/dist.hpp"

namespace vseg::dist::testing {

inline int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int nranks() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Every rank's vector, on every rank, in rank order.
template <class T>
std::vector<std::vector<T>> allgather(const std::vector<T>& local) {
  const int p = nranks();
  std::int64_t n = static_cast<std::int64_t>(local.size());
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(p));
  MPI_Allgather(&n, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
  std::vector<int> bytes(static_cast<std::size_t>(p)), displs(static_cast<std::size_t>(p));
  int total = 0;
  for (int r = 0; r < p; ++r) {
    bytes[r] = static_cast<int>(sizes[r] * static_cast<std::int64_t>(sizeof(T)));
    displs[r] = total;
    total += bytes[r];
  }
  std::vector<unsigned char> all(static_cast<std::size_t>(total) + 1);
  MPI_Allgatherv(local.data(), bytes[rank()], MPI_BYTE, all.data(), bytes.data(), displs.data(), MPI_BYTE,
                 MPI_COMM_WORLD);
  std::vector<std::vector<T>> result(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    result[r].resize(static_cast<std::size_t>(sizes[r]));
    if (bytes[r] > 0) std::memcpy(result[r].data(), all.data() + displs[r], static_cast<std::size_t>(bytes[r]));
  }
  return result;
}

// The same seed on every rank, mixed with the rank where inputs must differ.
inline std::mt19937_64 rng_for(std::uint64_t seed, int r) { return std::mt19937_64(seed * 1000003u + static_cast<std::uint64_t>(r)); }

// n uniform indices in [0, global) (none if global is 0).
inline std::vector<std::int64_t> random_indices(std::mt19937_64& rng, std::int64_t n, std::int64_t global) {
  std::vector<std::int64_t> result;
  if (global == 0) return result;
  std::uniform_int_distribution<std::int64_t> pick(0, global - 1);
  for (std::int64_t k = 0; k < n; ++k) result.push_back(pick(rng));
  return result;
}

// x_i = scale * i + offset for i < n, one segment of n built on rank 0, then
// split by elements over the ranks and replicated on every rank (the two
// layouts index_l reads x from).
struct spread_vector {
  std::vector<double> values;
  nested<double> split, everywhere;
};
inline spread_vector spread(std::int64_t n, double scale, double offset) {
  std::vector<double> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = scale * static_cast<double>(i) + offset;
  variable<double> local;
  if (rank() == 0) local = variable<double>{{n}, values};
  const auto whole = nested<double>::from_segments(std::move(local), MPI_COMM_WORLD);
  auto split = whole.reshard(sharding::split());
  auto everywhere = whole.reshard(sharding::replicated());
  return {std::move(values), std::move(split), std::move(everywhere)};
}

// `segments` segments of indices below n on this rank, each of rng() %
// max_length indices drawn from rng.
inline variable<std::int64_t> random_index_segments(std::mt19937_64& rng, int segments, std::uint64_t max_length,
                                                    std::int64_t n) {
  variable<std::int64_t> idx;
  for (int s = 0; s < segments; ++s) {
    const auto len = static_cast<std::int64_t>(rng() % max_length);
    idx.counts.push_back(len);
    for (std::int64_t k = 0; k < len; ++k) idx.data.push_back(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n)));
  }
  return idx;
}

// A segmented array every rank rebuilds alike (the serial reference of a
// distributed one): its segment lengths, its elements and the segments'
// starts (lengths.size() + 1 of them).
struct global_array {
  std::vector<std::int64_t> lengths;
  std::vector<double> data;
  std::vector<std::int64_t> starts;
};

// The global array of these lengths and elements (their sum). O(segments).
inline global_array global_array_of(std::vector<std::int64_t> lengths, std::vector<double> data) {
  std::vector<std::int64_t> starts{0};
  for (auto len : lengths) starts.push_back(starts.back() + len);
  return {std::move(lengths), std::move(data), std::move(starts)};
}

// The global array of these lengths, its elements drawn from rng as
// u(-1, 1) * 2^(0..19): magnitudes far apart, so that a fold in another
// order gives other bits. O(elements).
inline global_array random_global_array(std::vector<std::int64_t> lengths, std::mt19937_64& rng) {
  std::vector<double> data;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (auto len : lengths)
    for (std::int64_t k = 0; k < len; ++k) data.push_back(u(rng) * std::ldexp(1.0, static_cast<int>(rng() % 20)));
  return global_array_of(std::move(lengths), std::move(data));
}

// g distributed: rank r holds its segments [m r / p, m (r + 1) / p) of m,
// equal segment counts. O(elements).
inline nested<double> distribute(const global_array& g) {
  const auto m = static_cast<std::int64_t>(g.lengths.size());
  const std::int64_t first = m * rank() / nranks(), last = m * (rank() + 1) / nranks();
  variable<double> mine;
  for (std::int64_t s = first; s < last; ++s) {
    mine.counts.push_back(g.lengths[s]);
    mine.data.insert(mine.data.end(), g.data.begin() + g.starts[s], g.data.begin() + g.starts[s + 1]);
  }
  return nested<double>::from_segments(std::move(mine), MPI_COMM_WORLD);
}

// The bits of x, to compare doubles exactly (NaNs and signed zeros too). O(1).
inline std::uint64_t bits(double x) {
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// The distributions the tests sweep: uniform, all on the last rank (the
// others empty), every other rank empty, all on the first rank.
inline std::vector<distribution> test_distributions(std::int64_t n_global) {
  const int p = nranks();
  std::vector<distribution> result;
  result.push_back(distribution::uniform(n_global, MPI_COMM_WORLD));
  std::vector<std::int64_t> last(static_cast<std::size_t>(p) + 1, 0);
  last[p] = n_global;
  result.push_back(distribution::from_offsets(last, MPI_COMM_WORLD));
  std::vector<std::int64_t> alternate(static_cast<std::size_t>(p) + 1, 0);
  const int holders = (p + 1) / 2;
  for (int r = 0; r < p; ++r)
    alternate[r + 1] = alternate[r] + (r % 2 == 0 ? n_global / holders + (r / 2 < n_global % holders ? 1 : 0) : 0);
  result.push_back(distribution::from_offsets(alternate, MPI_COMM_WORLD));
  result.push_back(distribution::from_local_size(rank() == 0 ? n_global : 0, MPI_COMM_WORLD));
  return result;
}

}  // namespace vseg::dist::testing
