// Block and grain sizes, in one place (STYLE.md guideline 5).
//
// Every blocked algorithm in vseg splits its input into blocks whose size is a
// constant below, never a function of the thread count. That is what makes a
// floating-point reduction or scan bitwise identical on 1 and N threads: the
// partial results are formed over the same blocks and combined in the same
// order, whoever computes them.
#pragma once

#include <cstdint>

namespace vseg::tuning {

// Elements per block for reduce, scan, pack and the other flat primitives.
inline constexpr std::int64_t flat_block = 16384;

// Work items (elements + segments) per block for segmented primitives; the
// merge-path partition gives every block this many items, whatever the mix of
// segment lengths.
inline constexpr std::int64_t segmented_block = 16384;

// Below this many elements (or work items) a primitive runs its serial version
// directly: the cost of spawning tasks would exceed the work.
inline constexpr std::int64_t serial_cutoff = 4096;

// Grain size for element-wise loops (map, tabulate, gathers): large enough
// that the loop body, not the scheduler, dominates.
inline constexpr std::int64_t elementwise_grain = 8192;

}  // namespace vseg::tuning
