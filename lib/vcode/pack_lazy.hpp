// PACK of a lazy replication, DIST or INDEX: the data read a block at a
// time where it is (write_range), not written out first. Delaunay's PACKs
// at 100,000 points wrote 65M elements of replications out before packing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "lazy.hpp"
#include "value.hpp"
#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/flat/pack.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/pack.hpp"
#include "vseg/segmented/segmented_array.hpp"
#include "vseg/tuning.hpp"

namespace vseg::vcode::detail {

// Elements per block of lazy data written into scratch.
inline constexpr std::int64_t pack_block = 4096;

// Whether pack_blockwise reads v: a lazy form that is cheap to read again
// (a replication, a DIST, an INDEX) over at least `min` elements. O(1).
inline bool pack_reads_lazily(const value& v, std::int64_t min) noexcept {
  const lazy_vector* l = v.lazy();
  return l != nullptr && v.length() >= min &&
         (std::holds_alternative<replicated>(l->form) || std::holds_alternative<expanded>(l->form) ||
          std::holds_alternative<affine>(l->form));
}

// plan.apply(data) for lazy data: the plan's elements (each fixed block's
// kept ones at the block's offset, as pack_with_offsets), the data written
// a block of scratch at a time. data has plan.source().elements() elements.
// O(elements).
template <class T>
array<T> pack_blockwise(const pack_plan& plan, const value& data) {
  auto out = buffer<T>::for_overwrite(plan.kept());
  T* o = out.data();
  const bool* f = plan.flags().data();
  const std::vector<std::int64_t>& offsets = plan.block_offsets();
  vseg::detail::for_each_block(plan.source().elements(), tuning::flat_block,
                               [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
                                 T* to = o + offsets[static_cast<std::size_t>(b)];
                                 for (std::int64_t c = lo; c < hi; c += pack_block) {
                                   const std::int64_t e = std::min(hi, c + pack_block);
                                   T xs[pack_block];
                                   write_range<T>(data, c, e, xs);
                                   to += vseg::detail::pack_range(xs, f + c, 0, e - c, to);
                                 }
                               });
  return std::move(out).freeze();
}

}  // namespace vseg::vcode::detail
