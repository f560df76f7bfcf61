// DPERMUTE into its defaults' own storage, when nothing else holds them.
//
// vseg::permute_default_s copies the defaults into a fresh result and
// scatters the data over that copy. NESL's DPERMUTEs often take defaults
// that only this op reads (a DIST or an element-wise result just made):
// then the scatter may go straight into them, which saves the copy and the
// result's fresh pages (Delaunay at 100,000 points: DPERMUTEs of 0.9M INTs
// into 2.7M defaults, notes/vcode.md). The result is the one
// permute_default_s gives: every target written by the largest source
// position that names it, the others left as their defaults; the same
// error for an index outside its segment (the defaults are then partly
// overwritten, but the run stops with that error).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>

#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/scatter.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/permute.hpp"
#include "vseg/tuning.hpp"

namespace vseg::vcode::detail {

// For every segment j of src and dst: o[dst.start(j) + idx[k]] = data[k]
// for each k of source segment j, the later k winning, into o, which holds
// the defaults (dst.elements() of them). Throws permute_default_s's
// std::out_of_range for an index outside its segment. O(sources + targets).
template <class T, class I>
void scatter_into_defaults(const segd& src, std::span<const T> data, std::span<const I> idx, const segd& dst,
                           T* o) {
  vseg::detail::first_bad bad;
  const T* in = data.data();
  vseg::detail::with_layout(src, [&](const auto& from) {
    vseg::detail::with_layout(dst, [&](const auto& to) {
      using SL = std::remove_cvref_t<decltype(from)>;
      using DL = std::remove_cvref_t<decltype(to)>;
      const vseg::detail::segment_targets<I, SL, DL> targets{src.segments(), src.elements(), from, idx, to, &bad};
      if constexpr (vseg::detail::is_uniform_layout<SL> && vseg::detail::is_uniform_layout<DL>) {
        // Segments never share a target: whole segments per task, each
        // scattered in increasing position (as permute_default_s does).
        if (src.elements() > tuning::serial_cutoff && src.segments() >= 8) {
          // length(0), not `each`: clang checks this branch's
          // non-dependent members while DL is still open.
          const std::int64_t per_task = std::max<std::int64_t>(from.length(0) + to.length(0), 1);
          const I* ix = idx.data();
          vseg::detail::parallel_for(
              src.segments(), std::max<std::int64_t>(1, tuning::serial_cutoff / per_task),
              [=, &bad](std::int64_t jlo, std::int64_t jhi) {
                const std::int64_t len = to.length(0);
                for (std::int64_t j = jlo; j < jhi; ++j) {
                  T* target = o + to.start(j);
                  for (std::int64_t k = from.start(j); k < from.end(j); ++k) {
                    const auto i = static_cast<std::int64_t>(ix[k]);
                    if (vseg::detail::in_range(i, len)) target[i] = in[k];
                    else bad.note(k);
                  }
                }
              });
          return;
        }
      }
      if (targets.sources() <= tuning::serial_cutoff) {
        vseg::detail::scatter_last_wins(targets, in, o);
        return;
      }
      // Distinct targets in parallel; when one repeats, every target is
      // written again in order, so the last writer wins (no default is
      // lost: the first pass wrote only targets the second writes too).
      if (!vseg::detail::scatter_distinct(targets, dst.elements(), in, o) && !bad.any())
        vseg::detail::scatter_last_wins(targets, in, o);
    });
  });
  if (bad.any()) {
    const std::int64_t k = bad.position();
    vseg::detail::throw_out_of_range("permute_default_s", "index ", static_cast<std::int64_t>(idx[static_cast<std::size_t>(k)]),
                                     " at position ", k, " outside its segment");
  }
}

}  // namespace vseg::vcode::detail
