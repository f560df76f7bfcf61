// The operations of irregular algorithms: sorting, keys and duplicates
// (vseg/algorithm/sort.hpp, keys.hpp, duplicates.hpp) and the segment,
// scatter and split operations. One header per group under vseg/algorithm/.
#pragma once

// Sorting, keys, duplicates.
#include "vseg/algorithm/duplicates.hpp"
#include "vseg/algorithm/keys.hpp"
#include "vseg/algorithm/sort.hpp"

// Segments, scatters, splits (gather, filter_segments, scatter, split,
// partition, interleave, count_s).
#include "vseg/algorithm/count.hpp"
#include "vseg/algorithm/gather.hpp"
#include "vseg/algorithm/interleave.hpp"
#include "vseg/algorithm/scatter.hpp"
#include "vseg/algorithm/split.hpp"
