// Timed MPI benchmark of the distributed layer (a plain MPI program: Google
// Benchmark's timing loop does not synchronise ranks). For each size it
// times, in every round, each of the variants below once (a barrier before
// each, the slowest rank's time), so that all of them see the same machine
// load; it reports the median and the minimum over the rounds.
//
//   build        global_indexer construction (the protocol)
//   take         gi.take of one double per request into a preallocated output
//   hand take    the same by hand: pack from a precomputed plan, MPI_Alltoallv, unpack
//   alltoallv    the bare MPI_Alltoallv of those bytes, nothing else
//   take_v       gi.take_v of items of 0..8 doubles, allocating its result
//   take_v into  gi.take_v into a variable<double> reused between calls
//   hand v       the same by hand: pack, MPI_Alltoallv of lengths, per-rank
//                sums, MPI_Alltoallv of data, unpack into a reused output
//   put_v        gi.put_v (extend) of the taken items back to their owners
//   hand put_v   the same by hand: pack in owner order, two MPI_Alltoallv,
//                the owner builds the extended items (a fresh result, as put_v)
//   packed       take_v's data exchange alone: pack the served segments, MPI_Alltoallv
//   hindexed     the same with the segments sent in place through an MPI
//                hindexed datatype per destination (MPI_Alltoallw), built per call
//   check        the MPI_Allreduce of 4 int64 by which every operation checks
//                its arguments collectively (the part of take that the
//                hand-written exchange does not do)
//
//   mpiexec -n 2 ./dist_bench [requests_per_rank ...]
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "vseg/dist.hpp"

namespace {

using vseg::dist::distribution;
using vseg::dist::global_indexer;

// The time of f() on the slowest rank, after a barrier.
template <class F>
double timed(F&& f) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  f();
  double t = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return t;
}

struct series {
  std::string name;
  std::vector<double> times;
  double median() const {
    auto t = times;
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
  double min() const { return *std::min_element(times.begin(), times.end()); }
};

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

  global_indexer gi(d, indices, MPI_COMM_WORLD);
  std::vector<double> out(indices.size());

  // The hand-written plan (owner-sorted requests, served local ids), made once.
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

  std::vector<std::int64_t> starts(lengths.size() + 1, 0);
  std::inclusive_scan(lengths.begin(), lengths.end(), starts.begin() + 1);
  std::vector<std::int64_t> served_len(served_ids.size()), arrived_len(indices.size());
  std::vector<double> packed_v, arrived_v;
  std::vector<int> send_elems(static_cast<std::size_t>(nranks)), recv_elems(send_elems);
  const auto taken = gi.take_v(lengths, items);
  std::vector<double> out_v(taken.data.size());
  vseg::dist::variable<double> reused;

  // Per-rank element sums of the lengths in plan order (hand-written helpers).
  auto sums = [&](const std::vector<std::int64_t>& len, const std::vector<int>& counts, const std::vector<int>& displs,
                  std::vector<int>& elems) {
    for (int r = 0; r < nranks; ++r)
      elems[r] = static_cast<int>(std::accumulate(len.begin() + displs[r], len.begin() + displs[r] + counts[r],
                                                  std::int64_t{0}));
  };

  // In place: one hindexed type per destination naming the served segments
  // where they lie (built each time, as take_v would have to).
  std::vector<int> zero(static_cast<std::size_t>(nranks), 0), ones(zero), recv_bytes_displs(zero);
  std::vector<MPI_Datatype> send_types(static_cast<std::size_t>(nranks)), recv_types(send_types);

  // The hand-written put_v (extend) state: owner-order copies of the items.
  std::vector<std::int64_t> part_starts(taken.counts.size() + 1, 0);
  std::vector<std::int64_t> sorted_len(indices.size()), got_len(served_ids.size());
  std::vector<double> sorted_v, got_v;
  std::vector<int> put_send_elems(static_cast<std::size_t>(nranks)), put_recv_elems(put_send_elems);

  std::vector<series> s = {{"build", {}},  {"take", {}},        {"hand take", {}}, {"alltoallv", {}},
                           {"take_v", {}}, {"take_v into", {}}, {"hand v", {}},    {"put_v", {}},
                           {"hand put_v", {}}, {"packed", {}},  {"hindexed", {}},  {"check", {}}};
  const int rounds = per_rank >= 1000000 ? 7 : 31;
  for (int round = 0; round < rounds; ++round) {
    s[0].times.push_back(timed([&] { global_indexer fresh(d, indices, MPI_COMM_WORLD); }));
    s[1].times.push_back(timed([&] { gi.take(x, out); }));
    s[2].times.push_back(timed([&] {
      for (std::size_t j = 0; j < served_ids.size(); ++j) packed[j] = x[served_ids[j]];
      MPI_Alltoallv(packed.data(), recv_counts.data(), recv_displs.data(), MPI_DOUBLE, arrived.data(),
                    send_counts.data(), send_displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
      for (std::size_t k = 0; k < order.size(); ++k) out[order[k]] = arrived[k];
    }));
    s[3].times.push_back(timed([&] {
      MPI_Alltoallv(packed.data(), recv_counts.data(), recv_displs.data(), MPI_DOUBLE, arrived.data(),
                    send_counts.data(), send_displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
    }));
    s[4].times.push_back(timed([&] { auto v = gi.take_v(lengths, items); }));
    s[5].times.push_back(timed([&] { gi.take_v(lengths, items, reused); }));
    s[6].times.push_back(timed([&] {
      packed_v.clear();
      for (std::size_t j = 0; j < served_ids.size(); ++j) {
        served_len[j] = lengths[served_ids[j]];
        packed_v.insert(packed_v.end(), items.begin() + starts[served_ids[j]], items.begin() + starts[served_ids[j] + 1]);
      }
      MPI_Alltoallv(served_len.data(), recv_counts.data(), recv_displs.data(), MPI_INT64_T, arrived_len.data(),
                    send_counts.data(), send_displs.data(), MPI_INT64_T, MPI_COMM_WORLD);
      sums(served_len, recv_counts, recv_displs, send_elems);
      sums(arrived_len, send_counts, send_displs, recv_elems);
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
    }));
    s[7].times.push_back(
        timed([&] { auto v = gi.put_v(taken.counts, taken.data, vseg::dist::put_mode::extend); }));
    s[8].times.push_back(timed([&] {
      std::inclusive_scan(taken.counts.begin(), taken.counts.end(), part_starts.begin() + 1);
      sorted_v.clear();
      for (std::size_t k = 0; k < order.size(); ++k) {
        sorted_len[k] = taken.counts[order[k]];
        sorted_v.insert(sorted_v.end(), taken.data.begin() + part_starts[order[k]],
                        taken.data.begin() + part_starts[order[k] + 1]);
      }
      MPI_Alltoallv(sorted_len.data(), send_counts.data(), send_displs.data(), MPI_INT64_T, got_len.data(),
                    recv_counts.data(), recv_displs.data(), MPI_INT64_T, MPI_COMM_WORLD);
      sums(sorted_len, send_counts, send_displs, put_send_elems);
      sums(got_len, recv_counts, recv_displs, put_recv_elems);
      auto se = exclusive(put_send_elems), re = exclusive(put_recv_elems);
      got_v.resize(static_cast<std::size_t>(re.back() + put_recv_elems.back()));
      MPI_Alltoallv(sorted_v.data(), put_send_elems.data(), se.data(), MPI_DOUBLE, got_v.data(),
                    put_recv_elems.data(), re.data(), MPI_DOUBLE, MPI_COMM_WORLD);
      // The owner: every owned item extended by the writes, in arrival order.
      vseg::dist::variable<double> result;
      result.counts.assign(x.size(), 0);
      for (std::size_t j = 0; j < served_ids.size(); ++j) result.counts[served_ids[j]] += got_len[j];
      std::vector<std::int64_t> cursor(x.size());
      std::exclusive_scan(result.counts.begin(), result.counts.end(), cursor.begin(), std::int64_t{0});
      result.data.resize(got_v.size());
      for (std::size_t j = 0, at = 0; j < served_ids.size(); at += got_len[j], ++j) {
        std::copy_n(got_v.data() + at, got_len[j], result.data.data() + cursor[served_ids[j]]);
        cursor[served_ids[j]] += got_len[j];
      }
    }));
    s[9].times.push_back(timed([&] {
      packed_v.clear();
      for (std::size_t j = 0; j < served_ids.size(); ++j)
        packed_v.insert(packed_v.end(), items.begin() + starts[served_ids[j]], items.begin() + starts[served_ids[j] + 1]);
      auto se = exclusive(send_elems), re = exclusive(recv_elems);
      MPI_Alltoallv(packed_v.data(), send_elems.data(), se.data(), MPI_DOUBLE, arrived_v.data(), recv_elems.data(),
                    re.data(), MPI_DOUBLE, MPI_COMM_WORLD);
    }));
    // The collective check every operation makes: one MPI_Allreduce of 4 int64.
    s[11].times.push_back(timed([&] {
      std::int64_t flags[4] = {0, 0, 1, -1};
      MPI_Allreduce(MPI_IN_PLACE, flags, 4, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    }));
    s[10].times.push_back(timed([&] {
      for (int r = 0; r < nranks; ++r) {
        std::vector<int> blocks;
        std::vector<MPI_Aint> where;
        for (int j = recv_displs[r]; j < recv_displs[r] + recv_counts[r]; ++j) {
          blocks.push_back(static_cast<int>(lengths[served_ids[j]]));
          where.push_back(static_cast<MPI_Aint>(starts[served_ids[j]] * static_cast<std::int64_t>(sizeof(double))));
        }
        MPI_Type_create_hindexed(static_cast<int>(blocks.size()), blocks.data(), where.data(), MPI_DOUBLE,
                                 &send_types[r]);
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
    }));
  }
  if (gi.take_v(lengths, items) != reused) std::abort();

  if (rank == 0) {
    std::printf("%d ranks, %lld requests/rank, %d rounds; ms, median (min)\n", nranks,
                static_cast<long long>(per_rank), rounds);
    for (const auto& v : s) std::printf("  %-12s %10.3f (%9.3f)\n", v.name.c_str(), v.median() * 1e3, v.min() * 1e3);
    auto ratio = [&](int a, int b) {
      std::printf("  %-11s / %-11s %5.2f (min %5.2f)\n", s[a].name.c_str(), s[b].name.c_str(),
                  s[a].median() / s[b].median(), s[a].min() / s[b].min());
    };
    ratio(1, 2);
    ratio(4, 6);
    ratio(5, 6);
    ratio(7, 8);
    ratio(10, 9);
    ratio(0, 1);
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
