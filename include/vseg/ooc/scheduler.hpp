// The out-of-core scheduler: blocks streamed through a oneTBB flow_graph
// under a memory budget.
//
//   input_node (block ids, in order) -> limiter_node (at most `in_flight`
//   blocks between it and the end) -> load (serial: one reader, in block
//   order) -> compute (any concurrency) -> back to the limiter's decrement.
//
// The limiter is the memory budget: a block's memory is taken when it is
// admitted and given back when its compute finishes, so at most `in_flight`
// blocks exist at once. While one block is read the others are computed:
// reads overlap compute. Each block's compute is deterministic and writes
// only its own results, so the outcome does not depend on the order in
// which blocks finish, on in_flight, or on the thread count.
#pragma once

#include <cstdint>
#include <utility>

#include "vseg/detail/error.hpp"

#ifndef VSEG_PARALLEL_THREADS
#include <oneapi/tbb/flow_graph.h>
#endif

namespace vseg::ooc {

// Runs load(b) then compute(b, loaded) for every block b in [0, blocks),
// loads one at a time in order, at most in_flight blocks alive at once.
// O(blocks) scheduling work. An exception from load or compute cancels
// the graph and is rethrown here.
template <class Load, class Compute>
void run_blocks(std::int64_t blocks, std::int64_t in_flight, Load&& load, Compute&& compute) {
  if (blocks < 0) vseg::detail::throw_invalid("ooc::run_blocks", "negative block count ", blocks);
  if (in_flight < 1) vseg::detail::throw_invalid("ooc::run_blocks", "blocks in flight ", in_flight, " < 1");
  using loaded_t = decltype(load(std::int64_t{0}));
#ifdef VSEG_PARALLEL_THREADS
  // The test-only threads backend has no flow graph: the same order, serially.
  for (std::int64_t b = 0; b < blocks; ++b) compute(b, load(b));
#else
  namespace flow = oneapi::tbb::flow;
  using message = std::pair<std::int64_t, loaded_t>;
  flow::graph g;
  std::int64_t next = 0;
  flow::input_node<std::int64_t> ids(g, [&](oneapi::tbb::flow_control& fc) -> std::int64_t {
    if (next == blocks) {
      fc.stop();
      return 0;
    }
    return next++;
  });
  flow::limiter_node<std::int64_t> budget(g, static_cast<std::size_t>(in_flight));
  flow::function_node<std::int64_t, message> reader(g, flow::serial,
                                                    [&](std::int64_t b) { return message(b, load(b)); });
  flow::function_node<message, flow::continue_msg> worker(g, flow::unlimited, [&](message m) {
    compute(m.first, std::move(m.second));
    return flow::continue_msg{};
  });
  flow::make_edge(ids, budget);
  flow::make_edge(budget, reader);
  flow::make_edge(reader, worker);
  flow::make_edge(worker, budget.decrementer());
  ids.activate();
  g.wait_for_all();
#endif
}

// The same, one block after another on the calling thread: the reference
// the flow-graph run is compared with. O(blocks) scheduling work.
template <class Load, class Compute>
void run_blocks_serial(std::int64_t blocks, Load&& load, Compute&& compute) {
  for (std::int64_t b = 0; b < blocks; ++b) compute(b, load(b));
}

}  // namespace vseg::ooc
