// permute_s and permute_default_s: scatters whose indices are local to a
// segment (VCODE's PERMUTE and DPERMUTE), on the scatter engine of
// vseg/detail/scatter.hpp. Each is O(elements + segments), balanced over
// both. The gathers are in bpermute.hpp and bpermute_flagged.hpp, the
// one-element writes in replace.hpp. To sort segments, sort_s
// (vseg/algorithm/sort.hpp) does rank_s + permute_s's work in one call.
//
// Indices are positions inside a segment: index i of an element of segment j
// names element starts[j] + i of the same segment of the target. Every index
// is checked against the length of its segment; a failure throws
// std::out_of_range naming the operation, the position and the index.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/detail/scatter.hpp"
#include "vseg/segd.hpp"

namespace vseg {

namespace detail {

// The targets of a segment-local scatter: index k of source segment j (laid
// out by src) names element target.start(j) + indices[k] of the result,
// valid when below target.length(j). The flat_targets interface (each,
// each_in_order, sources), so detail/scatter.hpp's scatters run on it without
// materialising global indices. The layouts (segd.hpp) say how segment j's
// geometry is read; over a uniform source, segment j's elements are
// [j * each, (j + 1) * each) and no merge path is walked.
template <class I, class SrcLayout, class DstLayout>
struct segment_targets {
  std::int64_t segments;
  std::int64_t elements;
  SrcLayout src;
  std::span<const I> idx;
  DstLayout target;
  first_bad* bad;

  static constexpr bool cheap_to_enumerate = is_uniform_layout<SrcLayout>;
  std::int64_t sources() const { return elements; }

  template <class F>
  void each(F&& f) const {
    if constexpr (is_uniform_layout<SrcLayout> && is_uniform_layout<DstLayout>) {
      if (src.each == 1) {
        // One source per segment: element k is segment k, a flat loop.
        // The pointers and f are copied into the chunk's locals: the
        // caller's relaxed atomic stores would otherwise make the compiler
        // reload them from the captures after every element.
        parallel_for(elements, [&, len = target.each, ix = idx.data()](std::int64_t lo, std::int64_t hi) {
          auto g = f;
          for (std::int64_t k = lo; k < hi; ++k) {
            const auto i = static_cast<std::int64_t>(ix[k]);
            if (in_range(i, len)) g(k, k * len + i);
            else bad->note(k);
          }
        });
        return;
      }
    }
    if constexpr (is_uniform_layout<SrcLayout>) {
      // Split the elements evenly; a range starts inside segment lo / each.
      parallel_for(elements, [&](std::int64_t lo, std::int64_t hi) {
        auto g = f;  // a local copy, as above
        for (std::int64_t j = lo / src.each, k = lo; k < hi; ++j) {
          const std::int64_t end = std::min(hi, src.end(j));
          run(j, k, end, g);
          k = end;
        }
      });
    } else {
      for_each_segment_piece(segments, elements, [&](std::int64_t j) { return src.end(j); },
                             [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                               auto g = f;  // a local copy, as above
                               run(j, lo, hi, g);
                             });
    }
  }

  template <class F>
  void each_in_order(F&& f) const {
    for (std::int64_t j = 0; j < segments; ++j) run(j, src.start(j), src.end(j), f);
  }

 private:
  template <class F>
  void run(std::int64_t j, std::int64_t lo, std::int64_t hi, F& f) const {
    const std::int64_t base = target.start(j);
    const std::int64_t len = target.length(j);
    const I* ix = idx.data();  // a local, not reloaded after f's stores
    for (std::int64_t k = lo; k < hi; ++k) {
      const auto i = static_cast<std::int64_t>(ix[k]);
      if (in_range(i, len)) f(k, base + i);
      else bad->note(k);
    }
  }
};

// permute_default_s over uniform layouts, split at segment boundaries: a
// task takes whole segments, copies their defaults and then scatters each
// segment's sources in increasing position, so the later position wins
// without the marks and the count pass of scatter_over_defaults (segments
// never share a target) and the target range is written while in cache.
// Batcher's DPERMUTEs (2^18 sources into 2^19 targets, 8 to 2^18 segments)
// are all of this form. def == nullptr: o holds the defaults already (no
// copy). An index out of its segment is noted in bad. O(sources + targets).
template <class T, class I>
void scatter_over_defaults_by_segment(std::int64_t segments, uniform_layout from, uniform_layout to,
                                      const I* idx, const T* def, const T* in, T* o, first_bad& bad) {
  const std::int64_t per_task = std::max<std::int64_t>(from.each + to.each, 1);
  parallel_for(segments, std::max<std::int64_t>(1, tuning::serial_cutoff / per_task),
               [=, &bad](std::int64_t jlo, std::int64_t jhi) {
                 if (def != nullptr) std::copy(def + to.start(jlo), def + to.start(jhi), o + to.start(jlo));
                 const std::int64_t len = to.each;
                 if (from.each == 1) {  // source k is segment k: a flat loop
                   for (std::int64_t k = jlo; k < jhi; ++k) {
                     const auto i = static_cast<std::int64_t>(idx[k]);
                     if (in_range(i, len)) o[k * len + i] = in[k];
                     else bad.note(k);
                   }
                   return;
                 }
                 for (std::int64_t j = jlo; j < jhi; ++j) {
                   T* target = o + to.start(j);
                   for (std::int64_t k = from.start(j); k < from.end(j); ++k) {
                     const auto i = static_cast<std::int64_t>(idx[k]);
                     if (in_range(i, len)) target[i] = in[k];
                     else bad.note(k);
                   }
                 }
               });
}

// The argument checks of permute_default_s and permute_default_s_into
// (`targets`: the size of the defaults or of the destination). O(1).
inline void check_permute_default_s(const char* operation, const segd& src_segd, std::int64_t data,
                                    std::int64_t indices, const segd& dst_segd, std::string_view what,
                                    std::int64_t targets) {
  check_covers(operation, src_segd, data);
  check_covers_argument(operation, src_segd.elements(), "the indices", indices);
  check_covers_argument(operation, dst_segd.elements(), what, targets);
  check_same_size(operation, "source segments", src_segd.segments(), "destination segments", dst_segd.segments());
}

// The scatter of permute_default_s and permute_default_s_into, after their
// checks: o (dst_segd.elements() of them) becomes the defaults def (or keeps
// its values when def == nullptr) with o[dst.start(j) + idx[k]] = in[k] for
// every k of source segment j, the later k winning. Throws std::out_of_range
// naming `operation`, the first bad position and its index for an index
// outside its segment (o is then partly written). O(sources + targets).
template <class T, class I>
void scatter_default_s(const char* operation, const segd& src_segd, const T* in, std::span<const I> idx,
                       const segd& dst_segd, const T* def, T* o) {
  const std::int64_t n = dst_segd.elements();
  first_bad bad;
  with_layout(src_segd, [&](const auto& from) {
    with_layout(dst_segd, [&](const auto& to) {
      using SL = std::remove_cvref_t<decltype(from)>;
      using DL = std::remove_cvref_t<decltype(to)>;
      if constexpr (is_uniform_layout<SL> && is_uniform_layout<DL>) {
        if (src_segd.elements() > tuning::serial_cutoff && src_segd.segments() >= 8) {
          scatter_over_defaults_by_segment(src_segd.segments(), from, to, idx.data(), def, in, o, bad);
          return;
        }
      }
      const segment_targets<I, SL, DL> targets{src_segd.segments(), src_segd.elements(), from, idx, to, &bad};
      if (def != nullptr) scatter_over_defaults(targets, n, def, in, o);
      else scatter_onto(targets, n, in, o);
    });
  });
  if (bad.any()) {
    const std::int64_t k = bad.position();
    throw_out_of_range(operation, "index ", static_cast<std::int64_t>(idx[static_cast<std::size_t>(k)]), " at position ",
                       k, " outside its segment");
  }
}

}  // namespace detail

// Within every segment, result[indices[k]] = data[k]: a scatter by local
// indices. Throws std::invalid_argument on a size mismatch and
// std::out_of_range unless the indices of every segment are a permutation of
// that segment's positions, naming the first position whose index is outside
// its segment or repeats an earlier one.
template <contiguous_input R, contiguous_input Indices>
array<element_t<R>> permute_s(const segd& s, const R& data, const Indices& indices) {
  using T = element_t<R>;
  check_covers("permute_s", s, detail::ssize(data));
  detail::check_covers_argument("permute_s", s.elements(), "the indices", detail::ssize(indices));
  const std::int64_t n = s.elements();
  auto idx = detail::as_span(indices);
  detail::first_bad bad;
  auto out = buffer<T>::for_overwrite(n);
  std::int64_t repeat = -1;
  detail::with_layout(s, [&](const auto& lay) {
    using L = std::remove_cvref_t<decltype(lay)>;
    const detail::segment_targets<element_t<Indices>, L, L> targets{s.segments(), n, lay, idx, lay, &bad};
    const bool distinct = detail::scatter_permutation(targets, n, detail::as_span(data).data(), out.data());
    // The failures are found again serially, so the first is named.
    if (!distinct || bad.any()) repeat = detail::first_repeat(targets, n);
  });
  if (repeat >= 0 || bad.any()) {
    const std::int64_t out_of_range = bad.any() ? bad.position() : n;
    if (repeat >= 0 && repeat < out_of_range)
      detail::throw_out_of_range("permute_s", "index ", static_cast<std::int64_t>(idx[static_cast<std::size_t>(repeat)]),
                                 " at position ", repeat, " repeats: the indices are not a permutation of its segment");
    detail::throw_out_of_range("permute_s", "index ",
                               static_cast<std::int64_t>(idx[static_cast<std::size_t>(out_of_range)]),
                               " at position ", out_of_range, " outside its segment");
  }
  return std::move(out).freeze();
}

// A copy of defaults (laid out by dst_segd) where, for every segment j,
// element indices[k] of segment j is data[k] for each k of the source segment
// j. When an index repeats, the later position wins. Throws
// std::invalid_argument unless both descriptors have the same number of
// segments and cover their data, std::out_of_range for a bad index.
// O(elements + segments), no lock per element unless an index repeats.
template <contiguous_input R, contiguous_input Indices, contiguous_input D>
array<element_t<R>> permute_default_s(const segd& src_segd, const R& data, const Indices& indices,
                                      const segd& dst_segd, const D& defaults) {
  using T = element_t<R>;
  static_assert(std::is_same_v<T, element_t<D>>, "permute_default_s: data and defaults must have one element type");
  detail::check_permute_default_s("permute_default_s", src_segd, detail::ssize(data), detail::ssize(indices), dst_segd,
                                  "the defaults", detail::ssize(defaults));
  auto out = buffer<T>::for_overwrite(dst_segd.elements());
  detail::scatter_default_s("permute_default_s", src_segd, detail::as_span(data).data(), detail::as_span(indices),
                            dst_segd, detail::as_span(defaults).data(), out.data());
  return std::move(out).freeze();
}

// permute_default_s in place: destination (laid out by dst_segd) holds the
// defaults and receives data[k] at element indices[k] of segment j for each
// k of source segment j, the later position winning; it must not overlap
// data or indices. Throws as permute_default_s (the destination checked as
// the defaults are; after a bad index it is partly written).
// O(elements + segments), no copy of the defaults.
template <contiguous_input R, contiguous_input Indices>
void permute_default_s_into(const segd& src_segd, const R& data, const Indices& indices, const segd& dst_segd,
                            std::span<element_t<R>> destination) {
  detail::check_permute_default_s("permute_default_s_into", src_segd, detail::ssize(data), detail::ssize(indices),
                                  dst_segd, "the destination's elements", std::ssize(destination));
  detail::scatter_default_s("permute_default_s_into", src_segd, detail::as_span(data).data(),
                            detail::as_span(indices), dst_segd, static_cast<const element_t<R>*>(nullptr),
                            destination.data());
}

}  // namespace vseg
