// The algorithms of irregular programs over vseg's arrays, one header per
// group under vseg/algorithm/.
#pragma once

// Segments, scatters, splits (gather, filter_segments, scatter, split,
// partition, interleave, count_s).
#include "vseg/algorithm/count.hpp"
#include "vseg/algorithm/gather.hpp"
#include "vseg/algorithm/interleave.hpp"
#include "vseg/algorithm/scatter.hpp"
#include "vseg/algorithm/split.hpp"
