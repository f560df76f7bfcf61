// Removing duplicates with vseg. Shared by examples/dedup.cpp and the
// benchmark bench/irregular.
#pragma once

#include <cstdint>

#include "vseg/vseg.hpp"

namespace examples {

// The first occurrence of every value, in input order (hash based; the same
// answer on any number of threads). O(n) expected work.
inline vseg::array<std::int64_t> dedup(const vseg::array<std::int64_t>& xs) { return vseg::remove_duplicates(xs); }

}  // namespace examples
