// bench_sort: vseg's sorting, key and duplicate operations against
// ParlayLib's on the same inputs, in one process with interleaved rounds.
//
//   bench_sort [n] [rounds]        (defaults 10^7 and 9)
//   VSEG_BENCH_QUICK=1 bench_sort  (n = 10^5, 2 rounds: the smoke run)
//   VSEG_BENCH_ONLY=remove bench_sort   (only problems whose name contains it)
//
// Each round runs every contender of a problem once, starting from a
// different one each round; the report gives per contender the median, min
// and max over the rounds, and the ratio of its median to vseg's (above 1:
// vseg is faster). Before timing, every contender's result is checked
// against vseg's (parlay's hash-based operations return their groups in
// hash order, so those are sorted first); a mismatch exits with status 1.
// Built twice: bench_sort (ParlayLib's own scheduler) and bench_sort_tbb
// (-DPARLAY_TBB, the same runtime as vseg).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <parlay/primitives.h>
#include <parlay/sequence.h>

#include "vseg/vseg.hpp"

namespace {

struct contender {
  std::string name;
  std::function<void()> run;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Runs the contenders `rounds` times, interleaved, and prints one line each.
void measure(const std::string& problem, std::int64_t n, int rounds, const std::vector<contender>& cs) {
  const char* only = std::getenv("VSEG_BENCH_ONLY");
  if (only != nullptr && problem.find(only) == std::string::npos) return;
  std::vector<std::vector<double>> ms(cs.size());
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t k = 0; k < cs.size(); ++k) {
      const std::size_t c = (k + static_cast<std::size_t>(r)) % cs.size();
      const auto t0 = std::chrono::steady_clock::now();
      cs[c].run();
      const auto t1 = std::chrono::steady_clock::now();
      ms[c].push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
  }
  const double base = median(ms[0]);
  for (std::size_t c = 0; c < cs.size(); ++c) {
    const auto [lo, hi] = std::minmax_element(ms[c].begin(), ms[c].end());
    std::printf("%-18s n=%-9lld %-28s median %9.2f ms  [%8.2f, %8.2f]  ratio to vseg %5.2f\n", problem.c_str(),
                static_cast<long long>(n), cs[c].name.c_str(), median(ms[c]), *lo, *hi, median(ms[c]) / base);
  }
  std::fflush(stdout);
}

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "bench_sort: results differ: %s\n", what);
    std::exit(1);
  }
}

template <class T>
std::vector<T> as_vector(const parlay::sequence<T>& s) {
  return std::vector<T>(s.begin(), s.end());
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = std::getenv("VSEG_BENCH_QUICK") != nullptr;
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : quick ? 100'000 : 10'000'000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : quick ? 2 : 9;
#ifdef PARLAY_TBB
  const std::string peer = "parlay(tbb)";
#else
  const std::string peer = "parlay";
#endif
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> doubles(static_cast<std::size_t>(n));
  for (auto& x : doubles) x = unit(rng);
  const std::int64_t distinct = std::max<std::int64_t>(1, n / 10);
  std::vector<std::int64_t> keys(static_cast<std::size_t>(n));
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  for (auto& k : keys) k = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(distinct));
  for (auto& v : values) v = static_cast<std::int64_t>(rng() % 1000);

  const vseg::array<double> vd(doubles);
  const vseg::array<std::int64_t> vk(keys);
  const vseg::array<std::int64_t> vv(values);
  const auto pd = parlay::to_sequence(doubles);
  const auto pk = parlay::to_sequence(keys);
  auto pairs_dk = parlay::tabulate(n, [&](std::int64_t i) {
    return std::pair<double, std::int64_t>(doubles[static_cast<std::size_t>(i)], values[static_cast<std::size_t>(i)]);
  });
  auto pairs_kv = parlay::tabulate(n, [&](std::int64_t i) {
    return std::pair<std::int64_t, std::int64_t>(keys[static_cast<std::size_t>(i)], values[static_cast<std::size_t>(i)]);
  });
  const auto by_first = [](const auto& a, const auto& b) { return a.first < b.first; };

  std::printf("bench_sort: n = %lld, %d rounds, %s\n", static_cast<long long>(n), rounds, peer.c_str());

  // sort: 10^7 uniform doubles.
  {
    const auto want = vseg::to_vector(vseg::sort(vd));
    require(as_vector(parlay::sort(pd)) == want, "sort");
    require(as_vector(parlay::stable_sort(pd)) == want, "stable_sort");
    measure("sort doubles", n, rounds,
            {{"vseg::sort", [&] { (void)vseg::sort(vd); }},
             {peer + "::sort", [&] { (void)parlay::sort(pd); }},
             {peer + "::stable_sort", [&] { (void)parlay::stable_sort(pd); }}});
  }
  // sort_by_key: double keys carrying int64 values.
  {
    auto [k, v] = vseg::sort_by_key(vd, vv);
    const auto p = parlay::stable_sort(pairs_dk, by_first);
    bool same = true;
    for (std::int64_t i = 0; i < n; ++i) same = same && p[i].first == k[i] && p[i].second == v[i];
    require(same, "sort_by_key");
    measure("sort_by_key", n, rounds,
            {{"vseg::sort_by_key", [&] { (void)vseg::sort_by_key(vd, vv); }},
             {peer + "::stable_sort pairs", [&] { (void)parlay::stable_sort(pairs_dk, by_first); }},
             {peer + "::sort pairs", [&] { (void)parlay::sort(pairs_dk, by_first); }}});
  }
  // remove_duplicates: 10% distinct int64.
  {
    auto got = vseg::to_vector(vseg::remove_duplicates(vk));
    auto theirs = as_vector(parlay::remove_duplicates(pk));
    std::sort(got.begin(), got.end());
    std::sort(theirs.begin(), theirs.end());
    require(got == theirs, "remove_duplicates");
    measure("remove_duplicates", n, rounds,
            {{"vseg::remove_duplicates", [&] { (void)vseg::remove_duplicates(vk); }},
             {peer + "::remove_duplicates", [&] { (void)parlay::remove_duplicates(pk); }}});
  }
  // reduce_by_key, group_by_key, histogram_by_key: 10% distinct int64 keys.
  {
    auto [k, s] = vseg::reduce_by_key(vk, vv, vseg::plus<std::int64_t>{});
    auto theirs = parlay::reduce_by_key(pairs_kv);
    std::sort(theirs.begin(), theirs.end());
    bool same = static_cast<std::int64_t>(theirs.size()) == k.size();
    for (std::int64_t i = 0; same && i < k.size(); ++i) same = theirs[i].first == k[i] && theirs[i].second == s[i];
    require(same, "reduce_by_key");
    measure("reduce_by_key", n, rounds,
            {{"vseg::reduce_by_key", [&] { (void)vseg::reduce_by_key(vk, vv, vseg::plus<std::int64_t>{}); }},
             {peer + "::reduce_by_key", [&] { (void)parlay::reduce_by_key(pairs_kv); }}});
    auto [gk, gv] = vseg::group_by_key(vk, vv);
    auto groups = parlay::group_by_key(pairs_kv);
    require(static_cast<std::int64_t>(groups.size()) == gk.size(), "group_by_key");
    measure("group_by_key", n, rounds,
            {{"vseg::group_by_key", [&] { (void)vseg::group_by_key(vk, vv); }},
             {peer + "::group_by_key", [&] { (void)parlay::group_by_key(pairs_kv); }},
             {peer + "::group_by_key_ordered", [&] { (void)parlay::group_by_key_ordered(pairs_kv); }}});
    auto [hk, hc] = vseg::histogram_by_key(vk);
    require(static_cast<std::int64_t>(parlay::histogram_by_key(pk).size()) == hk.size(), "histogram_by_key");
    measure("histogram_by_key", n, rounds,
            {{"vseg::histogram_by_key", [&] { (void)vseg::histogram_by_key(vk); }},
             {peer + "::histogram_by_key", [&] { (void)parlay::histogram_by_key(pk); }}});
  }
  return 0;
}
