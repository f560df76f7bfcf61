// The driver shared by the contenders of bench/irregular: one executable per
// contender (vseg, ParlayLib on its scheduler, ParlayLib on TBB, serial,
// oneTBB), each run in a fresh process per round by scripts/bench-irregular:
//
//   irregular_<contender> PROBLEM SIZE
//
// loads the problem's input (inputs.hpp; cached), converts it to the
// contender's own types (untimed), runs the algorithm once to warm the
// scheduler and the allocator, resets the peak-RSS mark
// (/proc/self/clear_refs), runs it again timed, and prints
//
//   time_s <seconds>          the timed run, wall clock
//   peak_rss_kb <kB>          the process's peak RSS during the timed run
//   input_rss_kb <kB>         its RSS just before it (input + warm pools)
//   page_faults <n>           page faults during the timed run
//   digest <hex>              the answer's digest, compared across contenders
//
// Answers are digested after the timing, in a canonical form where the
// contender's own form differs (ParlayLib's BFS frontiers become levels).
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "inputs.hpp"

namespace irregular {

// A field of /proc/self/status in kB (VmRSS, VmHWM), or -1.
inline long status_kb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string key = std::string(field) + ":";
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::strtol(line.c_str() + key.size(), nullptr, 10);
  return -1;
}

// The timed run's measurements, printed by run_main.
struct measurement {
  double seconds = 0;
  long peak_rss_kb = -1, input_rss_kb = -1;
  long page_faults = -1;  // minor + major faults during the timed run (fresh pages being zeroed)
  std::uint64_t order_digest = 0;  // 0: none (see dedup_digest)
};

inline measurement& last_measurement() {
  static measurement m;
  return m;
}

// Runs f() once untimed (warm-up; its result is destroyed), resets the
// process's peak-RSS mark, then runs it timed and returns its result.
template <class F>
auto measure(F f) {
  { auto warm = f(); }
  {
    std::ofstream reset("/proc/self/clear_refs");
    reset << "5\n";  // resets VmHWM to the current RSS (Linux >= 4.0)
  }
  auto& m = last_measurement();
  m.input_rss_kb = status_kb("VmRSS");
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  const auto t0 = std::chrono::steady_clock::now();
  auto result = f();
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  getrusage(RUSAGE_SELF, &after);
  m.peak_rss_kb = status_kb("VmHWM");
  m.page_faults = (after.ru_minflt - before.ru_minflt) + (after.ru_majflt - before.ru_majflt);
  return result;
}

// A problem: runs on the size argument and returns the answer's digest.
using problem = std::function<std::uint64_t(std::int64_t size)>;

// Loaders of the cached inputs, by problem.
inline graph load_rmat(std::int64_t log_n) {
  return cached_graph("rmat" + std::to_string(log_n), [&] { return rmat_graph(static_cast<int>(log_n), 8, 1); });
}

inline graph load_grid(std::int64_t side) {
  return cached_graph("grid" + std::to_string(side), [&] { return grid_graph(side); });
}

inline std::vector<point> load_points(std::int64_t n) {
  return cached<point>("points" + std::to_string(n), [&] { return random_points(n); });
}

inline std::vector<char> load_text(std::int64_t words) {
  return cached<char>("text" + std::to_string(words), [&] { return random_text(words); });
}

// The main of a contender: argv = PROBLEM SIZE; prints the measurement and
// the digest, or the error and exit status 1.
inline int run_main(int argc, char** argv, const std::map<std::string, problem>& problems) {
  if (argc != 3 || !problems.count(argv[1])) {
    std::fprintf(stderr, "usage: %s PROBLEM SIZE\nproblems:", argv[0]);
    for (const auto& [name, _] : problems) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  try {
    const std::uint64_t d = problems.at(argv[1])(std::strtoll(argv[2], nullptr, 10));
    const auto& m = last_measurement();
    std::printf("time_s %.6f\npeak_rss_kb %ld\ninput_rss_kb %ld\ndigest %016llx\n", m.seconds, m.peak_rss_kb,
                m.input_rss_kb, static_cast<unsigned long long>(d));
    std::printf("page_faults %ld\n", m.page_faults);
    if (m.order_digest != 0) std::printf("order_digest %016llx\n", static_cast<unsigned long long>(m.order_digest));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s %s %s: %s\n", argv[0], argv[1], argv[2], e.what());
    return 1;
  }
}

// The digest of a remove-duplicates answer: of its sorted values (every
// contender prints it), and, for contenders that promise the first
// occurrences in input order (`ordered`), of the answer as it is, printed
// as order_digest and compared among those. ParlayLib's remove_duplicates
// is hash based and promises no order.
inline std::uint64_t dedup_digest(std::vector<std::int64_t> xs, bool ordered) {
  if (ordered) last_measurement().order_digest = digest_of(xs);
  std::sort(xs.begin(), xs.end());
  return digest_of(xs);
}

// BFS levels from a parent-free frontier list: level[v] = the index of the
// frontier holding v, -1 when unreached. Used to canonicalise answers.
template <class Frontiers>
std::vector<std::int32_t> levels_from_frontiers(std::int64_t n, const Frontiers& frontiers) {
  std::vector<std::int32_t> level(static_cast<std::size_t>(n), -1);
  for (std::size_t d = 0; d < frontiers.size(); ++d)
    for (auto v : frontiers[d]) level[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(d);
  return level;
}

}  // namespace irregular
