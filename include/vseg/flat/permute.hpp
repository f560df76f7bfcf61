// Permutations: bpermute (gather), permute (scatter), inverse_permutation
// and permute_default (scatter over a default array). O(n) work each.
//
// The checked forms verify every index and throw std::out_of_range naming the
// first offending position and value; the *_unchecked forms skip the checks
// and require valid input.
//
// The scatters (permute, permute_default, inverse_permutation) run on the
// scatter engine of vseg/detail/scatter.hpp, given the flat_targets below.
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/gather.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"
#include "vseg/detail/scatter.hpp"

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
  const T* src = in.data();
  const auto* ix = idx.data();
  detail::parallel_for(detail::ssize(indices), [src, n, ix, o, &bad](std::int64_t lo, std::int64_t hi) {
    detail::gather_checked(src, n, ix, lo, hi, o, bad);
  });
  if (bad.any())
    detail::throw_out_of_range("bpermute", "index ", static_cast<std::int64_t>(idx[bad.position()]),
                               " at position ", bad.position(), " outside [0, ", n, ")");
  return std::move(out).freeze();
}

namespace detail {

// The targets of a flat scatter: source position i writes indices[i], which
// must lie in [0, n). each(f) calls f(i, t) for every in-range pair in
// parallel and notes the out-of-range positions in `bad`; each_in_order(f)
// does the same serially, in increasing i.
template <class I>
struct flat_targets {
  std::span<const I> idx;
  std::int64_t n;
  first_bad* bad;

  static constexpr bool cheap_to_enumerate = true;
  std::int64_t sources() const { return static_cast<std::int64_t>(idx.size()); }

  template <class F>
  void each(F&& f) const {
    // The pointers and f are copied into the chunk's locals: a caller's
    // relaxed atomic stores would otherwise make the compiler reload them
    // from the captures after every element.
    parallel_for(sources(), [&, ix = idx.data(), n = n](std::int64_t lo, std::int64_t hi) {
      auto g = f;
      for (std::int64_t i = lo; i < hi; ++i) {
        const auto t = static_cast<std::int64_t>(ix[i]);
        if (in_range(t, n)) g(i, t);
        else bad->note(i);
      }
    });
  }

  template <class F>
  void each_in_order(F&& f) const {
    for (std::int64_t i = 0; i < sources(); ++i) {
      const auto t = static_cast<std::int64_t>(idx[static_cast<std::size_t>(i)]);
      if (in_range(t, n)) f(i, t);
      else bad->note(i);
    }
  }
};

}  // namespace detail

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

namespace detail {

// The sources of inverse_permutation: element i is i, as an I.
template <class I>
struct positions_as {
  I operator[](std::int64_t i) const noexcept { return static_cast<I>(i); }
};

// result[indices[i]] = in[i] for i in [0, n), checked to be a permutation;
// `op` names the caller in the errors.
template <class T, class In, class Indices>
array<T> permute_checked(const char* op, In in, const Indices& indices) {
  const std::int64_t n = ssize(indices);
  auto idx = as_span(indices);
  first_bad bad;
  const flat_targets<element_t<Indices>> targets{idx, n, &bad};
  auto out = buffer<T>::for_overwrite(n);
  const bool distinct = scatter_permutation(targets, n, in, out.data());
  if (!distinct || bad.any()) {
    // The failures are found again serially, so the first is named.
    const std::int64_t out_of_range = bad.any() ? bad.position() : n;
    const std::int64_t repeat = first_repeat(targets, n);
    if (repeat >= 0 && repeat < out_of_range)
      throw_out_of_range(op, "index ", static_cast<std::int64_t>(idx[static_cast<std::size_t>(repeat)]),
                         " at position ", repeat, " repeats: the indices are not a permutation");
    throw_out_of_range(op, "index ", static_cast<std::int64_t>(idx[static_cast<std::size_t>(out_of_range)]),
                       " at position ", out_of_range, " outside [0, ", n, ")");
  }
  return std::move(out).freeze();
}

}  // namespace detail

// result[indices[i]] = xs[i]: a scatter. Throws std::invalid_argument on a
// size mismatch and std::out_of_range unless indices is a permutation of
// [0, n), naming the first position whose index is out of range or repeats
// an earlier one.
template <contiguous_input R, contiguous_input Indices>
array<element_t<R>> permute(const R& xs, const Indices& indices) {
  detail::check_same_size("permute", "xs", detail::ssize(xs), "indices", detail::ssize(indices));
  return detail::permute_checked<element_t<R>>("permute", detail::as_span(xs).data(), indices);
}

// The inverse of a permutation: result[indices[i]] = i, in the indices'
// type; permute(iota(n), indices) without reading an iota. Throws
// std::out_of_range unless indices is a permutation of [0, n), naming the
// first position whose index is out of range or repeats an earlier one.
template <contiguous_input Indices>
array<element_t<Indices>> inverse_permutation(const Indices& indices) {
  using I = element_t<Indices>;
  return detail::permute_checked<I>("inverse_permutation", detail::positions_as<I>{}, indices);
}

// inverse_permutation without the checks: indices must be a permutation of
// [0, n).
template <contiguous_input Indices>
array<element_t<Indices>> inverse_permutation_unchecked(const Indices& indices) {
  using I = element_t<Indices>;
  auto idx = detail::as_span(indices);
  auto out = buffer<I>::for_overwrite(detail::ssize(indices));
  I* o = out.data();
  detail::parallel_for(detail::ssize(indices), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) o[static_cast<std::size_t>(idx[i])] = static_cast<I>(i);
  });
  return std::move(out).freeze();
}

// A copy of defaults with result[indices[i]] = xs[i]; when an index repeats,
// the value at the later position wins (deterministically). The arguments
// come in permute's order, the defaults last (as permute_default_s).
// Throws std::invalid_argument on a size mismatch, std::out_of_range for an
// index outside [0, defaults.size()). O(n + k) work, no lock per element
// unless an index repeats.
template <contiguous_input R, contiguous_input Indices, contiguous_input D>
array<element_t<D>> permute_default(const R& xs, const Indices& indices, const D& defaults) {
  static_assert(std::is_same_v<element_t<R>, element_t<D>>, "permute_default: xs and defaults must have one element type");
  using T = element_t<D>;
  const std::int64_t n = detail::ssize(defaults);
  const std::int64_t k = detail::ssize(xs);
  detail::check_same_size("permute_default", "xs", k, "indices", detail::ssize(indices));
  auto idx = detail::as_span(indices);
  detail::first_bad bad;
  const detail::flat_targets<element_t<Indices>> targets{idx, n, &bad};
  auto out = buffer<T>::for_overwrite(n);
  detail::scatter_over_defaults(targets, n, detail::as_span(defaults).data(), detail::as_span(xs).data(),
                                out.data());
  if (bad.any())
    detail::throw_out_of_range("permute_default", "index ",
                               static_cast<std::int64_t>(idx[static_cast<std::size_t>(bad.position())]),
                               " at position ", bad.position(), " outside [0, ", n, ")");
  return std::move(out).freeze();
}

}  // namespace vseg
