// permute_s, permute_default_s, bpermute_flagged_s, replace_s: scatters and
// gathers whose indices are local to a segment (the segmented permutations of
// VCODE's PERMUTE, DPERMUTE, BFPERMUTE and REPLACE). Each is
// O(elements + segments), balanced over both.
//
// Indices are positions inside a segment: index i of an element of segment j
// names element starts[j] + i of the same segment of the target. Every index
// is checked against the length of its segment; a failure throws
// std::out_of_range naming the operation, the position and the index.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat/permute.hpp"
#include "vseg/segd.hpp"

namespace vseg {

namespace detail {

// The targets of a segment-local scatter: index k of source segment j (laid
// out by src) names element target.start(j) + indices[k] of the result,
// valid when below target.length(j). The flat_targets interface (each,
// each_in_order, sources), so flat/permute.hpp's scatters run on it without
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
  check_covers("permute_s", s, detail::ssize(indices));
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
  check_covers("permute_default_s", src_segd, detail::ssize(data));
  check_covers("permute_default_s", src_segd, detail::ssize(indices));
  check_covers("permute_default_s", dst_segd, detail::ssize(defaults));
  detail::check_same_size("permute_default_s", "source segments", src_segd.segments(),
                          "destination segments", dst_segd.segments());
  const std::int64_t n = dst_segd.elements();
  auto idx = detail::as_span(indices);
  detail::first_bad bad;
  auto out = buffer<T>::for_overwrite(n);
  detail::with_layout(src_segd, [&](const auto& from) {
    detail::with_layout(dst_segd, [&](const auto& to) {
      using SL = std::remove_cvref_t<decltype(from)>;
      using DL = std::remove_cvref_t<decltype(to)>;
      const detail::segment_targets<element_t<Indices>, SL, DL> targets{src_segd.segments(), src_segd.elements(),
                                                                    from, idx, to, &bad};
      detail::scatter_over_defaults(targets, n, detail::as_span(defaults).data(), detail::as_span(data).data(),
                                    out.data());
    });
  });
  if (bad.any()) {
    const std::int64_t k = bad.position();
    detail::throw_out_of_range("permute_default_s", "index ", static_cast<std::int64_t>(idx[static_cast<std::size_t>(k)]),
                               " at position ", k, " outside its segment");
  }
  return std::move(out).freeze();
}

// For every position k of the result (laid out by index_segd, whose segment j
// gathers from segment j of src): flags[k] ? src_j[indices[k]] : fill. The
// index of an unflagged position is never read. Throws std::invalid_argument
// on a size or segment-count mismatch, std::out_of_range for a flagged index
// outside its source segment.
template <contiguous_input R, contiguous_input Indices, contiguous_input Flags>
array<element_t<R>> bpermute_flagged_s(const segd& src_segd, const R& src, const segd& index_segd,
                                       const Indices& indices, const Flags& flags,
                                       const element_t<R>& fill) {
  using T = element_t<R>;
  check_covers("bpermute_flagged_s", src_segd, detail::ssize(src));
  check_covers("bpermute_flagged_s", index_segd, detail::ssize(indices));
  check_covers("bpermute_flagged_s", index_segd, detail::ssize(flags));
  detail::check_same_size("bpermute_flagged_s", "source segments", src_segd.segments(),
                          "index segments", index_segd.segments());
  auto in = detail::as_span(src);
  auto idx = detail::as_span(indices);
  auto f = detail::as_span(flags);
  auto out = buffer<T>::for_overwrite(index_segd.elements());
  T* o = out.data();
  detail::first_bad bad;
  detail::for_each_segment_piece(
      index_segd.segments(), index_segd.elements(), [&](std::int64_t j) { return index_segd.end(j); },
      [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
        const std::int64_t base = src_segd.start(j);
        const std::int64_t len = src_segd.length(j);
        for (std::int64_t k = lo; k < hi; ++k) {
          if (!f[k]) {
            o[k] = fill;
            continue;
          }
          const auto i = static_cast<std::int64_t>(idx[k]);
          if (detail::in_range(i, len)) o[k] = in[base + i];
          else bad.note(k);
        }
      });
  if (bad.any()) {
    const std::int64_t k = bad.position();
    detail::throw_out_of_range("bpermute_flagged_s", "index ", static_cast<std::int64_t>(idx[k]),
                               " at position ", k, " outside its source segment");
  }
  return std::move(out).freeze();
}

namespace detail {

// Throws std::out_of_range unless every segment's index ix[j] (index_list,
// index_repeated) lies in its segment, naming the first that does not.
template <class Ix>
void check_replace_indices(const segd& s, Ix ix) {
  first_bad bad;
  with_layout(s, [&](const auto& layout) {
    // Branch-free over a chunk (it vectorises); the bad position is looked
    // for only when the chunk has one.
    parallel_for(s.segments(), [&bad, lay = layout, ix](std::int64_t lo, std::int64_t hi) {
      if constexpr (is_uniform_layout<std::remove_cvref_t<decltype(lay)>>) {
        if (ix.all_in_range(lo, hi, lay.each)) return;
      } else {
        bool all_good = true;
        for (std::int64_t j = lo; j < hi; ++j) all_good &= in_range(ix[j], lay.length(j));
        if (all_good) return;
      }
      for (std::int64_t j = lo; j < hi; ++j)
        if (!in_range(ix[j], lay.length(j))) return bad.note(j);
    });
  });
  if (bad.any()) {
    const std::int64_t j = bad.position();
    throw_out_of_range("replace_s", "index ", ix[j], " outside segment ", j, " of length ", s.length(j));
  }
}

// Element ix[j] of every segment j of `data` becomes v[j], in place.
template <class T, class Ix, class V>
void replace_by(const segd& s, std::span<T> data, Ix ix, const V* v) {
  check_replace_indices(s, ix);
  // One write per segment, to distinct positions: no two j collide.
  // The pointers live in the chunk's locals (the stores may alias them).
  with_layout(s, [&](const auto& layout) {
    parallel_for(s.segments(), [lay = layout, o = data.data(), ix, v](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t j = lo; j < hi; ++j) o[lay.start(j) + ix[j]] = static_cast<T>(v[j]);
    });
  });
}

}  // namespace detail

// In place: element indices[j] of every segment j of `data` becomes
// values[j]. O(segments). Throws std::invalid_argument on a size mismatch and
// std::out_of_range for an index outside its segment (data is then unchanged).
template <class T, contiguous_input Indices, contiguous_input V>
void replace_s_into(const segd& s, std::span<T> data, const Indices& indices, const V& values) {
  check_covers("replace_s", s, static_cast<std::int64_t>(data.size()));
  detail::check_same_size("replace_s", "segments", s.segments(), "indices", detail::ssize(indices));
  detail::check_same_size("replace_s", "segments", s.segments(), "values", detail::ssize(values));
  using I = std::remove_cvref_t<element_t<Indices>>;
  detail::replace_by(s, data, detail::index_list<I>{detail::as_span(indices).data()}, detail::as_span(values).data());
}

// In place: element k of every segment j of `data` becomes values[j],
// without an array of k's. Throws as above, naming the first segment
// shorter than k + 1.
template <class T, contiguous_input V>
void replace_s_into(const segd& s, std::span<T> data, std::int64_t k, const V& values) {
  check_covers("replace_s", s, static_cast<std::int64_t>(data.size()));
  detail::check_same_size("replace_s", "segments", s.segments(), "values", detail::ssize(values));
  detail::replace_by(s, data, detail::index_repeated{k}, detail::as_span(values).data());
}

// A copy of data with element indices[j] of every segment j replaced by
// values[j]. O(elements + segments). Throws std::invalid_argument on a size
// mismatch, std::out_of_range for an index outside its segment.
template <contiguous_input R, contiguous_input Indices, contiguous_input V>
array<element_t<R>> replace_s(const segd& s, const R& data, const Indices& indices, const V& values) {
  using T = element_t<R>;
  check_covers("replace_s", s, detail::ssize(data));
  auto in = detail::as_span(data);
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  detail::parallel_for(s.elements(), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) o[k] = in[k];
  });
  replace_s_into(s, out.span(), indices, values);
  return std::move(out).freeze();
}

}  // namespace vseg
