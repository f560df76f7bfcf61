// The operations of irregular algorithms: sorting, keys and duplicates
// (vseg/algorithm/sort.hpp, keys.hpp, duplicates.hpp) and the segment,
// scatter and split operations. One header per group under vseg/algorithm/.
#pragma once

// Sorting, keys, duplicates.
#include "vseg/algorithm/duplicates.hpp"
#include "vseg/algorithm/keys.hpp"
#include "vseg/algorithm/sort.hpp"
