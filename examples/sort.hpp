// Sorting with vseg: 10^7 doubles, and (key, value) pairs. Shared by
// examples/sort.cpp and the benchmark bench/irregular.
#pragma once

#include <cstdint>
#include <utility>

#include "vseg/vseg.hpp"

namespace examples {

// The doubles in ascending order (stable; a radix sort on their bits).
inline vseg::array<double> sort_doubles(const vseg::array<double>& xs) { return vseg::sort(xs); }

// The pairs ordered by key, equal keys keeping their input order.
inline std::pair<vseg::array<std::uint32_t>, vseg::array<std::int64_t>> sort_pairs(
    const vseg::array<std::uint32_t>& keys, const vseg::array<std::int64_t>& values) {
  return vseg::sort_by_key(keys, values);
}

}  // namespace examples
