// The check behind PERMUTE by a lazy INDEX of stride 1 (segment_moves.cpp):
// whether runs of consecutive positions cover a range once each.
#pragma once

#include <cstdint>

#include "vseg/segd.hpp"

namespace vseg::vcode::detail {

// Whether the runs [starts[t], starts[t] + shape.length(t)), t <
// shape.segments(), of an INDEX whose strides are strides[t], are all of
// stride 1 (empty runs excepted), lie inside [0, n) and cover it once each
// (false when their lengths do not sum to n):
// i.e. whether the INDEX is a permutation of [0, n). Two bytes marked per
// run, then the two compared. O(segments + n) in parallel.
bool runs_partition(const segd& shape, const std::int32_t* starts, const std::int32_t* strides, std::int64_t n);

}  // namespace vseg::vcode::detail
