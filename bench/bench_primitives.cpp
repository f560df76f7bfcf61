// Throughput of vseg's flat and segmented primitives against the machine's
// memory-bandwidth limits, with Thrust's TBB backend reduce_by_key and a
// hand-written oneTBB loop beside the segmented sum on the same data, and
// permute_default beside the scatter it replaced.
// scripts/bench-primitives runs it and writes notes/bench-primitives.md,
// where the method is explained.
//
// Method, in short:
// - Every benchmark is a group of contenders timed in interleaved rounds:
//   each round runs every contender once, in an order that rotates from
//   round to round, so a change of load (the machine is shared) hits every
//   contender alike. The limits (read, copy, fill, and gather in the flat
//   group) are contenders too: they are re-measured in every round, and each
//   primitive is compared with the limits of its own round.
// - A contender's traffic is a list of passes, each (bytes read, bytes
//   written), counted from what the kernel actually touches. A uniform
//   descriptor (every segment the same length) computes its starts and reads
//   no descriptor memory; a listed one reads 16 bytes (start and length) per
//   segment.
// - The counters are, per contender, the median, min and max time over the
//   rounds, and the medians over the rounds of GB/s (model bytes / time),
//   of_read (GB/s over the read limit of the same round) and frac (the time
//   the traffic takes at that round's limits, over the time).
//
//   bench_primitives [google benchmark flags]
// Environment: VSEG_BENCH_ROUNDS (rounds per group, default 9),
// VSEG_BENCH_THREADS (TBB threads, default every core), VSEG_BENCH_QUICK=1
// (2^18 elements and 3 rounds: a smoke run that checks the contenders agree).
// Exits with 1 if any contender disagrees with another.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/partitioner.h>
#include <thrust/reduce.h>
#include <thrust/system/tbb/execution_policy.h>

#include "vseg/vseg.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

// Elements per array: 2^26 doubles = 512 MiB, about five times the 105 MiB
// L3, so every pass streams from DRAM; 2^18 under VSEG_BENCH_QUICK.
std::int64_t elements = std::int64_t{1} << 26;
int rounds = 9;

// Set when two contenders disagree; main's exit status.
bool failed = false;

void fail(benchmark::State& state, const std::string& what) {
  failed = true;
  state.SkipWithError(what.c_str());
}

// ---------------------------------------------------------------- helpers

// A deterministic hash of i (splitmix64), for parallel data generation.
std::uint64_t mix(std::uint64_t i) {
  std::uint64_t z = i + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A uniform double in [0, 1) from index i.
double unit(std::uint64_t i) { return static_cast<double>(mix(i) >> 11) * 0x1.0p-53; }

// body(lo, hi) over [0, n) in two large static pieces per thread.
template <class Body>
void split(std::int64_t n, Body&& body) {
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n, 1 << 16),
                    [&](const tbb::blocked_range<std::int64_t>& r) { body(r.begin(), r.end()); },
                    tbb::static_partitioner());
}

// A vseg array [f(0), ..., f(n-1)], computed in parallel.
template <class T, class F>
vseg::array<T> generate(std::int64_t n, F f) {
  auto b = vseg::buffer<T>::for_overwrite(n);
  T* p = b.data();
  split(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) p[i] = f(i);
  });
  return std::move(b).freeze();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : 0.5 * (v[k - 1] + v[k]);
}

// Whether a and b agree to 1e-9 relative (the contenders associate the sums
// differently); reports the first difference.
bool agree(benchmark::State& state, const char* what, const double* a, const double* b,
           std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j)
    if (!(std::abs(a[j] - b[j]) <= 1e-9 * std::max(1.0, std::abs(b[j])))) {
      fail(state, std::string(what) + " disagree at " + std::to_string(j) + ": " +
                      std::to_string(a[j]) + " vs " + std::to_string(b[j]));
      return false;
    }
  return true;
}

// ---------------------------------------------------------------- the limits

// Sum of the words of an array, four independent integer accumulators per
// piece, so it is bound by the loads, not by the adds.
std::uint64_t kernel_read(const double* p, std::int64_t n) {
  tbb::combinable<std::uint64_t> total([] { return std::uint64_t{0}; });
  split(n, [&](std::int64_t lo, std::int64_t hi) {
    std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    std::int64_t i = lo;
    for (; i + 4 <= hi; i += 4) {
      s0 += std::bit_cast<std::uint64_t>(p[i]);
      s1 += std::bit_cast<std::uint64_t>(p[i + 1]);
      s2 += std::bit_cast<std::uint64_t>(p[i + 2]);
      s3 += std::bit_cast<std::uint64_t>(p[i + 3]);
    }
    for (; i < hi; ++i) s0 += std::bit_cast<std::uint64_t>(p[i]);
    total.local() += s0 + s1 + s2 + s3;
  });
  return total.combine(std::plus<>{});
}

void kernel_copy(double* a, const double* b, std::int64_t n) {
  split(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) a[i] = b[i];
  });
}

void kernel_fill(double* a, double v, std::int64_t n) {
  split(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) a[i] = v;
  });
}

// Sum of x[idx[i]]: the random-gather limit (streams idx, gathers x).
double kernel_gather(const double* x, const std::int64_t* idx, std::int64_t n) {
  tbb::combinable<double> total([] { return 0.0; });
  split(n, [&](std::int64_t lo, std::int64_t hi) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    std::int64_t i = lo;
    for (; i + 4 <= hi; i += 4) {
      s0 += x[idx[i]];
      s1 += x[idx[i + 1]];
      s2 += x[idx[i + 2]];
      s3 += x[idx[i + 3]];
    }
    for (; i < hi; ++i) s0 += x[idx[i]];
    total.local() += (s0 + s1) + (s2 + s3);
  });
  return total.combine(std::plus<>{});
}

// ---------------------------------------------------------------- the harness

// One pass of a kernel over memory: bytes read and bytes written (STREAM
// convention: each counts once; write-allocate reads are not counted).
struct pass {
  double read;
  double written;
};

// What a contender is: a limit (its rate feeds the others' ratios) or a
// kernel compared with them; a gather kernel is also compared with the
// gather limit (of_gather).
enum class role { read_limit, copy_limit, fill_limit, gather_limit, kernel, gather_kernel };

struct contender {
  std::string name;
  role kind;
  std::vector<pass> traffic;
  std::function<void()> run;  // one timed run; results are freed inside it

  double bytes() const {
    double b = 0;
    for (const pass& p : traffic) b += p.read + p.written;
    return b;
  }
};

// The time `traffic` takes at these rates (GB/s): in each pass the read
// bytes paired with as many written ones go at the copy rate, the rest of
// the reads at the read rate and the rest of the writes at the fill rate.
double bound_seconds(const std::vector<pass>& traffic, double read, double copy, double fill) {
  double t = 0;
  for (const pass& p : traffic) {
    const double paired = std::min(p.read, p.written);
    t += 2 * paired / (copy * 1e9) + (p.read - paired) / (read * 1e9) +
         (p.written - paired) / (fill * 1e9);
  }
  return t;
}

// Times the contenders in interleaved rounds (one per benchmark iteration,
// the order rotating) and sets, per contender c, the counters c_ms, c_min_ms,
// c_max_ms (time) and c_gbs, c_of_read, c_frac, and for a gather kernel
// c_of_gather (the gather limit's time over its own), each the median over
// the rounds of the per-round figure; see the top of the file.
void run_rounds(benchmark::State& state, const std::vector<contender>& cs) {
  const std::size_t k = cs.size();
  std::vector<std::vector<double>> times(k);
  std::size_t round = 0;
  for (auto _ : state) {
    double total = 0;
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t c = (i + round) % k;
      const auto t0 = clock_type::now();
      cs[c].run();
      const double t = std::chrono::duration<double>(clock_type::now() - t0).count();
      times[c].push_back(t);
      total += t;
    }
    ++round;
    state.SetIterationTime(total);
  }
  // Each limit's rate per round, in GB/s (0 when the group has none).
  const auto rate_of = [&](role kind) {
    std::vector<double> r(round, 0.0);
    for (std::size_t c = 0; c < k; ++c)
      if (cs[c].kind == kind)
        for (std::size_t i = 0; i < round; ++i) r[i] = cs[c].bytes() / times[c][i] / 1e9;
    return r;
  };
  const auto read = rate_of(role::read_limit), copy = rate_of(role::copy_limit),
             fill = rate_of(role::fill_limit);
  std::vector<double> gather_time(round, 0.0);
  for (std::size_t c = 0; c < k; ++c)
    if (cs[c].kind == role::gather_limit) gather_time = times[c];
  for (std::size_t c = 0; c < k; ++c) {
    const auto& t = times[c];
    const std::string& n = cs[c].name;
    std::vector<double> gbs, of_read, frac, of_gather;
    for (std::size_t i = 0; i < round; ++i) {
      gbs.push_back(cs[c].bytes() / t[i] / 1e9);
      if (read[i] > 0) of_read.push_back(gbs.back() / read[i]);
      if (read[i] > 0 && copy[i] > 0 && fill[i] > 0)
        frac.push_back(bound_seconds(cs[c].traffic, read[i], copy[i], fill[i]) / t[i]);
      if (gather_time[i] > 0) of_gather.push_back(gather_time[i] / t[i]);
    }
    state.counters[n + "_ms"] = median(t) * 1e3;
    state.counters[n + "_min_ms"] = *std::min_element(t.begin(), t.end()) * 1e3;
    state.counters[n + "_max_ms"] = *std::max_element(t.begin(), t.end()) * 1e3;
    state.counters[n + "_gbs"] = median(gbs);
    if (cs[c].kind == role::kernel || cs[c].kind == role::gather_kernel) {
      if (!of_read.empty()) state.counters[n + "_of_read"] = median(of_read);
      if (!frac.empty()) state.counters[n + "_frac"] = median(frac);
    }
    if (cs[c].kind == role::gather_kernel && !of_gather.empty())
      state.counters[n + "_of_gather"] = median(of_gather);
  }
  state.counters["rounds"] = static_cast<double>(round);
}

// ---------------------------------------------------------------- shared data

// The shared input: `elements` doubles in [0, 1), and a scratch array the
// copy and fill limits write.
std::unique_ptr<vseg::array<double>> input_data;
std::unique_ptr<std::vector<double>> scratch_data;

const vseg::array<double>& input() {
  if (!input_data)
    input_data = std::make_unique<vseg::array<double>>(
        generate<double>(elements, [](std::int64_t i) { return unit(static_cast<std::uint64_t>(i)); }));
  return *input_data;
}

// The read, copy and fill limits over the shared input, for a group's rounds.
void add_stream_limits(std::vector<contender>& cs) {
  if (!scratch_data) scratch_data = std::make_unique<std::vector<double>>(static_cast<std::size_t>(elements), 0.0);
  const double* x = input().data();
  double* a = scratch_data->data();
  const double b = static_cast<double>(elements) * sizeof(double);
  cs.push_back({"read", role::read_limit, {{b, 0}},
                [x] { benchmark::DoNotOptimize(kernel_read(x, elements)); }});
  cs.push_back({"copy", role::copy_limit, {{b, b}}, [a, x] {
                  kernel_copy(a, x, elements);
                  benchmark::ClobberMemory();
                }});
  cs.push_back({"fill", role::fill_limit, {{0, b}}, [a] {
                  static double v = 0;
                  kernel_fill(a, v += 1, elements);
                  benchmark::ClobberMemory();
                }});
}

// A contender that runs `op` and frees its result inside the timed region,
// as a caller's temporary would be.
template <class Op>
std::function<void()> timed_result(Op op) {
  return [op] {
    auto result = op();
    benchmark::DoNotOptimize(result);
    benchmark::ClobberMemory();
  };
}

// ---------------------------------------------------------------- flat primitives

// reduce, scan, pack, expand and bpermute (a gather by random indices), with
// the read, copy, fill and gather limits, interleaved.
void bm_flat(benchmark::State& state) {
  const auto& x = input();
  const std::int64_t n = elements;
  const double nb = static_cast<double>(n) * 8;
  // pack: random flags, about half kept.
  const auto flags = generate<bool>(n, [](std::int64_t i) { return (mix(~static_cast<std::uint64_t>(i)) & 1) != 0; });
  const double kept = static_cast<double>(vseg::count_true(flags));
  // expand: every count 16, n outputs. Equal counts give a uniform
  // descriptor: one pass over the counts to check and sum them, no starts.
  constexpr std::int64_t repeat = 16;
  const std::int64_t m = n / repeat;
  const double mb = static_cast<double>(m) * 8;
  const auto counts = vseg::fill(m, repeat);
  const auto values = generate<double>(m, [](std::int64_t i) { return unit(static_cast<std::uint64_t>(i) ^ 0xe7); });
  const bool counts_uniform = vseg::segd::from_lengths(counts).uniform_length() >= 0;
  const std::vector<pass> expand_traffic =
      counts_uniform ? std::vector<pass>{{mb, 0}, {mb, nb}}
                     // listed: check and sum, write the starts, then read
                     // starts, lengths and values beside the output
                     : std::vector<pass>{{mb, 0}, {mb, mb}, {3 * mb, nb}};
  // bpermute and the gather limit: random indices into x.
  const auto idx = generate<std::int64_t>(n, [n](std::int64_t i) {
    return static_cast<std::int64_t>(mix(static_cast<std::uint64_t>(i) * 31) % static_cast<std::uint64_t>(n));
  });

  // Check the results against plain loops before timing.
  {
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i) s += x[i];
    const double r = vseg::sum(x);
    if (!agree(state, "reduce and a serial sum", &r, &s, 1)) return;
    const auto g = vseg::bpermute(x, idx);
    for (std::int64_t i = 0; i < n; ++i)
      if (g[i] != x[idx[i]]) return fail(state, "bpermute differs from x[idx[i]] at " + std::to_string(i));
    const auto e = vseg::expand(counts, values);
    for (std::int64_t i = 0; i < n; ++i)
      if (e[i] != values[i / repeat]) return fail(state, "expand differs at " + std::to_string(i));
  }

  std::vector<contender> cs;
  add_stream_limits(cs);
  const double* xp = x.data();
  const std::int64_t* ip = idx.data();
  cs.push_back({"gather", role::gather_limit, {{2 * nb, 0}},
                [xp, ip, n] { benchmark::DoNotOptimize(kernel_gather(xp, ip, n)); }});
  cs.push_back({"reduce", role::kernel, {{nb, 0}}, timed_result([&] { return vseg::sum(x); })});
  // Pass 1 reduces each block; pass 2 reads again and writes the prefixes.
  cs.push_back({"scan", role::kernel, {{nb, 0}, {nb, nb}},
                timed_result([&] { return vseg::scan(x, vseg::plus<double>{}); })});
  // Pass 1 counts flags per block; pass 2 reads flags and data, writes the kept.
  const double fb = static_cast<double>(n);
  cs.push_back({"pack", role::kernel, {{fb, 0}, {fb + nb, kept * 8}},
                timed_result([&] { return vseg::pack(x, flags); })});
  cs.push_back({"expand", role::kernel, expand_traffic,
                timed_result([&] { return vseg::expand(counts, values); })});
  // Reads the indices and gathers one double per index; writes the output.
  cs.push_back({"bpermute", role::gather_kernel, {{2 * nb, nb}},
                timed_result([&] { return vseg::bpermute(x, idx); })});
  run_rounds(state, cs);
  state.counters["elements"] = static_cast<double>(n);
}

// ---------------------------------------------------------------- permute_default

// A permutation of [0, 2^k) that looks random: multiplications by odd
// constants and xor-shifts, each a bijection on k bits.
std::int64_t scrambled(std::uint64_t i, int k) {
  const std::uint64_t mask = (std::uint64_t{1} << k) - 1;
  const int half = std::max(1, k / 2);
  std::uint64_t x = (i * 0x9e3779b97f4a7c15ULL) & mask;
  x ^= x >> half;
  x = (x * 0xbf58476d1ce4e5b9ULL) & mask;
  x ^= x >> (half + 1);
  return static_cast<std::int64_t>((x * 0x94d049bb133111ebULL) & mask);
}

// permute_default of n/2 doubles into n defaults (the later position wins a
// repeated target), by distinct targets (the first half of a random
// permutation) or by repeated ones (uniform random: about a fifth of the
// sources share a target with a later one). Beside it, the scatter it
// replaced (vseg before scatter_later_wins): a marked parallel pass, which
// proves the targets distinct, and where they are not, a serial pass in
// order. Both copy the defaults first; the traffic counted is that copy,
// then the index and data read and one double stored per source.
void bm_permute_default(benchmark::State& state, bool repeated) {
  const std::int64_t n = elements;
  const std::int64_t k = n / 2;
  const int bits = std::countr_zero(static_cast<std::uint64_t>(n));
  const auto idx = generate<std::int64_t>(k, [n, bits, repeated](std::int64_t i) {
    const auto u = static_cast<std::uint64_t>(i);
    return repeated ? static_cast<std::int64_t>(mix(u ^ 0x5ca7) % static_cast<std::uint64_t>(n)) : scrambled(u, bits);
  });
  const auto data = generate<double>(k, [](std::int64_t i) { return unit(static_cast<std::uint64_t>(i) ^ 0xda7a); });
  const auto defaults = vseg::fill(n, -1.0);
  const auto marked_then_serial = [&] {
    auto out = vseg::buffer<double>::for_overwrite(n);
    double* o = out.data();
    split(n, [&](std::int64_t lo, std::int64_t hi) { std::copy(defaults.data() + lo, defaults.data() + hi, o + lo); });
    vseg::detail::first_bad bad;
    const vseg::detail::flat_targets<std::int64_t> targets{idx.span(), n, &bad};
    if (!vseg::detail::scatter_distinct(targets, n, data.data(), o)) vseg::detail::scatter_last_wins(targets, data.data(), o);
    return std::move(out).freeze();
  };

  // Check both against a serial loop before timing.
  {
    std::vector<double> expect(defaults.begin(), defaults.end());
    for (std::int64_t i = 0; i < k; ++i) expect[static_cast<std::size_t>(idx[i])] = data[i];
    const auto a = vseg::permute_default(data, idx, defaults);
    const auto b = marked_then_serial();
    for (std::int64_t t = 0; t < n; ++t)
      if (a[t] != expect[static_cast<std::size_t>(t)] || b[t] != expect[static_cast<std::size_t>(t)])
        return fail(state, "permute_default differs from a serial scatter at " + std::to_string(t));
  }

  std::vector<contender> cs;
  add_stream_limits(cs);
  const double nb = static_cast<double>(n) * 8, kb = static_cast<double>(k) * 8;
  const std::vector<pass> traffic{{nb, nb}, {2 * kb, kb}};
  cs.push_back({"permute_default", role::kernel, traffic,
                timed_result([&] { return vseg::permute_default(data, idx, defaults); })});
  cs.push_back({"marked_then_serial", role::kernel, traffic, timed_result(marked_then_serial)});
  run_rounds(state, cs);
  state.counters["elements"] = static_cast<double>(n);
}

// ---------------------------------------------------------------- segmented sum

enum class shape { len1, len4, len16, len1024, giant, var1_4, var16_64, var512_2048, zipf };

const char* shape_name(shape s) {
  switch (s) {
    case shape::len1: return "len1";
    case shape::len4: return "len4";
    case shape::len16: return "len16";
    case shape::len1024: return "len1024";
    case shape::giant: return "giant";
    case shape::var1_4: return "var1-4";
    case shape::var16_64: return "var16-64";
    case shape::var512_2048: return "var512-2048";
    case shape::zipf: return "zipf";
  }
  return "?";
}

// Lengths from draw(i), i = 0, 1, ..., until they cover `elements` (the
// last one cut short).
template <class Draw>
std::vector<std::int64_t> lengths_covering(Draw draw) {
  std::vector<std::int64_t> lengths;
  std::int64_t covered = 0;
  for (std::uint64_t i = 0; covered < elements; ++i) {
    const std::int64_t len = std::min(draw(i), elements - covered);
    lengths.push_back(len);
    covered += len;
  }
  return lengths;
}

// Lengths uniform in [lo, hi].
std::vector<std::int64_t> uniform_lengths(std::int64_t lo, std::int64_t hi) {
  return lengths_covering([lo, hi](std::uint64_t i) {
    return lo + static_cast<std::int64_t>(mix(i ^ 0x1e57) % static_cast<std::uint64_t>(hi - lo + 1));
  });
}

// Zipf(s = 1.2) lengths on [1, 2^20] (at most `elements`): many short
// segments holding few elements, a few long ones holding most.
std::vector<std::int64_t> zipf_lengths() {
  const std::int64_t top = std::min(std::int64_t{1} << 20, elements);
  constexpr double exponent = 1.2;
  std::vector<double> cdf(static_cast<std::size_t>(top));
  double acc = 0;
  for (std::int64_t k = 1; k <= top; ++k) {
    acc += std::pow(static_cast<double>(k), -exponent);
    cdf[static_cast<std::size_t>(k - 1)] = acc;
  }
  return lengths_covering([&](std::uint64_t i) {
    const auto it = std::upper_bound(cdf.begin(), cdf.end(), unit(i ^ 0x5eed) * acc);
    return std::min<std::int64_t>(1 + (it - cdf.begin()), top);
  });
}

vseg::segd make_shape(shape kind) {
  const auto listed = [](std::vector<std::int64_t> l) {
    return vseg::segd::from_lengths(vseg::array<std::int64_t>(std::move(l)));
  };
  switch (kind) {
    case shape::len1: return vseg::segd::uniform(elements, 1);
    case shape::len4: return vseg::segd::uniform(elements / 4, 4);
    case shape::len16: return vseg::segd::uniform(elements / 16, 16);
    case shape::len1024: return vseg::segd::uniform(elements / 1024, 1024);
    case shape::giant: return vseg::segd::single(elements);
    case shape::var1_4: return listed(uniform_lengths(1, 4));
    case shape::var16_64: return listed(uniform_lengths(16, 64));
    case shape::var512_2048: return listed(uniform_lengths(512, 2048));
    case shape::zipf: return listed(zipf_lengths());
  }
  return {};
}

// The hand-written segmented sum: what a good engineer writes with oneTBB
// over an offsets array (off(j) = start of segment j, off(m) = n).
//
// Segments are cut into chunks of about hand_work elements + segments (a
// segment is never split between chunks), so short and long segments are
// balanced alike. A segment longer than hand_work is summed by a nested
// parallel reduction (one giant segment would otherwise run on one core).
// Long segments use four independent partial sums, which takes the add
// latency off their critical path, as vseg's fold does.
constexpr std::int64_t hand_work = std::int64_t{1} << 16;

// Segments at least this long are summed with four partial sums, shorter
// ones with one: the rule of vseg's fused fold and of bench_spmv's hand loop
// (on short segments the chains of consecutive segments already overlap).
constexpr std::int64_t hand_unroll_min = 16;

// x[lo] + ... + x[hi - 1]; four partial sums from hand_unroll_min elements.
double sum4(const double* x, std::int64_t lo, std::int64_t hi) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::int64_t k = lo;
  if (hi - lo >= hand_unroll_min)
    for (; k + 4 <= hi; k += 4) {
      s0 += x[k];
      s1 += x[k + 1];
      s2 += x[k + 2];
      s3 += x[k + 3];
    }
  for (; k < hi; ++k) s0 += x[k];
  return (s0 + s1) + (s2 + s3);
}

// The chunk boundaries (segment numbers) of m segments with offsets off.
template <class Offsets>
std::vector<std::int64_t> segment_chunks(std::int64_t m, const Offsets& off) {
  std::vector<std::int64_t> cut{0};
  const std::int64_t total = off(m) + m;
  for (std::int64_t d = hand_work; d < total; d += hand_work) {
    std::int64_t lo = cut.back(), hi = m;  // the first j with off(j) + j >= d
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (off(mid) + mid < d) lo = mid + 1;
      else hi = mid;
    }
    if (lo > cut.back()) cut.push_back(lo);
  }
  if (cut.back() != m) cut.push_back(m);
  return cut;
}

template <class Offsets>
void hand_sum_s(const Offsets& off, const std::vector<std::int64_t>& chunks, const double* x, double* out) {
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks.size() - 1, 1),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t b = r.begin(); b < r.end(); ++b)
                        for (std::int64_t j = chunks[b]; j < chunks[b + 1]; ++j) {
                          const std::int64_t lo = off(j), hi = off(j + 1);
                          if (hi - lo <= hand_work) {
                            out[j] = sum4(x, lo, hi);
                            continue;
                          }
                          out[j] = tbb::parallel_reduce(
                              tbb::blocked_range<std::int64_t>(lo, hi, hand_work), 0.0,
                              [x](const tbb::blocked_range<std::int64_t>& p, double s) {
                                return s + sum4(x, p.begin(), p.end());
                              },
                              std::plus<>{});
                        }
                    });
}

// vseg::sum_s, thrust::reduce_by_key and the hand loop on one shape, with
// the read, copy and fill limits, interleaved.
void bm_sum_s(benchmark::State& state, shape kind) {
  const auto& x = input();
  const vseg::segd s = make_shape(kind);
  const std::int64_t n = elements, m = s.segments();
  const bool uniform = s.uniform_length() >= 0;
  const double nb = static_cast<double>(n) * 8, mb = static_cast<double>(m) * 8;

  // Thrust: int32 segment ids as keys (the narrowest that fits, its
  // cheapest input); its outputs allocated once, outside the rounds.
  const auto keys = [&] {
    const auto ids = vseg::segment_ids(s);  // int64, freed once narrowed
    return generate<std::int32_t>(n, [&](std::int64_t i) { return static_cast<std::int32_t>(ids[i]); });
  }();
  std::vector<std::int32_t> keys_out(static_cast<std::size_t>(m));
  std::vector<double> thrust_out(static_cast<std::size_t>(m));
  const auto thrust_run = [&] {
    return thrust::reduce_by_key(thrust::tbb::par, keys.data(), keys.data() + n, x.data(),
                                 keys_out.data(), thrust_out.data()).first;
  };

  // The hand loop: offsets computed for equal lengths (as a programmer who
  // knows them would), read from an array of m + 1 otherwise. Its output is
  // allocated once, outside the rounds.
  std::vector<double> hand_out(static_cast<std::size_t>(m));
  std::vector<std::int64_t> offsets;
  std::function<void()> hand_run;
  if (uniform) {
    const auto off = [each = s.uniform_length()](std::int64_t j) { return j * each; };
    hand_run = [off, chunks = segment_chunks(m, off), &x, &hand_out] {
      hand_sum_s(off, chunks, x.data(), hand_out.data());
    };
  } else {
    offsets.resize(static_cast<std::size_t>(m + 1));
    for (std::int64_t j = 0; j < m; ++j) offsets[static_cast<std::size_t>(j)] = s.start(j);
    offsets[static_cast<std::size_t>(m)] = n;
    const auto off = [o = offsets.data()](std::int64_t j) { return o[j]; };
    hand_run = [off, chunks = segment_chunks(m, off), &x, &hand_out] {
      hand_sum_s(off, chunks, x.data(), hand_out.data());
    };
  }

  // All three agree before timing.
  {
    const auto mine = vseg::sum_s(s, x);
    thrust_run();
    hand_run();
    if (!agree(state, "thrust and vseg", thrust_out.data(), mine.data(), m)) return;
    if (!agree(state, "the hand loop and vseg", hand_out.data(), mine.data(), m)) return;
  }

  std::vector<contender> cs;
  add_stream_limits(cs);
  // Reads the data and, for a listed descriptor, the start of every
  // segment (a segment ends where the next starts); writes one sum per
  // segment.
  cs.push_back({"vseg", role::kernel, {{nb + (uniform ? 0 : mb), mb}},
                timed_result([&] { return vseg::sum_s(s, x); })});
  // Pass 1 finds the segment ends per interval (reads the keys); pass 2
  // reduces each interval (reads keys and values, writes a key and a sum
  // per segment).
  const double kb = static_cast<double>(n) * sizeof(std::int32_t);
  cs.push_back({"thrust", role::kernel, {{kb, 0}, {kb + nb, static_cast<double>(m) * (4 + 8)}},
                [&] { benchmark::DoNotOptimize(thrust_run()); }});
  // Reads the data and, when listed, the m + 1 offsets; writes the sums.
  cs.push_back({"hand", role::kernel, {{nb + (uniform ? 0 : mb + 8), mb}}, [&] {
                  hand_run();
                  benchmark::ClobberMemory();
                }});
  run_rounds(state, cs);
  state.counters["segments"] = static_cast<double>(m);
  state.counters["uniform"] = uniform ? 1 : 0;
  state.counters["elements"] = static_cast<double>(n);
}

// Building a descriptor from `elements` lengths (0-15, so listed): from
// INT (int32) lengths, as the VCODE interpreter's MAKE_SEGDES does, and
// from int64 ones, with the read, copy and fill limits, interleaved.
void bm_segd_build(benchmark::State& state) {
  const std::int64_t m = elements;
  const auto narrow = generate<std::int32_t>(m, [](std::int64_t i) {
    return static_cast<std::int32_t>(mix(static_cast<std::uint64_t>(i)) & 15);
  });
  const auto wide = generate<std::int64_t>(m, [&](std::int64_t i) { return std::int64_t{narrow[i]}; });
  {
    const auto a = vseg::segd::from_int32_lengths(narrow.span());
    const auto b = vseg::segd::from_lengths(wide);
    if (!(a == b) || a.elements() != b.elements()) return fail(state, "from_int32_lengths and from_lengths differ");
  }
  std::vector<contender> cs;
  add_stream_limits(cs);
  const double m4 = static_cast<double>(m) * 4, m8 = static_cast<double>(m) * 8;
  // Pass 1 checks and sums the lengths (reads them); pass 2 writes each
  // segment's start and, from INT lengths, the lengths widened.
  cs.push_back({"from_int32", role::kernel, {{m4, 0}, {m4, 2 * m8}},
                timed_result([&] { return vseg::segd::from_int32_lengths(narrow.span()); })});
  cs.push_back({"from_int64", role::kernel, {{m8, 0}, {m8, m8}},
                timed_result([&] { return vseg::segd::from_lengths(wide); })});
  run_rounds(state, cs);
  state.counters["segments"] = static_cast<double>(m);
}

// The CPU model, from /proc/cpuinfo.
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  // VSEG_BENCH_THREADS=k limits TBB to k threads (default: every core).
  std::unique_ptr<tbb::global_control> threads;
  if (const char* k = std::getenv("VSEG_BENCH_THREADS"))
    threads = std::make_unique<tbb::global_control>(
        tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(std::atoi(k)));
  if (const char* q = std::getenv("VSEG_BENCH_QUICK"); q && std::string(q) != "0") {
    elements = std::int64_t{1} << 18;
    rounds = 3;
  }
  if (const char* r = std::getenv("VSEG_BENCH_ROUNDS")) rounds = std::max(1, std::atoi(r));
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("threads", std::to_string(tbb::global_control::active_value(
                                             tbb::global_control::max_allowed_parallelism)));
  benchmark::AddCustomContext("cpu_model", cpu_model());
  benchmark::AddCustomContext("elements", std::to_string(elements));
  benchmark::AddCustomContext("rounds", std::to_string(rounds));

  auto reg = [](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)
        ->UseManualTime()->Iterations(rounds)->Unit(benchmark::kMillisecond);
  };
  reg("flat", bm_flat);
  reg("permute_default/distinct", [](benchmark::State& st) { bm_permute_default(st, false); });
  reg("permute_default/repeated", [](benchmark::State& st) { bm_permute_default(st, true); });
  reg("segd_build", bm_segd_build);
  for (shape k : {shape::len1, shape::len4, shape::len16, shape::len1024, shape::giant, shape::var1_4,
                  shape::var16_64, shape::var512_2048, shape::zipf})
    reg(std::string("sum_s/") + shape_name(k), [k](benchmark::State& st) { bm_sum_s(st, k); });
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return failed ? 1 : 0;
}
