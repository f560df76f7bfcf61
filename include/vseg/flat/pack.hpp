// pack: the elements whose flag is true, in order. O(n) work.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/range.hpp"

namespace vseg {

namespace detail {

// The number of true flags in f[lo, hi), eight at a time: a bool is one
// byte holding 0 or 1, so the eight bytes of a 64-bit word sum to at most 8,
// and multiplying the word by 0x0101...01 collects that sum in its top
// byte; a `bool` loop widens every byte to the 64-bit count instead
// (bench/count_flags.cpp measures both). O(hi - lo).
inline std::int64_t count_flags(const bool* f, std::int64_t lo, std::int64_t hi) {
  static_assert(sizeof(bool) == 1);
  std::int64_t c = 0;
  for (; lo + 8 <= hi; lo += 8) {
    std::uint64_t w;
    std::memcpy(&w, f + lo, sizeof w);
    c += static_cast<std::int64_t>((w * 0x0101010101010101ULL) >> 56);
  }
  for (; lo < hi; ++lo) c += f[lo] ? 1 : 0;
  return c;
}

// Number of true flags in each fixed block, scanned into output offsets;
// returns the total count. offsets has one entry per block.
inline std::int64_t flag_offsets(std::span<const bool> flags, std::vector<std::int64_t>& offsets) {
  const auto n = static_cast<std::int64_t>(flags.size());
  const std::int64_t block = tuning::flat_block;
  offsets.assign(static_cast<std::size_t>(block_count(n, block)), 0);
  for_each_block(n, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
    offsets[static_cast<std::size_t>(b)] = count_flags(flags.data(), lo, hi);
  });
  std::int64_t total = 0;
  for (auto& o : offsets) {
    const std::int64_t c = o;
    o = total;
    total += c;
  }
  return total;
}

// Writes [in[i] | f[i], lo <= i < hi] to o, in order, and returns how many:
// the serial pack, the per-block body and small-input path of pack. No
// branch per element (the flags of a partition are as good as random, and a
// mispredicted branch per element costs more than the copy): every element
// is stored at the next free slot, which advances only past a kept one. The
// stores stop at the last kept element, so none lands beyond this range's
// share of o. O(hi - lo).
template <class T>
std::int64_t pack_range(const T* in, const bool* f, std::int64_t lo, std::int64_t hi, T* o) {
  while (hi > lo && !f[hi - 1]) --hi;
  std::int64_t k = 0;
  for (std::int64_t i = lo; i < hi; ++i) {
    o[k] = in[i];
    k += f[i] ? 1 : 0;
  }
  return k;
}

// The kept elements, serially: one pass to count, one to copy. O(n).
template <class T>
array<T> pack_serial_unchecked(std::span<const T> in, std::span<const bool> f) {
  const std::int64_t count = count_flags(f.data(), 0, static_cast<std::int64_t>(f.size()));
  auto out = buffer<T>::for_overwrite(count);
  pack_range(in.data(), f.data(), 0, static_cast<std::int64_t>(in.size()), out.data());
  return std::move(out).freeze();
}

// The kept elements, given the block offsets and total of flag_offsets.
template <class T>
array<T> pack_with_offsets(std::span<const T> in, std::span<const bool> f, const std::vector<std::int64_t>& offsets,
                           std::int64_t count) {
  auto out = buffer<T>::for_overwrite(count);
  T* o = out.data();
  for_each_block(static_cast<std::int64_t>(in.size()), tuning::flat_block,
                 [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
                   pack_range(in.data(), f.data(), lo, hi, o + offsets[static_cast<std::size_t>(b)]);
                 });
  return std::move(out).freeze();
}

}  // namespace detail

// Number of true flags. O(n).
template <contiguous_input Flags>
std::int64_t count_true(const Flags& flags) {
  std::vector<std::int64_t> offsets;
  return detail::flag_offsets(detail::as_span(flags), offsets);
}

// [xs[i] | flags[i]], serially: the small-input path of pack (same result).
// O(n).
template <class T>
array<T> pack_serial(std::span<const T> xs, std::span<const bool> flags) {
  detail::check_same_size("pack_serial", "xs", static_cast<long long>(xs.size()), "flags",
                          static_cast<long long>(flags.size()));
  return detail::pack_serial_unchecked(xs, flags);
}

// [xs[i] | flags[i]]: the elements whose flag is true, in order. O(n).
template <contiguous_input R, contiguous_input Flags>
array<element_t<R>> pack(const R& xs, const Flags& flags) {
  using T = element_t<R>;
  auto in = detail::as_span(xs);
  auto f = detail::as_span(flags);
  detail::check_same_size("pack", "xs", detail::ssize(xs), "flags", detail::ssize(flags));
  if (detail::ssize(xs) <= tuning::serial_cutoff) return detail::pack_serial_unchecked<T>(in, f);
  std::vector<std::int64_t> offsets;
  const std::int64_t count = detail::flag_offsets(f, offsets);
  return detail::pack_with_offsets<T>(in, f, offsets, count);
}

// The indices i with flags[i] true, in increasing order. O(n).
template <contiguous_input Flags>
array<std::int64_t> pack_index(const Flags& flags) {
  auto f = detail::as_span(flags);
  std::vector<std::int64_t> offsets;
  const std::int64_t count = detail::flag_offsets(f, offsets);
  auto out = buffer<std::int64_t>::for_overwrite(count);
  std::int64_t* o = out.data();
  detail::for_each_block(detail::ssize(flags), tuning::flat_block,
                         [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
                           std::int64_t k = offsets[static_cast<std::size_t>(b)];
                           for (std::int64_t i = lo; i < hi; ++i)
                             if (f[i]) o[k++] = i;
                         });
  return std::move(out).freeze();
}

}  // namespace vseg
