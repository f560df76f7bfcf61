// scan_s (vseg/dist/lifted.hpp) on the blocks of a 2D process mesh: the
// single-node scan_s bits of the whole matrix-shaped array, whatever the
// blocks' fold order.
//
// Each row's scan runs along the process row: rank (i, j) continues it
// exactly where (i, j - 1) stopped, from the state that rank passes on
// (the running value and the fold chain's state: 1-5 values a row,
// detail/scan_chain.hpp). The chain's plan (each row's merge step, length
// and offset) is built on the first scan of a block and cached with its
// plans. (It replaced moving each row to its owner, scanning it there with
// the 1D scan_s and sending the slices back: every element twice within
// the process row; notes/distributed.md has the bytes of both.)
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "vseg/dist/detail/scan_chain.hpp"
#include "vseg/dist/lifted.hpp"

namespace vseg::dist::detail {

// The exclusive scan with `mon` of each row of a mesh block, as its slices
// in this block (same placement). Collective over the process row: per
// chunk of rows one MPI_Isend to the next process column and one receive
// from the previous, where a row spans them; the first scan of a block
// plans (plan_scan_chain's collectives over the mesh). O(local elements +
// rows).
template <class T, class Monoid>
nested<T> scan_mesh(const nested<T>& block, const Monoid& mon) {
  const auto& where = nested_access::where(block);
  const auto [lengths, data] = nested_access::contiguous(block);
  const auto plan = cached_plan<scan_chain_plan>(nested_access::plans(block), "mesh scan", [&, &lengths = lengths] {
    return plan_scan_chain(*where->across->mesh, lengths);
  });
  std::vector<std::int64_t> row_start(static_cast<std::size_t>(lengths.size()) + 1, 0);
  for (std::int64_t r = 0; r < lengths.size(); ++r) row_start[static_cast<std::size_t>(r) + 1] = row_start[r] + lengths[r];
  auto out = buffer<T>::for_overwrite(data.size());
  scan_chain<T>(*plan, data.data(), row_start.data(), mon, out.data());
  return nested_access::make<T>(where, vseg::nested<T>::from_lengths(lengths, std::move(out).freeze()), block);
}

}  // namespace vseg::dist::detail
