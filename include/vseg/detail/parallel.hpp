// The two loop shapes every vseg primitive is built from, on oneTBB.
//
//   parallel_for(n, grain, body(lo, hi))   element-wise work, any split
//   for_each_block(n, block, body(b, lo, hi))
//                                          work over fixed blocks
//                                          [b*block, min(n,(b+1)*block)):
//                                          the blocks do not depend on the
//                                          thread count, so results combined
//                                          per block are deterministic.
#pragma once

#include <cstdint>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "vseg/tuning.hpp"

namespace vseg::detail {

// body(lo, hi) over a partition of [0, n); serial below the cutoff.
template <class Body>
void parallel_for(std::int64_t n, std::int64_t grain, Body&& body) {
  if (n <= 0) return;
  if (n <= grain) {
    body(std::int64_t{0}, n);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n, grain),
                    [&](const tbb::blocked_range<std::int64_t>& r) { body(r.begin(), r.end()); });
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
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, blocks, 1),
                    [&](const tbb::blocked_range<std::int64_t>& r) {
                      for (std::int64_t b = r.begin(); b < r.end(); ++b) run(b);
                    });
}

}  // namespace vseg::detail
