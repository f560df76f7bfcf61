// Copying the short runs NESL's segments are made of.
#pragma once

#include <algorithm>
#include <cstdint>

namespace vseg::vcode::detail {

// The `len` elements at `from` copied to `to` (not overlapping). A run of up
// to 16 by an inlined loop, a longer one by std::copy: a call per run cost
// more than the copy on Barnes-Hut's runs of ~8 (its PERMUTE INT 111-116 ms
// with std::copy per run, 97-99 with the loop; notes/vcode.md "Runs moved
// whole").
template <class T>
inline void copy_run(const T* from, std::int64_t len, T* to) {
  if (len <= 16) {
    for (std::int64_t r = 0; r < len; ++r) to[r] = from[r];
  } else {
    std::copy(from, from + len, to);
  }
}

}  // namespace vseg::vcode::detail
