// A fork-join backend on std::thread, for the ThreadSanitizer build only.
//
// ThreadSanitizer sees only what was compiled with it. Debian's libtbb is
// not, so TBB's task hand-off looks like about 1,500 races and a TSan run on
// oneTBB cannot judge vseg. This backend synchronises through nothing but
// std::mutex, std::condition_variable and std::atomic, which TSan models
// exactly, so every report from the TSan build is a race in vseg.
//
// It is selected by `meson setup -Dparallel_backend=threads`, which defines
// VSEG_PARALLEL_THREADS for the whole build (library, tests, dependents).
// STYLE.md avoids choosing a backend by macro; this one is acceptable because
// it is a test instrument, never the product: every installed or benchmarked
// build is on oneTBB, and the macro only swaps the four things
// detail/parallel.hpp needs (a chunked loop, a sort, a thread count, a limit).
//
// How a loop runs: [0, n) is cut into chunks; the caller and up to
// threads - 1 pool workers take chunk indices from one atomic counter until
// none is left; the caller then waits for the chunks still running elsewhere.
// A waiting thread never runs other tasks, so nested loops (a parallel sort
// inside a loop over segments) cannot deadlock: a thread only ever waits for
// chunks of a loop that started after the one its own helper task serves.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace vseg::detail::fork_join {

// The most threads a loop uses, whatever limit is asked for.
inline constexpr int max_threads = 64;

// Threads used when no limit is live: the hardware's, but at least 2, so the
// TSan build runs every loop concurrently even on a one-core machine.
inline int default_threads() {
  const auto hw = static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(hw, 2, max_threads);
}

// The live thread limits; the smallest one wins, as with tbb::global_control.
class limits {
 public:
  static limits& instance() {
    static limits l;
    return l;
  }
  // Threads a loop started now may use. O(1).
  int current() const { return current_.load(std::memory_order_relaxed); }
  // Registers a limit of `threads` (>= 1). O(log live limits).
  void add(int threads) {
    std::lock_guard<std::mutex> lock(mutex_);
    live_.insert(std::min(threads, max_threads));
    current_.store(*live_.begin(), std::memory_order_relaxed);
  }
  // Removes one limit registered with add(threads). O(log live limits).
  void remove(int threads) {
    std::lock_guard<std::mutex> lock(mutex_);
    live_.erase(live_.find(std::min(threads, max_threads)));
    current_.store(live_.empty() ? default_threads() : *live_.begin(), std::memory_order_relaxed);
  }

 private:
  std::mutex mutex_;
  std::multiset<int> live_;
  std::atomic<int> current_{default_threads()};
};

// Registers a thread limit while alive.
class limit_guard {
 public:
  explicit limit_guard(int threads) : threads_(threads) { limits::instance().add(threads_); }
  ~limit_guard() { limits::instance().remove(threads_); }
  limit_guard(const limit_guard&) = delete;
  limit_guard& operator=(const limit_guard&) = delete;

 private:
  int threads_;
};

// One parallel loop of `chunks` chunks, shared by its caller and its helpers.
struct loop_state {
  std::int64_t chunks = 0;
  // Runs chunk i; refers to the caller's body, so it is called only for an
  // index taken from `next` below `chunks`, which the caller waits for.
  std::function<void(std::int64_t)> run_chunk;
  std::atomic<std::int64_t> next{0};
  std::atomic<std::int64_t> finished{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::condition_variable all_finished;
  std::exception_ptr error;  // the first exception thrown by a chunk; under mutex
};

// Takes and runs chunks of the loop until none is left. After an exception
// the remaining chunks are taken but not run (as TBB cancels its group).
inline void take_chunks(loop_state& loop) {
  for (;;) {
    const std::int64_t i = loop.next.fetch_add(1, std::memory_order_relaxed);
    if (i >= loop.chunks) return;
    if (!loop.failed.load(std::memory_order_relaxed)) {
      try {
        loop.run_chunk(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(loop.mutex);
        if (!loop.error) loop.error = std::current_exception();
        loop.failed.store(true, std::memory_order_relaxed);
      }
    }
    // acq_rel: the chunk's writes happen before the caller sees the count.
    if (loop.finished.fetch_add(1, std::memory_order_acq_rel) + 1 == loop.chunks) {
      std::lock_guard<std::mutex> lock(loop.mutex);
      loop.all_finished.notify_all();
    }
  }
}

// The worker threads, created as limits ask for them and joined at exit.
class pool {
 public:
  static pool& instance() {
    static pool p;
    return p;
  }
  pool() = default;
  pool(const pool&) = delete;
  pool& operator=(const pool&) = delete;
  ~pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }

  // Queues `helpers` helper tasks for the loop, with at least that many workers.
  void submit(const std::shared_ptr<loop_state>& loop, std::int64_t helpers) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (static_cast<std::int64_t>(workers_.size()) < helpers)
        workers_.emplace_back([this] { work(); });
      for (std::int64_t h = 0; h < helpers; ++h) queue_.push_back(loop);
    }
    if (helpers == 1) wake_.notify_one();
    else wake_.notify_all();
  }

 private:
  // A worker: runs helper tasks until the pool is destroyed.
  void work() {
    for (;;) {
      std::shared_ptr<loop_state> loop;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        loop = std::move(queue_.front());
        queue_.pop_front();
      }
      take_chunks(*loop);
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<loop_state>> queue_;
  std::vector<std::thread> workers_;
  bool stopping_ = false;
};

// body(lo, hi) over chunks of [0, n) of at least `grain` elements (n > 0),
// on up to limits::current() threads; rethrows the first exception a chunk threw.
template <class Body>
void run(std::int64_t n, std::int64_t grain, Body& body) {
  const int threads = limits::instance().current();
  // About four chunks per thread, so an uneven chunk does not idle the rest.
  const std::int64_t wanted = (n + 4 * threads - 1) / (4 * threads);
  const std::int64_t chunk = std::max<std::int64_t>({grain, wanted, 1});
  const std::int64_t chunks = (n + chunk - 1) / chunk;
  auto run_chunk = [&body, n, chunk](std::int64_t i) {
    const std::int64_t lo = i * chunk;
    body(lo, std::min(n, lo + chunk));
  };
  if (threads == 1 || chunks == 1) {
    for (std::int64_t i = 0; i < chunks; ++i) run_chunk(i);
    return;
  }
  auto loop = std::make_shared<loop_state>();
  loop->chunks = chunks;
  loop->run_chunk = run_chunk;
  pool::instance().submit(loop, std::min<std::int64_t>(threads - 1, chunks - 1));
  take_chunks(*loop);
  std::unique_lock<std::mutex> lock(loop->mutex);
  loop->all_finished.wait(
      lock, [&] { return loop->finished.load(std::memory_order_acquire) == loop->chunks; });
  if (loop->error) std::rethrow_exception(loop->error);
}

// Runs task() once on a pool worker, without waiting for it (what
// parallel.hpp's run_when_idle asks of this backend). The task must not
// throw; the pool's destructor at exit waits for it.
inline void run_detached(std::function<void()> task) {
  auto loop = std::make_shared<loop_state>();
  loop->chunks = 1;
  loop->run_chunk = [task = std::move(task)](std::int64_t) { task(); };
  pool::instance().submit(loop, 1);
}

// Sorts [first, last) by <, not stably: pieces sorted in parallel, then
// merged pairwise in parallel rounds. O(n log n) work.
template <class It>
void sort(It first, It last) {
  const auto n = static_cast<std::int64_t>(std::distance(first, last));
  const std::int64_t pieces = std::min<std::int64_t>(2 * limits::instance().current(), n);
  if (pieces < 2) {
    std::sort(first, last);
    return;
  }
  auto bound = [&](std::int64_t p) { return first + static_cast<std::ptrdiff_t>(n * p / pieces); };
  auto sort_pieces = [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t p = lo; p < hi; ++p) std::sort(bound(p), bound(p + 1));
  };
  run(pieces, 1, sort_pieces);
  for (std::int64_t width = 1; width < pieces; width *= 2) {
    const std::int64_t pairs = (pieces + 2 * width - 1) / (2 * width);
    auto merge_pairs = [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t q = lo; q < hi; ++q) {
        const std::int64_t left = 2 * width * q;
        const std::int64_t mid = std::min(left + width, pieces);
        const std::int64_t right = std::min(left + 2 * width, pieces);
        std::inplace_merge(bound(left), bound(mid), bound(right));
      }
    };
    run(pairs, 1, merge_pairs);
  }
}

}  // namespace vseg::detail::fork_join
