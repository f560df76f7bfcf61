// The reachable physical segments of a nested array as one contiguous logical
// space: how the consumers of whole segments (fold_s, scan_s, map) visit
// each reachable physical segment once. Internal.
#pragma once

#include <cstdint>

#include <boost/container/vector.hpp>

#include "vseg/detail/parallel.hpp"
#include "vseg/nested/nested.hpp"
#include "vseg/segd.hpp"

namespace vseg::detail {

// The culled array, and its physical segments laid end to end: `descriptor`
// is the segd of that space, and element k of it, inside physical segment p,
// is base[p][k - descriptor.start(p)]. When the array is contiguous, data_base
// is block 0's data (then base[p] == data_base + descriptor.start(p), and
// base is left empty). The flag, not the pointer, says which: an array of
// empty segments has a null data_base.
template <class T>
struct physical_view {
  nested<T> culled;
  segd descriptor;
  // Scratch overwritten in full below: default_init skips the zero fill.
  boost::container::vector<const T*> base;
  const T* data_base = nullptr;
  bool contiguous = false;

  // The first element of physical segment p in its block. O(1).
  const T* segment(std::int64_t p) const noexcept {
    return contiguous ? data_base + descriptor.start(p) : base[static_cast<std::size_t>(p)];
  }
};

// The physical view of xss after cull(). O(1) when xss is culled and
// contiguous, O(virtual + physical segments) otherwise.
template <class T>
physical_view<T> physical(const nested<T>& xss) {
  physical_view<T> v{xss.cull(), {}, {}, nullptr, false};
  const ssegd& ss = v.culled.descriptor().scattered();
  v.descriptor = ss.packed_layout();
  if (ss.contiguous() && !v.culled.blocks().empty()) {
    v.data_base = v.culled.blocks().front().data();
    v.contiguous = true;
    return v;
  }
  v.base.resize(static_cast<std::size_t>(ss.segments()), boost::container::default_init);
  const auto blocks = v.culled.blocks();
  const std::int64_t *src = ss.sources().data(), *st = ss.starts().data();
  const T** b = v.base.data();
  parallel_for(ss.segments(), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t p = lo; p < hi; ++p) b[p] = blocks[static_cast<std::size_t>(src[p])].data() + st[p];
  });
  return v;
}

}  // namespace vseg::detail
