// scan_s and scan_s_inclusive: a scan restarting at every segment.
// O(elements + segments), balanced over both and deterministic.
#pragma once

#include <cstdint>
#include <span>

#include "vseg/array.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/flat/scan.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"
#include "vseg/tuning.hpp"

namespace vseg {

namespace detail {

// The scan of in[lo, hi) into o[lo, hi) from acc, of the given kind; returns
// the running value after them. The piece body of scan_s (flat serial scans).
template <class T, class Monoid>
T scan_piece(std::span<const T> in, T* o, std::int64_t lo, std::int64_t hi, T acc, const Monoid& m,
             scan_kind kind) {
  auto part = in.subspan(static_cast<std::size_t>(lo), static_cast<std::size_t>(hi - lo));
  return kind == scan_kind::exclusive ? scan_serial<T>(part, o + lo, acc, m)
                                      : scan_inclusive_serial<T>(part, o + lo, acc, m);
}

// Every segment of `in` scanned into o, serially, segment after segment.
// O(elements + segments).
template <class T, class Monoid>
void scan_s_serial_into(const segd& s, std::span<const T> in, const Monoid& m, scan_kind kind, T* o) {
  with_layout(s, [&](const auto& lay) {
    for (std::int64_t j = 0; j < s.segments(); ++j) scan_piece(in, o, lay.start(j), lay.end(j), m.identity(), m, kind);
  });
}

// scan_s or scan_s_inclusive, `operation` naming it in the errors.
template <class T, class Monoid>
array<T> scan_s_checked(const char* operation, const segd& s, std::span<const T> in, const Monoid& m,
                        scan_kind kind) {
  check_covers(operation, s, static_cast<std::int64_t>(in.size()));
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  if (s.elements() + s.segments() <= tuning::serial_cutoff) {
    scan_s_serial_into(s, in, m, kind, o);
  } else if (s.uniform_length() == 1) {
    // One element per segment: the identity (exclusive) or identity . x.
    const T* x = in.data();
    parallel_for(s.elements(), [&](std::int64_t lo, std::int64_t hi) {
      if (kind == scan_kind::exclusive)
        for (std::int64_t k = lo; k < hi; ++k) o[k] = m.identity();
      else
        for (std::int64_t k = lo; k < hi; ++k) o[k] = m(m.identity(), x[k]);
    });
  } else {
    with_layout(s, [&](const auto& lay) {
      scan_segments<T>(
          s.segments(), s.elements(), [&](std::int64_t j) { return lay.end(j); },
          [&](std::int64_t, std::int64_t lo, std::int64_t hi, T acc) {
            for (std::int64_t k = lo; k < hi; ++k) acc = m(acc, in[static_cast<std::size_t>(k)]);
            return acc;
          },
          [&](std::int64_t, std::int64_t lo, std::int64_t hi, T acc) { return scan_piece(in, o, lo, hi, acc, m, kind); },
          m);
    });
  }
  return std::move(out).freeze();
}

}  // namespace detail

// Per segment, the exclusive scan of its elements, serially: the small-input
// path of scan_s (same result). O(elements + segments).
template <class T, monoid_for<T> Monoid>
array<T> scan_s_serial(const segd& s, std::span<const T> data, const Monoid& m) {
  check_covers("scan_s_serial", s, static_cast<std::int64_t>(data.size()));
  auto out = buffer<T>::for_overwrite(s.elements());
  detail::scan_s_serial_into(s, data, m, detail::scan_kind::exclusive, out.data());
  return std::move(out).freeze();
}

// Per segment, the exclusive scan of its elements (the identity first).
// O(elements + segments).
template <contiguous_input R, monoid_for<element_t<R>> Monoid>
array<element_t<R>> scan_s(const segd& s, const R& data, const Monoid& m) {
  return detail::scan_s_checked<element_t<R>>("scan_s", s, detail::as_span(data), m, detail::scan_kind::exclusive);
}

// Per segment, the inclusive scan of its elements. O(elements + segments).
template <contiguous_input R, monoid_for<element_t<R>> Monoid>
array<element_t<R>> scan_s_inclusive(const segd& s, const R& data, const Monoid& m) {
  return detail::scan_s_checked<element_t<R>>("scan_s_inclusive", s, detail::as_span(data), m,
                                              detail::scan_kind::inclusive);
}

}  // namespace vseg
