// combine2 and append on nested arrays: descriptor operations, no element is
// copied. The second operand's vsegids shift by the first's number of
// *physical* segments (DPH's combine2 shifts by the virtual count, which is
// wrong when segments are shared).
#pragma once

#include <cstdint>
#include <utility>

#include "vseg/array.hpp"
#include "vseg/flat.hpp"
#include "vseg/nested/nested.hpp"

namespace vseg {

namespace detail {

// xss's blocks and physical segments followed by yss's, with yss's vsegids
// made to name them (shifted past xss's physical segments): the pieces from
// which combine2 and append build their result. O(physical segments + yss's
// virtual segments).
template <class T>
struct joined_physical {
  typename nested<T>::block_list blocks;
  ssegd physical;
  array<std::int64_t> yss_vsegids;
};

template <class T>
joined_physical<T> join_physical(const nested<T>& xss, const nested<T>& yss) {
  joined_physical<T> j;
  j.blocks.assign(xss.blocks().begin(), xss.blocks().end());
  j.blocks.insert(j.blocks.end(), yss.blocks().begin(), yss.blocks().end());
  const ssegd& xs = xss.descriptor().scattered();
  j.physical = ssegd::append(xs, static_cast<std::int64_t>(xss.blocks().size()),
                             yss.descriptor().scattered());
  const std::int64_t shift = xs.segments();
  j.yss_vsegids = map([shift](std::int64_t v) { return v + shift; }, yss.vsegids());
  return j;
}

}  // namespace detail

// Virtual segments taken from xss where tags[i] is false and from yss where
// it is true, in order. O(virtual + physical segments); no element copied.
// Throws std::invalid_argument unless the tags count each side's segments.
template <class T>
nested<T> combine2(const array<bool>& tags, const nested<T>& xss, const nested<T>& yss) {
  auto j = detail::join_physical(xss, yss);
  auto vsegids = combine2(tags, xss.vsegids(), j.yss_vsegids);
  return nested<T>::from_vsegd_unchecked(
      std::move(j.blocks), vsegd::from_vsegids_unchecked(std::move(vsegids), std::move(j.physical)));
}

// [xss..., yss...]. O(virtual + physical segments); no element copied.
template <class T>
nested<T> append(const nested<T>& xss, const nested<T>& yss) {
  auto j = detail::join_physical(xss, yss);
  auto vsegids = append(xss.vsegids(), j.yss_vsegids);
  return nested<T>::from_vsegd_unchecked(
      std::move(j.blocks), vsegd::from_vsegids_unchecked(std::move(vsegids), std::move(j.physical)));
}

}  // namespace vseg
