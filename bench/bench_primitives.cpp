// Throughput of vseg's flat and segmented primitives against the machine's
// memory-bandwidth limits, with Thrust's TBB backend reduce_by_key beside the
// segmented sum on the same data. The table and the traffic model are in
// notes/bench-primitives.md; scripts/bench-primitives produces both.
//
// Every benchmark reports
//   GB/s  the bytes its traffic model moves (STREAM convention: a byte read
//         or written counts once; write-allocate reads are not counted),
//         divided by the measured time;
//   frac  the time the same traffic would take at the measured limits, over
//         the measured time. Bytes read and written in the same pass are
//         charged at the copy rate, the remaining reads at the read-only rate
//         and the remaining writes at the fill rate; so frac = 1 means "as
//         fast as streaming that traffic can be on this machine".
// The limits are the best iterations of the bandwidth benchmarks, which run
// first (a filtered run measures them on first use); each primitive's
// iterations are paired with a read-only probe, which scales the limits to
// the share of the machine the primitive had (the cores are shared).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <thrust/reduce.h>
#include <thrust/system/tbb/execution_policy.h>

#include "vseg/vseg.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

// Elements per array: 2^26 doubles = 512 MiB, about five times the 105 MiB L3.
constexpr std::int64_t elements = std::int64_t{1} << 26;

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

// [f(0), ..., f(n-1)], computed in parallel.
template <class T, class F>
std::vector<T> generate(std::int64_t n, F f) {
  std::vector<T> v(static_cast<std::size_t>(n));
  split(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) v[static_cast<std::size_t>(i)] = f(i);
  });
  return v;
}

std::uint64_t kernel_read(const double* p, std::int64_t n);

// The read-only probe: an array of its own, read (untimed) before every
// iteration of a primitive, so each primitive is compared with the bandwidth
// the machine gave at the same moment (it is shared; see the notes).
std::unique_ptr<std::vector<double>> probe_data;

// Runs `op` once per benchmark iteration, timed with the wall clock (the work
// runs on TBB's threads, so the calling thread's CPU time means nothing).
// `op` returns whatever it built; it is destroyed inside the timed region, as
// a caller's temporary would be. With `probe_rates`, the read-only rate just
// before each iteration is appended to it (in GB/s).
template <class Op>
double run_timed(benchmark::State& state, Op op, std::vector<double>* times = nullptr,
                 std::vector<double>* probe_rates = nullptr) {
  double total = 0;
  for (auto _ : state) {
    if (probe_rates) {
      const auto p0 = clock_type::now();
      benchmark::DoNotOptimize(kernel_read(probe_data->data(), elements));
      const double tp = std::chrono::duration<double>(clock_type::now() - p0).count();
      probe_rates->push_back(static_cast<double>(elements) * sizeof(double) / tp / 1e9);
    }
    const auto t0 = clock_type::now();
    {
      auto result = op();
      benchmark::DoNotOptimize(result);
      benchmark::ClobberMemory();
    }
    const double t = std::chrono::duration<double>(clock_type::now() - t0).count();
    state.SetIterationTime(t);
    total += t;
    if (times) times->push_back(t);
  }
  return total / static_cast<double>(state.iterations());
}

// ---------------------------------------------------------------- the limits

// The streaming rates of this machine in GB/s (STREAM convention).
struct limit_rates {
  double read = 0;   // sum over one array
  double copy = 0;   // a[i] = b[i]
  double fill = 0;   // a[i] = v
  double triad = 0;  // a[i] = b[i] + s * c[i]
};

struct limit_samples {
  std::vector<double> read, copy, fill, triad;  // GB/s per iteration
};
limit_samples samples;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : 0.5 * (v[k - 1] + v[k]);
}

// The arrays the bandwidth kernels stream: three of `elements` doubles.
struct stream_arrays {
  std::vector<double> a, b, c;
};
std::unique_ptr<stream_arrays> stream_data;

// Every data set below is cached until a benchmark needs a different one, so
// at most one large data set (plus the shared input) is alive at a time.
std::function<void()> release_current;
template <class D>
D& cached(std::unique_ptr<D>& slot, std::function<std::unique_ptr<D>()> make) {
  if (!slot) {
    if (release_current) release_current();
    slot = make();
    release_current = [&slot] { slot.reset(); };
  }
  return *slot;
}

stream_arrays& stream() {
  return cached<stream_arrays>(stream_data, [] {
    auto d = std::make_unique<stream_arrays>();
    d->a = generate<double>(elements, [](std::int64_t i) { return unit(3 * i); });
    d->b = generate<double>(elements, [](std::int64_t i) { return unit(3 * i + 1); });
    d->c = generate<double>(elements, [](std::int64_t i) { return unit(3 * i + 2); });
    return d;
  });
}

// Sum of the words of an array, four independent accumulators per piece.
std::uint64_t kernel_read(const double* p, std::int64_t n) {
  std::atomic<std::uint64_t> total{0};
  split(n, [&](std::int64_t lo, std::int64_t hi) {
    const auto* w = reinterpret_cast<const std::uint64_t*>(p);
    std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    std::int64_t i = lo;
    for (; i + 4 <= hi; i += 4) {
      s0 += w[i];
      s1 += w[i + 1];
      s2 += w[i + 2];
      s3 += w[i + 3];
    }
    for (; i < hi; ++i) s0 += w[i];
    total += s0 + s1 + s2 + s3;
  });
  return total.load();
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

void kernel_triad(double* a, const double* b, const double* c, double s, std::int64_t n) {
  split(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
  });
}

constexpr double gb = 1e9;
constexpr double array_bytes = static_cast<double>(elements) * sizeof(double);

// The bandwidth benchmarks: each records its per-iteration rate in `samples`.
void report_rate(benchmark::State& state, double bytes, const std::vector<double>& times,
                 std::vector<double>& into) {
  for (double t : times) into.push_back(bytes / t / gb);
  const double mean_t = std::accumulate(times.begin(), times.end(), 0.0) /
                        static_cast<double>(times.size());
  state.counters["GB/s"] = bytes / mean_t / gb;
  state.counters["best"] = *std::max_element(into.begin(), into.end());
}

void bm_limit_read(benchmark::State& state) {
  auto& d = stream();
  std::vector<double> times;
  run_timed(state, [&] { return kernel_read(d.a.data(), elements); }, &times);
  report_rate(state, array_bytes, times, samples.read);
}

void bm_limit_copy(benchmark::State& state) {
  auto& d = stream();
  std::vector<double> times;
  run_timed(state, [&] {
    kernel_copy(d.a.data(), d.b.data(), elements);
    return d.a[0];
  }, &times);
  report_rate(state, 2 * array_bytes, times, samples.copy);
}

void bm_limit_fill(benchmark::State& state) {
  auto& d = stream();
  std::vector<double> times;
  double v = 0;
  run_timed(state, [&] {
    kernel_fill(d.a.data(), v += 1, elements);
    return d.a[0];
  }, &times);
  report_rate(state, array_bytes, times, samples.fill);
}

void bm_limit_triad(benchmark::State& state) {
  auto& d = stream();
  std::vector<double> times;
  run_timed(state, [&] {
    kernel_triad(d.a.data(), d.b.data(), d.c.data(), 3.0, elements);
    return d.a[0];
  }, &times);
  report_rate(state, 3 * array_bytes, times, samples.triad);
}

// The limits: the best of the recorded rates (on a shared machine the
// fastest iteration is the one that had the machine to itself), measured now
// if none were recorded.
limit_rates limits() {
  if (samples.read.empty() || samples.copy.empty() || samples.fill.empty()) {
    // Arrays of its own: the cached data set may be in use by the caller.
    auto a = generate<double>(elements, [](std::int64_t i) { return unit(5 * i); });
    auto b = generate<double>(elements, [](std::int64_t i) { return unit(5 * i + 1); });
    for (int k = 0; k < 7; ++k) {
      auto t0 = clock_type::now();
      benchmark::DoNotOptimize(kernel_read(a.data(), elements));
      auto t1 = clock_type::now();
      kernel_copy(a.data(), b.data(), elements);
      auto t2 = clock_type::now();
      kernel_fill(a.data(), 1.0 * k, elements);
      auto t3 = clock_type::now();
      samples.read.push_back(array_bytes / std::chrono::duration<double>(t1 - t0).count() / gb);
      samples.copy.push_back(2 * array_bytes / std::chrono::duration<double>(t2 - t1).count() / gb);
      samples.fill.push_back(array_bytes / std::chrono::duration<double>(t3 - t2).count() / gb);
    }
  }
  auto best = [](const std::vector<double>& v) {
    return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
  };
  return {best(samples.read), best(samples.copy), best(samples.fill), best(samples.triad)};
}

// One pass of a kernel: bytes read and bytes written.
struct pass {
  double read;
  double written;
};

// A primitive's mean time per iteration and the probe rates beside it.
struct measured {
  double seconds;
  std::vector<double> probe_rates;
};

// Times `op` per iteration, each after a read-only probe.
template <class Op>
measured run_probed(benchmark::State& state, Op op) {
  if (!probe_data)
    probe_data = std::make_unique<std::vector<double>>(
        generate<double>(elements, [](std::int64_t i) { return unit(7 * i); }));
  limits();  // measured before the first probe if no limit benchmark ran
  measured m;
  m.seconds = run_timed(state, op, nullptr, &m.probe_rates);
  return m;
}

// Sets the counters of a kernel made of `passes`:
//   GB/s   its bytes over its time;
//   avail  the probe's read rate beside it over the read limit: the share of
//          the machine's bandwidth the benchmark had (1 on an idle machine);
//   frac   the time its traffic takes at the limits scaled by `avail`, over
//          its time;
//   of_read  GB/s over the read limit scaled by `avail`.
void report_traffic(benchmark::State& state, const measured& run,
                    std::initializer_list<pass> passes) {
  const limit_rates lim = limits();
  const double avail = std::min(1.0, median(run.probe_rates) / lim.read);
  double bytes = 0, bound = 0;
  for (const pass& p : passes) {
    const double paired = std::min(p.read, p.written);
    bytes += p.read + p.written;
    bound += 2 * paired / (lim.copy * gb) + (p.read - paired) / (lim.read * gb) +
             (p.written - paired) / (lim.fill * gb);
  }
  const double rate = bytes / run.seconds / gb;
  state.counters["GB/s"] = rate;
  state.counters["avail"] = avail;
  state.counters["frac"] = bound / avail / run.seconds;
  state.counters["of_read"] = rate / (lim.read * avail);
}

// ---------------------------------------------------------------- flat primitives

// The shared input of the vseg benchmarks: `elements` doubles in [0, 1).
std::unique_ptr<vseg::array<double>> input_data;
const vseg::array<double>& input() {
  if (!input_data) {
    auto b = vseg::buffer<double>::for_overwrite(elements);
    double* p = b.data();
    split(elements, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) p[i] = unit(static_cast<std::uint64_t>(i));
    });
    input_data = std::make_unique<vseg::array<double>>(std::move(b).freeze());
  }
  return *input_data;
}

constexpr double n_bytes = static_cast<double>(elements) * sizeof(double);

void bm_reduce(benchmark::State& state) {
  const auto& x = input();
  const measured t = run_probed(state, [&] { return vseg::sum(x); });
  report_traffic(state, t, {{n_bytes, 0}});
}

void bm_scan(benchmark::State& state) {
  const auto& x = input();
  const measured t = run_probed(state, [&] { return vseg::scan(x, vseg::plus<double>{}); });
  // Pass 1 reduces each block; pass 2 reads again and writes the prefixes.
  report_traffic(state, t, {{n_bytes, 0}, {n_bytes, n_bytes}});
}

struct pack_data {
  vseg::array<bool> flags;
  std::int64_t kept = 0;
};
std::unique_ptr<pack_data> pack_set;

void bm_pack(benchmark::State& state) {
  const auto& x = input();
  auto& d = cached<pack_data>(pack_set, [] {
    auto d = std::make_unique<pack_data>();
    auto b = vseg::buffer<bool>::for_overwrite(elements);
    bool* f = b.data();
    split(elements, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) f[i] = (mix(~static_cast<std::uint64_t>(i)) & 1) != 0;
    });
    d->flags = std::move(b).freeze();
    d->kept = vseg::count_true(d->flags);
    return d;
  });
  const measured t = run_probed(state, [&] { return vseg::pack(x, d.flags); });
  const double flag_bytes = static_cast<double>(elements);
  const double kept_bytes = static_cast<double>(d.kept) * sizeof(double);
  // Pass 1 counts flags per block; pass 2 reads flags and data, writes the kept.
  report_traffic(state, t, {{flag_bytes, 0}, {flag_bytes + n_bytes, kept_bytes}});
}

struct expand_data {
  vseg::array<std::int64_t> counts;
  vseg::array<double> values;
};
std::unique_ptr<expand_data> expand_set;
constexpr std::int64_t expand_count = 16;

void bm_expand(benchmark::State& state) {
  auto& d = cached<expand_data>(expand_set, [] {
    auto d = std::make_unique<expand_data>();
    const std::int64_t m = elements / expand_count;
    d->counts = vseg::fill(m, expand_count);
    d->values = vseg::tabulate(m, [](std::int64_t i) { return unit(static_cast<std::uint64_t>(i)); });
    return d;
  });
  const measured t = run_probed(state, [&] { return vseg::expand(d.counts, d.values); });
  const double m_bytes = static_cast<double>(elements / expand_count) * 8;
  // The descriptor: check the counts, then scan them in two passes into the
  // starts. The fill: read counts, starts and values, write the output.
  report_traffic(state, t,
                 {{m_bytes, 0}, {m_bytes, 0}, {m_bytes, m_bytes}, {3 * m_bytes, n_bytes}});
}

// ---------------------------------------------------------------- segmented sum

enum class shape { length_1, length_16, length_1024, giant, zipf };

const char* shape_name(shape s) {
  switch (s) {
    case shape::length_1: return "len1";
    case shape::length_16: return "len16";
    case shape::length_1024: return "len1024";
    case shape::giant: return "giant";
    case shape::zipf: return "zipf";
  }
  return "?";
}

// Zipf(s = 1.2) lengths on [1, 2^20], drawn until they cover `elements`
// (the last one cut short): many short segments holding few elements, a few
// long ones holding most.
std::vector<std::int64_t> zipf_lengths() {
  constexpr std::int64_t top = std::int64_t{1} << 20;
  constexpr double exponent = 1.2;
  std::vector<double> cdf(static_cast<std::size_t>(top));
  double acc = 0;
  for (std::int64_t k = 1; k <= top; ++k) {
    acc += std::pow(static_cast<double>(k), -exponent);
    cdf[static_cast<std::size_t>(k - 1)] = acc;
  }
  std::vector<std::int64_t> lengths;
  std::int64_t covered = 0;
  for (std::uint64_t i = 0; covered < elements; ++i) {
    const double u = unit(i ^ 0x5eed) * acc;
    auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
    std::int64_t len = std::min<std::int64_t>(1 + (it - cdf.begin()), top);
    len = std::min(len, elements - covered);
    lengths.push_back(len);
    covered += len;
  }
  return lengths;
}

// A segment descriptor over the shared input, its keys for Thrust (int32
// segment ids, the narrowest that fits: the least traffic Thrust can have)
// and Thrust's outputs, allocated once.
struct segmented_data {
  shape kind;
  vseg::segd s;
  std::vector<std::int32_t> keys;
  std::vector<std::int32_t> keys_out;
  std::vector<double> values_out;
};
std::unique_ptr<segmented_data> segmented_set;

segmented_data& segmented(shape kind) {
  if (segmented_set && segmented_set->kind != kind) segmented_set.reset();
  return cached<segmented_data>(segmented_set, [kind] {
    auto d = std::make_unique<segmented_data>();
    d->kind = kind;
    switch (kind) {
      case shape::length_1: d->s = vseg::segd::uniform(elements, 1); break;
      case shape::length_16: d->s = vseg::segd::uniform(elements / 16, 16); break;
      case shape::length_1024: d->s = vseg::segd::uniform(elements / 1024, 1024); break;
      case shape::giant: d->s = vseg::segd::single(elements); break;
      case shape::zipf: d->s = vseg::segd::from_lengths(vseg::array<std::int64_t>(zipf_lengths()));
    }
    const std::int64_t m = d->s.segments();
    auto ids = vseg::segment_ids(d->s);
    d->keys = generate<std::int32_t>(elements, [&](std::int64_t i) {
      return static_cast<std::int32_t>(ids[i]);
    });
    d->keys_out.resize(static_cast<std::size_t>(m));
    d->values_out.resize(static_cast<std::size_t>(m));
    return d;
  });
}

// vseg::sum_s and thrust::reduce_by_key agree (up to rounding: they associate
// differently); returns the largest relative difference.
double disagreement(const segmented_data& d, const vseg::array<double>& mine) {
  double worst = 0;
  for (std::int64_t j = 0; j < d.s.segments(); ++j) {
    const double a = mine[j], b = d.values_out[static_cast<std::size_t>(j)];
    worst = std::max(worst, std::abs(a - b) / std::max(1.0, std::abs(b)));
  }
  return worst;
}

void bm_sum_s(benchmark::State& state, shape kind) {
  const auto& x = input();
  auto& d = segmented(kind);
  const measured t = run_probed(state, [&] { return vseg::sum_s(d.s, x); });
  const double m_bytes = static_cast<double>(d.s.segments()) * 8;
  // Reads the data, the lengths and the starts; writes one sum per segment.
  report_traffic(state, t, {{n_bytes + 2 * m_bytes, m_bytes}});
  // The target is stated against the read-only limit: GB/s over it.
  state.counters["segments"] = static_cast<double>(d.s.segments());
}

void bm_thrust_reduce_by_key(benchmark::State& state, shape kind) {
  const auto& x = input();
  auto& d = segmented(kind);
  auto run = [&] {
    auto ends = thrust::reduce_by_key(thrust::tbb::par, d.keys.data(), d.keys.data() + elements,
                                      x.data(), d.keys_out.data(), d.values_out.data());
    return ends.first;
  };
  run();
  if (const double diff = disagreement(d, vseg::sum_s(d.s, x)); diff > 1e-9) {
    state.SkipWithError(("thrust and vseg disagree by " + std::to_string(diff)).c_str());
    return;
  }
  const measured t = run_probed(state, run);
  const double m = static_cast<double>(d.s.segments());
  const double key_bytes = static_cast<double>(elements) * sizeof(std::int32_t);
  // Pass 1 finds the segment ends per interval (reads the keys); pass 2
  // reduces each interval (reads keys and values, writes a key and a sum per
  // segment).
  report_traffic(state, t, {{key_bytes, 0}, {key_bytes + n_bytes, m * (4 + 8)}});
  state.counters["segments"] = m;
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
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("threads", std::to_string(tbb::global_control::active_value(
                                             tbb::global_control::max_allowed_parallelism)));
  benchmark::AddCustomContext("cpu_model", cpu_model());
  benchmark::AddCustomContext("elements", std::to_string(elements));

  auto reg = [](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)->UseManualTime()->Unit(benchmark::kMillisecond);
  };
  reg("limit/read", bm_limit_read);
  reg("limit/copy", bm_limit_copy);
  reg("limit/fill", bm_limit_fill);
  reg("limit/triad", bm_limit_triad);
  reg("vseg/reduce", bm_reduce);
  reg("vseg/scan", bm_scan);
  reg("vseg/pack", bm_pack);
  reg("vseg/expand", bm_expand);
  for (shape k : {shape::length_1, shape::length_16, shape::length_1024, shape::giant, shape::zipf}) {
    reg(std::string("sum_s/vseg/") + shape_name(k),
        [k](benchmark::State& st) { bm_sum_s(st, k); });
    reg(std::string("sum_s/thrust/") + shape_name(k),
        [k](benchmark::State& st) { bm_thrust_reduce_by_key(st, k); });
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
