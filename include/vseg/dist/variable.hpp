// Items of variable length: item i is data[offset(i), offset(i) + counts[i]),
// where offset(i) is the sum of the counts before i.
#pragma once

#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

namespace vseg::dist {

template <class T>
struct variable {
  std::vector<std::int64_t> counts;
  std::vector<T> data;

  // Number of items; O(1).
  std::int64_t size() const { return static_cast<std::int64_t>(counts.size()); }

  // The start of every item in data, plus data.size() at the end; O(size()).
  std::vector<std::int64_t> offsets() const {
    std::vector<std::int64_t> result(counts.size() + 1, 0);
    std::inclusive_scan(counts.begin(), counts.end(), result.begin() + 1);
    return result;
  }

  friend bool operator==(const variable&, const variable&) = default;
};

}  // namespace vseg::dist
