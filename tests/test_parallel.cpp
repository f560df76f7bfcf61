// The scheduler contract of detail/parallel.hpp, on whichever backend the
// build uses (oneTBB, or the fork-join backend of the ThreadSanitizer build):
// every index visited once, blocks as documented, exceptions reach the
// caller, nested loops finish, loops really run on two threads at once; and
// bool results of neighbouring blocks do not share a word.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "support.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/flat.hpp"
#include "vseg/segmented.hpp"

using vseg::detail::for_each_block;
using vseg::detail::parallel_for;
using vseg::detail::parallel_sort;
using vseg::detail::thread_limit;

TEST_CASE("parallel_for and for_each_block visit every index exactly once") {
  for (std::int64_t grain : {1, 7, 1000}) {
    for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, grain - 1, grain, grain + 1,
                           std::int64_t{100'003}}) {
      INFO("n = " << n << ", grain = " << grain);
      vseg::test::for_each_thread_count([&](int) {
        std::vector<std::atomic<int>> seen(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
        parallel_for(n, grain, [&](std::int64_t lo, std::int64_t hi) {
          for (std::int64_t i = lo; i < hi; ++i) seen[static_cast<std::size_t>(i)].fetch_add(1);
        });
        CHECK(std::all_of(seen.begin(), seen.end(), [](const auto& c) { return c.load() == 1; }));

        std::vector<std::pair<std::int64_t, std::int64_t>> blocks(
            static_cast<std::size_t>(vseg::detail::block_count(n, grain)), {-1, -1});
        for_each_block(n, grain, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
          blocks[static_cast<std::size_t>(b)] = {lo, hi};
        });
        for (std::size_t b = 0; b < blocks.size(); ++b) {
          const auto lo = static_cast<std::int64_t>(b) * grain;
          CHECK(blocks[b] == std::pair<std::int64_t, std::int64_t>{lo, std::min(n, lo + grain)});
        }
      });
    }
  }
}

TEST_CASE("an exception in a loop body reaches the caller, and the next loop runs") {
  vseg::test::for_each_thread_count([&](int) {
    CHECK_THROWS_WITH_AS(parallel_for(100'000, 100,
                                      [](std::int64_t lo, std::int64_t hi) {
                                        if (lo <= 54'321 && 54'321 < hi)
                                          throw std::runtime_error("bad index 54321");
                                      }),
                         "bad index 54321", std::runtime_error);
    std::atomic<std::int64_t> total{0};
    parallel_for(100'000, 100, [&](std::int64_t lo, std::int64_t hi) { total += hi - lo; });
    CHECK(total.load() == 100'000);
  });
}

TEST_CASE("nested loops and a parallel sort inside a loop finish with the right result") {
  auto rng = vseg::test::seeded(7);
  const auto keys = vseg::test::random_ints(rng, 60'000, -1'000'000, 1'000'000);
  auto sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  vseg::test::for_each_thread_count([&](int) {
    std::atomic<std::int64_t> total{0};
    std::vector<std::vector<std::int64_t>> copies(6, keys);
    parallel_for(6, 1, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t k = lo; k < hi; ++k) {
        parallel_for(50'000, 1000, [&](std::int64_t a, std::int64_t b) { total += b - a; });
        auto& c = copies[static_cast<std::size_t>(k)];
        parallel_sort(c.begin(), c.end());
      }
    });
    CHECK(total.load() == 6 * 50'000);
    for (const auto& c : copies) CHECK(c == sorted);
  });
}

TEST_CASE("parallel_sort sorts every size") {
  std::uint64_t seed = 11;
  for (std::int64_t n : vseg::test::standard_sizes()) {
    INFO("n = " << n << ", seed = " << seed);
    auto rng = vseg::test::seeded(seed++);
    auto v = vseg::test::random_ints(rng, n, -50, 50);  // many equal keys
    auto expected = v;
    std::sort(expected.begin(), expected.end());
    vseg::test::for_each_thread_count([&](int) {
      auto w = v;
      parallel_sort(w.data(), w.data() + n);
      CHECK(w == expected);
    });
  }
}

TEST_CASE("two chunks of one loop run at the same time on two threads") {
  // The first chunk to start waits for a second one to start. The same thread
  // cannot start another chunk while it waits, so a second start proves
  // concurrency; a serial scheduler would time out here and fail.
  thread_limit limit(2);
  std::mutex m;
  std::condition_variable cv;
  int started = 0;
  bool concurrent = false;
  parallel_for(64, 1, [&](std::int64_t, std::int64_t) {
    std::unique_lock<std::mutex> lock(m);
    if (++started == 1) {
      concurrent = cv.wait_for(lock, std::chrono::seconds(60), [&] { return started >= 2; });
    } else {
      cv.notify_all();
    }
  });
  CHECK(concurrent);
}

TEST_CASE("thread_limit refuses fewer than one thread") {
  CHECK_THROWS_WITH_AS(thread_limit(0), "thread_limit: threads is 0, must be at least 1",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(thread_limit(-3), "thread_limit: threads is -3, must be at least 1",
                       std::invalid_argument);
}

TEST_CASE("bool results of neighbouring blocks are separate objects: reduce, scan, fold_s, scan_s") {
  // Per-block partials of bool were a std::vector<bool>, whose neighbouring
  // bits share one word: blocks writing them in parallel raced (reported by
  // the ThreadSanitizer build) and could lose a partial. xor is sensitive to
  // any lost partial.
  auto rng = vseg::test::seeded(23);
  const std::int64_t n = 40 * vseg::tuning::flat_block + 5;
  const auto v = vseg::test::random_flags_vector(rng, n, 0.5);
  const vseg::array<bool> xs(v);
  // Segments of about 1.5 blocks, so most of them span a block boundary.
  std::vector<std::int64_t> lengths;
  for (std::int64_t left = n; left > 0; left -= lengths.back())
    lengths.push_back(std::min<std::int64_t>(left, 3 * vseg::tuning::segmented_block / 2 + 11));
  const auto s = vseg::segd::from_lengths(vseg::array<std::int64_t>(lengths));

  bool parity = false;
  std::vector<bool> prefix, seg_parity, seg_prefix;
  for (bool x : v) {
    prefix.push_back(parity);
    parity = parity != x;
  }
  std::int64_t k = 0;
  for (std::int64_t len : lengths) {
    bool p = false;
    for (std::int64_t i = 0; i < len; ++i, ++k) {
      seg_prefix.push_back(p);
      p = p != v[static_cast<std::size_t>(k)];
    }
    seg_parity.push_back(p);
  }
  vseg::test::for_each_thread_count([&](int) {
    CHECK(vseg::reduce(xs, vseg::logical_xor{}) == parity);
    CHECK(vseg::to_vector(vseg::scan(xs, vseg::logical_xor{})) == prefix);
    CHECK(vseg::to_vector(vseg::fold_s(s, xs, vseg::logical_xor{})) == seg_parity);
    CHECK(vseg::to_vector(vseg::scan_s(s, xs, vseg::logical_xor{})) == seg_prefix);
  });
}
