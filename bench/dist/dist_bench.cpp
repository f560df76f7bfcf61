// Timed MPI benchmark of the distributed layer (a plain MPI program: Google
// Benchmark's timing loop does not synchronise ranks). For each size it
// reports, as the median over repetitions with a barrier before each:
//
//   build      global_indexer construction (the protocol)
//   take       gi.take of one double per request
//   hand take  the same by hand: pack from a precomputed plan, MPI_Alltoallv, unpack
//   alltoallv  the bare MPI_Alltoallv of those bytes, nothing else
//   take_v     gi.take_v of items of 0..8 doubles
//   hand v     the same by hand: pack, MPI_Alltoallv of lengths, MPI_Alltoallv of data, unpack
//   put_v      gi.put_v (extend) of the same items back
//   indexed    take_v's data exchange with the segments sent in place through
//              an MPI hindexed datatype per destination (MPI_Alltoallw) instead of packed
//
//   mpiexec -n 2 ./dist_bench [requests_per_rank ...]
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "vseg/dist.hpp"

namespace {

using vseg::dist::distribution;
using vseg::dist::global_indexer;

template <class F>
double median_time(int repetitions, F&& f) {
  std::vector<double> times;
  for (int r = 0; r < repetitions; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    f();
    double t = MPI_Wtime() - start;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    times.push_back(t);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<int> exclusive(const std::vector<int>& counts) {
  std::vector<int> d(counts.size(), 0);
  std::exclusive_scan(counts.begin(), counts.end(), d.begin(), 0);
  return d;
}

void run(std::int64_t per_rank, int rank, int nranks) {
  const std::int64_t n = per_rank * nranks;
  auto d = distribution::uniform(n, MPI_COMM_WORLD);
  std::mt19937_64 rng(42 + static_cast<unsigned>(rank));
  std::uniform_int_distribution<std::int64_t> pick(0, n - 1);
  std::vector<std::int64_t> indices(static_cast<std::size_t>(per_rank));
  for (auto& i : indices) i = pick(rng);

  std::vector<double> x(static_cast<std::size_t>(d.local_size()));
  std::iota(x.begin(), x.end(), static_cast<double>(d.local_begin()));
  std::vector<std::int64_t> lengths(x.size());
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<std::int64_t>((i * 7) % 9);
  std::vector<double> items(static_cast<std::size_t>(std::accumulate(lengths.begin(), lengths.end(), std::int64_t{0})), 1.5);

  const int reps = per_rank >= 1000000 ? 5 : 21;
  double build = median_time(reps, [&] { global_indexer gi(d, indices, MPI_COMM_WORLD); });
  global_indexer gi(d, indices, MPI_COMM_WORLD);
  std::vector<double> out(indices.size());
  double take = median_time(reps, [&] { gi.take(x, out); });

  // The hand-written take: plan (owner-sorted requests, served local ids) made once.
  std::vector<int> send_counts(static_cast<std::size_t>(nranks), 0), recv_counts(send_counts);
  for (auto i : indices) ++send_counts[d.owner(i)];
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  auto send_displs = exclusive(send_counts), recv_displs = exclusive(recv_counts);
  std::vector<std::int64_t> order(indices.size()), sorted(indices.size());
  {
    auto next = send_displs;
    for (std::size_t k = 0; k < indices.size(); ++k) {
      int slot = next[d.owner(indices[k])]++;
      order[slot] = static_cast<std::int64_t>(k);
      sorted[slot] = indices[k];
    }
  }
  const int served = recv_displs.back() + recv_counts.back();
  std::vector<std::int64_t> served_ids(static_cast<std::size_t>(served));
  MPI_Alltoallv(sorted.data(), send_counts.data(), send_displs.data(), MPI_INT64_T, served_ids.data(),
                recv_counts.data(), recv_displs.data(), MPI_INT64_T, MPI_COMM_WORLD);
  for (auto& s : served_ids) s -= d.local_begin();
  std::vector<double> packed(served_ids.size()), arrived(indices.size());
  double hand_take = median_time(reps, [&] {
    for (std::size_t j = 0; j < served_ids.size(); ++j) packed[j] = x[served_ids[j]];
    MPI_Alltoallv(packed.data(), recv_counts.data(), recv_displs.data(), MPI_DOUBLE, arrived.data(),
                  send_counts.data(), send_displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
    for (std::size_t k = 0; k < order.size(); ++k) out[order[k]] = arrived[k];
  });
  double bare = median_time(reps, [&] {
    MPI_Alltoallv(packed.data(), recv_counts.data(), recv_displs.data(), MPI_DOUBLE, arrived.data(),
                  send_counts.data(), send_displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  });

  // Variable-length items.
  double take_v = median_time(reps, [&] { auto v = gi.take_v(lengths, items); });
  auto taken = gi.take_v(lengths, items);
  double put_v = median_time(reps, [&] { auto v = gi.put_v(taken.counts, taken.data, vseg::dist::put_mode::extend); });

  std::vector<std::int64_t> starts(lengths.size() + 1, 0);
  std::inclusive_scan(lengths.begin(), lengths.end(), starts.begin() + 1);
  std::vector<std::int64_t> served_len(served_ids.size()), arrived_len(indices.size());
  std::vector<double> packed_v, arrived_v, out_v(taken.data.size());
  std::vector<int> send_elems(static_cast<std::size_t>(nranks)), recv_elems(send_elems);
  double hand_v = median_time(reps, [&] {
    packed_v.clear();
    for (std::size_t j = 0; j < served_ids.size(); ++j) {
      served_len[j] = lengths[served_ids[j]];
      packed_v.insert(packed_v.end(), items.begin() + starts[served_ids[j]], items.begin() + starts[served_ids[j] + 1]);
    }
    MPI_Alltoallv(served_len.data(), recv_counts.data(), recv_displs.data(), MPI_INT64_T, arrived_len.data(),
                  send_counts.data(), send_displs.data(), MPI_INT64_T, MPI_COMM_WORLD);
    for (int r = 0; r < nranks; ++r) {
      send_elems[r] = static_cast<int>(std::accumulate(served_len.begin() + recv_displs[r],
                                                       served_len.begin() + recv_displs[r] + recv_counts[r], std::int64_t{0}));
      recv_elems[r] = static_cast<int>(std::accumulate(arrived_len.begin() + send_displs[r],
                                                       arrived_len.begin() + send_displs[r] + send_counts[r], std::int64_t{0}));
    }
    auto se = exclusive(send_elems), re = exclusive(recv_elems);
    arrived_v.resize(static_cast<std::size_t>(re.back() + recv_elems.back()));
    MPI_Alltoallv(packed_v.data(), send_elems.data(), se.data(), MPI_DOUBLE, arrived_v.data(), recv_elems.data(),
                  re.data(), MPI_DOUBLE, MPI_COMM_WORLD);
    // Unpack into request order.
    std::vector<std::int64_t> out_len(order.size()), out_start(order.size() + 1, 0);
    for (std::size_t k = 0; k < order.size(); ++k) out_len[order[k]] = arrived_len[k];
    std::inclusive_scan(out_len.begin(), out_len.end(), out_start.begin() + 1);
    for (std::size_t k = 0, at = 0; k < order.size(); at += arrived_len[k], ++k)
      std::copy_n(arrived_v.data() + at, arrived_len[k], out_v.data() + out_start[order[k]]);
  });

  // In place: one hindexed type per destination naming the served segments
  // where they lie (built each time, as take_v would have to).
  std::vector<int> zero(static_cast<std::size_t>(nranks), 0), ones(zero), recv_bytes_displs(zero);
  std::vector<MPI_Datatype> send_types(static_cast<std::size_t>(nranks)), recv_types(send_types);
  double indexed = median_time(reps, [&] {
    for (int r = 0; r < nranks; ++r) {
      std::vector<int> blocks;
      std::vector<MPI_Aint> where;
      for (int j = recv_displs[r]; j < recv_displs[r] + recv_counts[r]; ++j) {
        blocks.push_back(static_cast<int>(lengths[served_ids[j]]));
        where.push_back(static_cast<MPI_Aint>(starts[served_ids[j]] * static_cast<std::int64_t>(sizeof(double))));
      }
      MPI_Type_create_hindexed(static_cast<int>(blocks.size()), blocks.data(), where.data(), MPI_DOUBLE, &send_types[r]);
      MPI_Type_commit(&send_types[r]);
      MPI_Type_contiguous(recv_elems[r], MPI_DOUBLE, &recv_types[r]);
      MPI_Type_commit(&recv_types[r]);
      ones[r] = 1;
    }
    auto re = exclusive(recv_elems);
    for (int r = 0; r < nranks; ++r) recv_bytes_displs[r] = re[r] * static_cast<int>(sizeof(double));
    MPI_Alltoallw(items.data(), ones.data(), zero.data(), send_types.data(), arrived_v.data(), ones.data(),
                  recv_bytes_displs.data(), recv_types.data(), MPI_COMM_WORLD);
    for (int r = 0; r < nranks; ++r) {
      MPI_Type_free(&send_types[r]);
      MPI_Type_free(&recv_types[r]);
    }
  });
  // The packed data exchange alone, for the indexed comparison.
  double packed_exchange = median_time(reps, [&] {
    packed_v.clear();
    for (std::size_t j = 0; j < served_ids.size(); ++j)
      packed_v.insert(packed_v.end(), items.begin() + starts[served_ids[j]], items.begin() + starts[served_ids[j] + 1]);
    auto se = exclusive(send_elems), re = exclusive(recv_elems);
    MPI_Alltoallv(packed_v.data(), send_elems.data(), se.data(), MPI_DOUBLE, arrived_v.data(), recv_elems.data(),
                  re.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  });

  if (rank == 0) {
    auto ms = [](double t) { return t * 1e3; };
    std::printf("%d ranks, %lld requests/rank | build %.3f ms | take %.3f, hand take %.3f, bare alltoallv %.3f ms "
                "(take/hand %.2f) | take_v %.3f, hand v %.3f ms (%.2f), put_v extend %.3f ms | "
                "data exchange packed %.3f vs in place (hindexed) %.3f ms | build/take %.1f\n",
                nranks, static_cast<long long>(per_rank), ms(build), ms(take), ms(hand_take), ms(bare),
                take / hand_take, ms(take_v), ms(hand_v), take_v / hand_v, ms(put_v), ms(packed_exchange),
                ms(indexed), build / take);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  std::vector<std::int64_t> sizes;
  for (int a = 1; a < argc; ++a) sizes.push_back(std::atoll(argv[a]));
  if (sizes.empty()) sizes = {1000, 100000, 1000000};
  for (auto s : sizes) run(s, rank, nranks);
  MPI_Finalize();
  return 0;
}
