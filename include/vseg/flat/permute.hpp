// Permutations: bpermute (gather), permute (scatter) and permute_default
// (scatter over a default array). O(n) work each.
//
// The checked forms verify every index and throw std::out_of_range naming the
// first offending position and value; the *_unchecked forms skip the checks
// and require valid input.
#pragma once

#include <atomic>
#include <cstdint>

#include "vseg/array.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"

namespace vseg {

// [xs[indices[i]] | i <- [0, indices.size())]; indices must be in range.
template <contiguous_input R, contiguous_input Indices>
array<element_t<R>> bpermute_unchecked(const R& xs, const Indices& indices) {
  using T = element_t<R>;
  auto in = detail::as_span(xs);
  auto idx = detail::as_span(indices);
  auto out = buffer<T>::for_overwrite(detail::ssize(indices));
  T* o = out.data();
  detail::parallel_for(detail::ssize(indices), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) o[i] = in[static_cast<std::size_t>(idx[i])];
  });
  return std::move(out).freeze();
}

// [xs[indices[i]] | i <- [0, indices.size())]: a gather. Throws
// std::out_of_range for an index outside [0, xs.size()).
template <contiguous_input R, contiguous_input Indices>
array<element_t<R>> bpermute(const R& xs, const Indices& indices) {
  using T = element_t<R>;
  auto in = detail::as_span(xs);
  auto idx = detail::as_span(indices);
  const std::int64_t n = detail::ssize(xs);
  auto out = buffer<T>::for_overwrite(detail::ssize(indices));
  T* o = out.data();
  detail::first_bad bad;
  detail::parallel_for(detail::ssize(indices), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) {
      const auto j = static_cast<std::int64_t>(idx[i]);
      if (detail::in_range(j, n)) o[i] = in[j];
      else bad.note(i);
    }
  });
  if (bad.any())
    detail::throw_out_of_range("bpermute", "index ", static_cast<std::int64_t>(idx[bad.position()]),
                               " at position ", bad.position(), " outside [0, ", n, ")");
  return std::move(out).freeze();
}

// result[indices[i]] = xs[i]; indices must be a permutation of [0, n).
template <contiguous_input R, contiguous_input Indices>
array<element_t<R>> permute_unchecked(const R& xs, const Indices& indices) {
  using T = element_t<R>;
  auto in = detail::as_span(xs);
  auto idx = detail::as_span(indices);
  auto out = buffer<T>::for_overwrite(detail::ssize(xs));
  T* o = out.data();
  detail::parallel_for(detail::ssize(xs), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) o[static_cast<std::size_t>(idx[i])] = in[i];
  });
  return std::move(out).freeze();
}

// result[indices[i]] = xs[i]: a scatter. Throws std::invalid_argument on a
// size mismatch and std::out_of_range unless indices is a permutation of
// [0, n) (an index out of range, or a repeated one).
template <contiguous_input R, contiguous_input Indices>
array<element_t<R>> permute(const R& xs, const Indices& indices) {
  const std::int64_t n = detail::ssize(xs);
  detail::check_same_size("permute", "xs", n, "indices", detail::ssize(indices));
  auto idx = detail::as_span(indices);
  // One mark per target: a target marked twice is a repeated index.
  auto marks = buffer<unsigned char>::filled(n, 0);
  detail::first_bad bad;
  detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) {
      const auto j = static_cast<std::int64_t>(idx[i]);
      if (!detail::in_range(j, n) ||
          std::atomic_ref<unsigned char>(marks[j]).exchange(1, std::memory_order_relaxed) != 0)
        bad.note(i);
    }
  });
  if (bad.any()) {
    const auto j = static_cast<std::int64_t>(idx[bad.position()]);
    if (!detail::in_range(j, n))
      detail::throw_out_of_range("permute", "index ", j, " at position ", bad.position(),
                                 " outside [0, ", n, ")");
    detail::throw_out_of_range("permute", "index ", j, " at position ", bad.position(),
                               " repeats: the indices are not a permutation");
  }
  return permute_unchecked(xs, indices);
}

// A copy of defaults with result[indices[i]] = xs[i]; when an index repeats,
// the value at the later position wins (deterministically). Throws
// std::invalid_argument on a size mismatch, std::out_of_range for an index
// outside [0, defaults.size()).
template <contiguous_input D, contiguous_input R, contiguous_input Indices>
array<element_t<D>> permute_default(const D& defaults, const R& xs, const Indices& indices) {
  using T = element_t<D>;
  const std::int64_t n = detail::ssize(defaults);
  const std::int64_t k = detail::ssize(xs);
  detail::check_same_size("permute_default", "xs", k, "indices", detail::ssize(indices));
  auto def = detail::as_span(defaults);
  auto in = detail::as_span(xs);
  auto idx = detail::as_span(indices);
  // winner[t]: the last position writing target t, or -1.
  auto winner = buffer<std::int64_t>::filled(n, -1);
  detail::first_bad bad;
  detail::parallel_for(k, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) {
      const auto t = static_cast<std::int64_t>(idx[i]);
      if (!detail::in_range(t, n)) {
        bad.note(i);
        continue;
      }
      std::atomic_ref<std::int64_t> w(winner[t]);
      std::int64_t seen = w.load(std::memory_order_relaxed);
      while (seen < i && !w.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
      }
    }
  });
  if (bad.any())
    detail::throw_out_of_range("permute_default", "index ",
                               static_cast<std::int64_t>(idx[bad.position()]), " at position ",
                               bad.position(), " outside [0, ", n, ")");
  auto out = buffer<T>::for_overwrite(n);
  T* o = out.data();
  detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t t = lo; t < hi; ++t) {
      const std::int64_t w = winner[t];
      o[t] = w < 0 ? def[t] : in[w];
    }
  });
  return std::move(out).freeze();
}

}  // namespace vseg
