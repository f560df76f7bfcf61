// The two loop shapes every vseg primitive is built from, on oneTBB.
//
//   parallel_for(n, grain, body(lo, hi))   element-wise work, any split
//   for_each_block(n, block, body(b, lo, hi))
//                                          work over fixed blocks
//                                          [b*block, min(n,(b+1)*block)):
//                                          the blocks do not depend on the
//                                          thread count, so results combined
//                                          per block are deterministic.
//
// With them, the only other things vseg asks of a scheduler: parallel_sort,
// and thread_limit to cap the threads (tests sweep it, vseg-vcode -t sets it).
// Nothing else in vseg names tbb::, so the ThreadSanitizer build can swap
// oneTBB for the std::thread backend of fork_join.hpp (VSEG_PARALLEL_THREADS,
// set by meson -Dparallel_backend=threads; the reasons are in that header).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "vseg/tuning.hpp"

#ifdef VSEG_PARALLEL_THREADS
#include "vseg/detail/fork_join.hpp"
#else
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>
#endif

namespace vseg::detail {

// body(lo, hi) over a partition of [0, n) into ranges of about `grain` or
// more elements, in parallel (n > 0).
template <class Body>
void run_ranges(std::int64_t n, std::int64_t grain, Body& body) {
#ifdef VSEG_PARALLEL_THREADS
  fork_join::run(n, grain, body);
#else
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n, grain),
                    [&](const tbb::blocked_range<std::int64_t>& r) { body(r.begin(), r.end()); });
#endif
}

// body(lo, hi) over a partition of [0, n); serial below the cutoff.
template <class Body>
void parallel_for(std::int64_t n, std::int64_t grain, Body&& body) {
  if (n <= 0) return;
  if (n <= grain) {
    body(std::int64_t{0}, n);
    return;
  }
  run_ranges(n, grain, body);
}

// The threads a parallel loop started now may use (the live thread_limit's,
// else the hardware's). O(1).
inline int loop_threads() {
#ifdef VSEG_PARALLEL_THREADS
  return fork_join::limits::instance().current();
#else
  return static_cast<int>(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
#endif
}

// body(lo, hi) element-wise with the default grain.
template <class Body>
void parallel_for(std::int64_t n, Body&& body) {
  parallel_for(n, tuning::elementwise_grain, static_cast<Body&&>(body));
}

// Number of fixed blocks of `block` elements covering n elements.
inline std::int64_t block_count(std::int64_t n, std::int64_t block) {
  return n <= 0 ? 0 : (n + block - 1) / block;
}

// body(b, lo, hi) for every fixed block b of [0, n), in parallel.
template <class Body>
void for_each_block(std::int64_t n, std::int64_t block, Body&& body) {
  const std::int64_t blocks = block_count(n, block);
  auto run = [&](std::int64_t b) {
    const std::int64_t lo = b * block;
    const std::int64_t hi = lo + block < n ? lo + block : n;
    body(b, lo, hi);
  };
  if (blocks == 1) {
    run(0);
    return;
  }
  auto run_blocks = [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t b = first; b < last; ++b) run(b);
  };
  if (blocks > 0) run_ranges(blocks, 1, run_blocks);
}

// One value per block, for the results blocks write in parallel: contiguous,
// one object per value. Not std::vector<T>: std::vector<bool> packs 64 values
// into one word, so two blocks writing neighbouring bools race on it (found
// by the ThreadSanitizer build in fold_s over bools).
template <class T>
class per_block {
 public:
  // count values, each a copy of init. O(count).
  per_block(std::int64_t count, const T& init)
      : size_(static_cast<std::size_t>(count)), values_(std::make_unique<T[]>(size_)) {
    std::fill(values_.get(), values_.get() + size_, init);
  }
  T& operator[](std::size_t i) { return values_[i]; }
  const T& operator[](std::size_t i) const { return values_[i]; }
  T* data() { return values_.get(); }
  const T* data() const { return values_.get(); }
  std::size_t size() const { return size_; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

 private:
  std::size_t size_;
  std::unique_ptr<T[]> values_;
};

// Sorts [first, last) by <, in parallel, not stably. O(n log n) work.
template <class It>
void parallel_sort(It first, It last) {
#ifdef VSEG_PARALLEL_THREADS
  fork_join::sort(first, last);
#else
  tbb::parallel_sort(first, last);
#endif
}

// Runs `task` once on a worker thread, at low priority (oneTBB: in an arena
// of its own that a worker serves only when no normal-priority work waits),
// without waiting for it; the caller must keep whatever the task uses alive.
// Returns false, and does not run the task, when loops may use one thread
// only (no worker would take it). The task must not throw.
inline bool run_when_idle(std::function<void()> task) {
  if (loop_threads() < 2) return false;
#ifdef VSEG_PARALLEL_THREADS
  fork_join::run_detached(std::move(task));
#else
  // Never destroyed: a task may still be queued or running at exit.
  static auto* arena = new tbb::task_arena(1, 0, tbb::task_arena::priority::low);
  arena->enqueue(std::move(task));
#endif
  return true;
}

#ifdef VSEG_PARALLEL_THREADS
using backend_limit = fork_join::limit_guard;
#else
// A cap on the threads of oneTBB's loops while alive.
struct backend_limit {
  explicit backend_limit(int threads)
      : control(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads)) {}
  tbb::global_control control;
};
#endif

// While alive, parallel loops use at most `threads` threads; with several
// alive, the smallest wins (tbb::global_control's rule). Throws
// std::invalid_argument when threads < 1.
class thread_limit {
 public:
  explicit thread_limit(int threads) : limit_(checked(threads)) {}

 private:
  static int checked(int threads) {
    if (threads < 1)
      throw std::invalid_argument("thread_limit: threads is " + std::to_string(threads) +
                                  ", must be at least 1");
    return threads;
  }
  backend_limit limit_;
};

}  // namespace vseg::detail
