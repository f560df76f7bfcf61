// scan_s and scan_s_inclusive: a scan restarting at every segment.
// O(elements + segments), balanced over both and deterministic.
#pragma once

#include <cstdint>

#include "vseg/array.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"

namespace vseg {

namespace detail {

enum class segmented_scan_kind { exclusive, inclusive };

template <class T, class Monoid>
array<T> scan_s_impl(const char* operation, const segd& s, std::span<const T> in,
                     const Monoid& m, segmented_scan_kind kind) {
  check_covers(operation, s, static_cast<std::int64_t>(in.size()));
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  if (s.uniform_length() == 1) {
    // One element per segment: the identity (exclusive) or identity . x.
    const T* x = in.data();
    parallel_for(s.elements(), [&](std::int64_t lo, std::int64_t hi) {
      if (kind == segmented_scan_kind::exclusive)
        for (std::int64_t k = lo; k < hi; ++k) o[k] = m.identity();
      else
        for (std::int64_t k = lo; k < hi; ++k) o[k] = m(m.identity(), x[k]);
    });
    return std::move(out).freeze();
  }
  with_layout(s, [&](const auto& lay) {
  scan_segments<T>(
      s.segments(), s.elements(), [&](std::int64_t j) { return lay.end(j); },
      [&](std::int64_t, std::int64_t lo, std::int64_t hi, T acc) {
        for (std::int64_t k = lo; k < hi; ++k) acc = m(acc, in[k]);
        return acc;
      },
      [&](std::int64_t, std::int64_t lo, std::int64_t hi, T acc) {
        if (kind == segmented_scan_kind::exclusive) {
          for (std::int64_t k = lo; k < hi; ++k) {
            const T x = in[k];
            o[k] = acc;
            acc = m(acc, x);
          }
        } else {
          for (std::int64_t k = lo; k < hi; ++k) o[k] = acc = m(acc, in[k]);
        }
        return acc;
      },
      m);
  });
  return std::move(out).freeze();
}

}  // namespace detail

// Per segment, the exclusive scan of its elements (the identity first).
template <contiguous_input R, class Monoid>
array<element_t<R>> scan_s(const segd& s, const R& data, const Monoid& m) {
  return detail::scan_s_impl<element_t<R>>("scan_s", s, detail::as_span(data), m,
                                           detail::segmented_scan_kind::exclusive);
}

// Per segment, the inclusive scan of its elements.
template <contiguous_input R, class Monoid>
array<element_t<R>> scan_s_inclusive(const segd& s, const R& data, const Monoid& m) {
  return detail::scan_s_impl<element_t<R>>("scan_s_inclusive", s, detail::as_span(data), m,
                                           detail::segmented_scan_kind::inclusive);
}

}  // namespace vseg
