// Running blocked arrays (vseg/ooc/blocked.hpp): the consumers fold_s,
// sum_s, scan_s and collect execute the array's per-block tasks with the
// flow-graph scheduler (vseg/ooc/scheduler.hpp) under a memory budget, then
// combine the blocks' results in block order. A segment split into pieces is
// folded piece by piece and the partial results combined left to right, so
// every result is a fixed function of the plan: bitwise the same under
// every budget, thread count and scheduler.
#pragma once

#include <algorithm>
#include <any>
#include <cstdint>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/monoid.hpp"
#include "vseg/nested.hpp"
#include "vseg/ooc/blocked.hpp"
#include "vseg/ooc/scheduler.hpp"

namespace vseg::ooc {

// How to run: the bytes of blocks (inputs and results) in memory at once,
// and whether on the flow graph or serially (the reference).
struct schedule {
  enum class runner { flow_graph, serial };
  std::int64_t memory_budget = std::int64_t{256} << 20;
  runner by = runner::flow_graph;
};

// Blocks in flight for xss under s: the budget over a block's bytes, at least 1. O(1).
template <class T>
std::int64_t blocks_in_flight(const blocked<T>& xss, const schedule& s) {
  return std::max<std::int64_t>(1, s.memory_budget / std::max<std::int64_t>(1, xss.block_bytes()));
}

// Computes every block of xss and hands (b, result) to sink, under s. O(work of the blocks).
template <class T, class Sink>
void run(const blocked<T>& xss, const schedule& s, Sink&& sink) {
  const auto blocks = static_cast<std::int64_t>(xss.blocks().size());
  auto load = [&](std::int64_t b) { return xss.load(b); };
  auto compute = [&](std::int64_t b, std::vector<std::any> loaded) { sink(b, xss.compute(b, loaded)); };
  if (s.by == schedule::runner::serial) run_blocks_serial(blocks, load, compute);
  else run_blocks(blocks, blocks_in_flight(xss, s), load, compute);
}

// Per segment, the fold with the monoid: each block by vseg::fold_s, the
// pieces of a split segment combined in order. O(elements + segments) work,
// O(segments + budget) memory.
template <class T, class Monoid>
  requires monoid_for<Monoid, T>
array<T> fold_s(const blocked<T>& xss, const Monoid& m, const schedule& s = {}) {
  const auto& plan = xss.blocks();
  auto out = buffer<T>::for_overwrite(xss.size());
  const std::int64_t planned = plan.empty() ? 0 : plan.back().first_segment + plan.back().segments;
  if (xss.size() == planned) {
    // Every block holds its planned segments (nothing packed away): its
    // results go straight to their place in the output as it finishes, and
    // its result array is freed (its memory reused by the next block) at
    // once. Keeping every block's results to the end made the pool grow by
    // the whole output again: fresh pages, zeroed by the kernel, 20% of the
    // blocked sum's profile with the copy. A continued piece's result is
    // kept aside and combined in order afterwards.
    auto continued = buffer<T>::for_overwrite(static_cast<std::int64_t>(plan.size()));  // read only where written
    run(xss, s, [&](std::int64_t b, const nested<T>& block) {
      const block_range& r = plan[static_cast<std::size_t>(b)];
      const array<T> sums = vseg::fold_s(block, m);
      std::int64_t i = 0;
      if (r.piece > 0) {
        continued.data()[b] = sums.size() > 0 ? sums[0] : m.identity();
        i = std::min<std::int64_t>(1, sums.size());
      }
      std::copy(sums.data() + i, sums.data() + sums.size(), out.data() + r.first_segment + i);
    });
    for (std::size_t b = 0; b < plan.size(); ++b)
      if (plan[b].piece > 0) out.data()[plan[b].first_segment] = m(out.data()[plan[b].first_segment], continued.data()[b]);
    return std::move(out).freeze();
  }
  // Packed: a block's place is known once the blocks before it are done.
  std::vector<array<T>> per_block(plan.size());
  run(xss, s, [&](std::int64_t b, const nested<T>& block) { per_block[static_cast<std::size_t>(b)] = vseg::fold_s(block, m); });
  std::int64_t filled = 0;
  for (std::size_t b = 0; b < per_block.size(); ++b) {
    const array<T>& r = per_block[b];
    std::int64_t i = 0;
    if (plan[b].piece > 0 && r.size() > 0) {
      out.data()[filled - 1] = m(out.data()[filled - 1], r[0]);
      i = 1;
    }
    std::copy(r.data() + i, r.data() + r.size(), out.data() + filled);
    filled += r.size() - i;
  }
  return std::move(out).freeze();
}

// Per segment, the sum. O(elements + segments).
template <class T>
array<T> sum_s(const blocked<T>& xss, const schedule& s = {}) {
  return fold_s(xss, plus<T>{}, s);
}

// The segments as one in-memory nested array (pieces joined). O(elements + segments).
template <class T>
nested<T> collect(const blocked<T>& xss, const schedule& s = {}) {
  std::vector<nested<T>> per_block(xss.blocks().size());
  run(xss, s, [&](std::int64_t b, const nested<T>& block) { per_block[static_cast<std::size_t>(b)] = block; });
  std::vector<std::vector<T>> segments;
  for (std::size_t b = 0; b < per_block.size(); ++b) {
    const bool continues = xss.blocks()[b].piece > 0;
    for (std::int64_t i = 0; i < per_block[b].size(); ++i) {
      const auto seg = per_block[b][i];
      if (continues && i == 0) segments.back().insert(segments.back().end(), seg.begin(), seg.end());
      else segments.emplace_back(seg.begin(), seg.end());
    }
  }
  return nested<T>::from(segments);
}

// Per segment, the exclusive scan with the monoid, as a blocked array: each
// block by vseg::scan_s; the pieces of a split segment start from the fold
// of the pieces before them, which a first pass over the pieces (only)
// computes now, as dask's cumsum does. O(elements of split segments) now,
// O(1) lazily for the rest.
template <class T, class Monoid>
  requires monoid_for<Monoid, T>
blocked<T> scan_s(const blocked<T>& xss, const Monoid& m, const schedule& s = {}) {
  const auto& plan = xss.blocks();
  std::vector<std::int64_t> pieces;
  for (std::size_t b = 0; b < plan.size(); ++b)
    if (plan[b].piece >= 0) pieces.push_back(static_cast<std::int64_t>(b));
  // The carry into every piece: the fold of the earlier pieces of its segment.
  auto carry = std::make_shared<std::vector<T>>(plan.size(), m.identity());
  if (!pieces.empty()) {
    std::vector<T> totals(plan.size(), m.identity());
    auto load = [&](std::int64_t i) { return xss.load(pieces[static_cast<std::size_t>(i)]); };
    auto compute = [&](std::int64_t i, std::vector<std::any> loaded) {
      const std::int64_t b = pieces[static_cast<std::size_t>(i)];
      totals[static_cast<std::size_t>(b)] = vseg::fold_s(xss.compute(b, loaded), m)[0];
    };
    const auto n = static_cast<std::int64_t>(pieces.size());
    if (s.by == schedule::runner::serial) run_blocks_serial(n, load, compute);
    else run_blocks(n, blocks_in_flight(xss, s), load, compute);
    for (std::size_t b = 1; b < plan.size(); ++b)
      if (plan[b].piece > 0) (*carry)[b] = m((*carry)[b - 1], totals[b - 1]);
  }
  return blocked<T>(xss.plan(), xss.size(), xss.leaves(), detail::node("scan_s", {xss.expression()}),
                    [xss, m, carry](std::int64_t b, std::span<const std::any> loaded) {
                      nested<T> scanned = vseg::scan_s(xss.compute(b, loaded), m);
                      if (xss.blocks()[static_cast<std::size_t>(b)].piece <= 0) return scanned;
                      const T c = (*carry)[static_cast<std::size_t>(b)];
                      return vseg::map([&](const T& y) { return m(c, y); }, scanned);
                    },
                    xss.block_bytes() * 2);
}

}  // namespace vseg::ooc
