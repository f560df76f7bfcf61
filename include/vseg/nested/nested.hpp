// vseg::nested<T>: a nested array with virtual segments — data blocks plus
// one virtual segment descriptor (vseg::vsegd over a vseg::ssegd; the
// glossary and the invariants are in vseg/nested/vsegd.hpp and
// notes/nested.md).
//
//   blocks   one or more flat data arrays, array<T>, shared and immutable;
//   vsegd    which elements of the blocks each virtual segment is.
//
// Every public way to build a nested array checks its descriptor against its
// blocks; the unchecked ones say so in their names. Copying is O(1) in the
// data (the blocks and descriptor arrays are shared).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/saturating.hpp"
#include "vseg/flat.hpp"
#include "vseg/nested/protocol.hpp"
#include "vseg/nested/ssegd.hpp"
#include "vseg/nested/vsegd.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/segmented_array.hpp"

namespace vseg {

template <class T>
class nested {
 public:
  using value_type = T;
  // The data blocks. Almost always one or two (two after append or
  // combine2), so they live inside the object: no allocation per array.
  using block_list = boost::container::small_vector<array<T>, 2>;

  // The nested array with no segments.
  nested() = default;

  // The segments of `data` with the given lengths, in order. O(segments).
  // Throws std::invalid_argument for a negative length or lengths that do
  // not add up to data.size().
  static nested from_lengths(array<std::int64_t> lengths, array<T> data) {
    segd s = segd::from_lengths(std::move(lengths));
    check_covers("nested::from_lengths", s, data.size());
    return from_segd(s, std::move(data));
  }

  // The segments of `data` described by s, which must cover it (flat,
  // identity vsegids). O(1). Throws std::invalid_argument otherwise.
  static nested from_segd(const segd& s, array<T> data) {
    check_covers("nested::from_segd", s, data.size());
    return nested(block_list{std::move(data)}, vsegd::from_segd(s));
  }

  // The segments of a segmented_array (the result of the _s operations),
  // sharing its data: no element copied. O(1).
  static nested from_segmented(const segmented_array<T>& xs) { return from_segd(xs.descriptor, xs.data); }

  // A nested array holding a copy of the given vectors. O(elements).
  static nested from(const std::vector<std::vector<T>>& xss) {
    std::vector<std::int64_t> lengths;
    lengths.reserve(xss.size());
    for (const auto& xs : xss) lengths.push_back(static_cast<std::int64_t>(xs.size()));
    segd s = segd::from_lengths(array<std::int64_t>(std::move(lengths)));
    auto data = buffer<T>::for_overwrite(s.elements());
    for (std::size_t j = 0; j < xss.size(); ++j)
      std::copy(xss[j].begin(), xss[j].end(), data.data() + s.start(static_cast<std::int64_t>(j)));
    return from_segd(s, std::move(data).freeze());
  }

  // A nested array from its blocks and descriptor, checked with
  // d.validate_full against the blocks. O(virtual + physical segments).
  // Throws std::invalid_argument naming the first bad entry.
  static nested from_vsegd(block_list blocks, vsegd d) {
    nested r(std::move(blocks), std::move(d));
    r.validate_full("nested::from_vsegd");
    return r;
  }

  // The same with only the O(1) checks of validate(), for descriptors valid
  // by construction. O(1).
  static nested from_vsegd_unchecked(block_list blocks, vsegd d) {
    nested r(std::move(blocks), std::move(d));
    r.validate("nested::from_vsegd_unchecked");
    return r;
  }

  // A nested array from explicit descriptors (blocks, ssegd, vsegids),
  // checked as from_vsegd. O(virtual + physical segments).
  static nested from_descriptors(std::vector<array<T>> blocks, array<std::int64_t> sources,
                                 array<std::int64_t> starts, array<std::int64_t> lengths,
                                 array<std::int64_t> vsegids) {
    constexpr const char* op = "nested::from_descriptors";
    auto ss = ssegd::from_arrays_unchecked(std::move(sources), std::move(starts), std::move(lengths), op);
    nested r(block_list(blocks.begin(), blocks.end()),
             vsegd::from_vsegids_unchecked(std::move(vsegids), std::move(ss)));
    r.validate_full(op);
    return r;
  }

  // The same without the O(segments) checks (only the sizes), for tests of
  // validate_full and callers whose descriptors are valid by construction. O(1).
  static nested from_descriptors_unchecked(std::vector<array<T>> blocks, array<std::int64_t> sources,
                                           array<std::int64_t> starts, array<std::int64_t> lengths,
                                           array<std::int64_t> vsegids) {
    constexpr const char* op = "nested::from_descriptors_unchecked";
    auto ss = ssegd::from_arrays_unchecked(std::move(sources), std::move(starts), std::move(lengths), op);
    return from_vsegd_unchecked(block_list(blocks.begin(), blocks.end()),
                                vsegd::from_vsegids_unchecked(std::move(vsegids), std::move(ss)));
  }

  // A nested array whose virtual segments are its physical segments, in
  // order (identity vsegids, not stored), checked as from_vsegd. O(segments).
  static nested from_physical(std::vector<array<T>> blocks, array<std::int64_t> sources,
                              array<std::int64_t> starts, array<std::int64_t> lengths) {
    constexpr const char* op = "nested::from_physical";
    auto ss = ssegd::from_arrays_unchecked(std::move(sources), std::move(starts), std::move(lengths), op);
    nested r(block_list(blocks.begin(), blocks.end()), vsegd::identity(std::move(ss)));
    r.validate_full(op);
    return r;
  }

  // Number of virtual segments. O(1).
  std::int64_t size() const noexcept { return d_.size(); }
  // Whether there are no virtual segments. O(1).
  bool empty() const noexcept { return size() == 0; }

  // The length of every virtual segment. O(1) for identity vsegids, O(virtual segments) otherwise.
  array<std::int64_t> lengths() const { return d_.lengths(); }
  // The length of virtual segment i, unchecked. O(1).
  std::int64_t length(std::int64_t i) const noexcept { return d_.length(i); }

  // Virtual segment i, unchecked. O(1).
  std::span<const T> operator[](std::int64_t i) const noexcept {
    const ssegd& ss = d_.scattered();
    const std::int64_t p = d_.vsegid(i);
    return {blocks_[static_cast<std::size_t>(ss.source(p))].data() + ss.start(p),
            static_cast<std::size_t>(ss.length(p))};
  }

  // Virtual segment i; throws std::out_of_range outside [0, size()). O(1).
  std::span<const T> at(std::int64_t i) const {
    if (!detail::in_range(i, size()))
      detail::throw_out_of_range("nested::at", "segment ", i, " outside [0, ", size(), ")");
    return (*this)[i];
  }

  // Number of reachable physical segments (named by some virtual segment).
  // O(1) when culled, O(virtual + physical segments) otherwise.
  std::int64_t physical_segments() const { return d_.physical_segments(); }
  // Number of physical segments in the descriptor, reachable or not. O(1).
  std::int64_t descriptor_segments() const noexcept { return d_.scattered().segments(); }

  // The contiguous descriptor of the virtual segments (lengths, starts) as
  // if they were concatenated. O(1) when flat, O(virtual segments) otherwise.
  segd shape() const { return d_.shape(); }

  // The same nested array without unreachable physical segments (vsegd::cull).
  // O(1) when culled, O(virtual + physical segments) otherwise.
  nested cull() const { return nested(blocks_, d_.cull()); }

  // The cheap checks: vsegd::validate. O(1). Throws std::invalid_argument.
  void validate(std::string_view operation = "nested::validate") const { d_.validate(operation); }

  // The thorough checks: vsegd::validate_full against the blocks' sizes
  // (sources name blocks, physical segments lie inside them, vsegids name
  // physical segments). O(virtual + physical segments). Throws
  // std::invalid_argument naming the first bad entry.
  void validate_full(std::string_view operation = "nested::validate_full") const {
    boost::container::small_vector<std::int64_t, 2> sizes;
    for (const auto& b : blocks_) sizes.push_back(b.size());
    d_.validate_full(std::span<const std::int64_t>(sizes.data(), sizes.size()), operation);
  }

  // The data blocks. O(1).
  std::span<const array<T>> blocks() const noexcept { return {blocks_.data(), blocks_.size()}; }
  // The virtual segment descriptor. O(1).
  const vsegd& descriptor() const noexcept { return d_; }
  // The vsegids; for identity vsegids a slice of the shared iota buffer
  // (see detail/index_buffers.hpp). O(1) amortised.
  array<std::int64_t> vsegids() const { return d_.vsegids(); }
  // Whether the vsegids are the implicit identity (not stored). O(1).
  bool identity_vsegids() const noexcept { return d_.identity(); }
  // The ssegd's arrays: per physical segment its block, start and length. O(1).
  const array<std::int64_t>& physical_sources() const noexcept { return d_.scattered().sources(); }
  const array<std::int64_t>& physical_starts() const noexcept { return d_.scattered().starts(); }
  const array<std::int64_t>& physical_lengths() const noexcept { return d_.scattered().lengths(); }

  // Whether the array is laid out as its shape: virtual segment i is the
  // elements [shape().start(i), shape().end(i)) of block 0 (arrays built
  // from lengths or a segd, and map and scan_s of them). Fused folds of flat
  // expressions read no per-segment descriptor (detail/fused_fold.hpp). O(1).
  bool flat() const noexcept { return d_.flat() && !blocks_.empty(); }

  // The same physical data under other virtual segments, checked: every id
  // must name a physical segment. O(virtual segments). Throws
  // std::out_of_range naming nested::with_vsegids, the position and the id.
  nested with_vsegids(array<std::int64_t> vsegids) const {
    return nested(blocks_, vsegd::from_vsegids(std::move(vsegids), d_.scattered(), "nested::with_vsegids"));
  }

  // The same without looking at the ids, for ids derived from this array's
  // own (descriptor operations). O(1).
  nested with_vsegids_unchecked(array<std::int64_t> vsegids) const {
    return nested(blocks_, vsegd::from_vsegids_unchecked(std::move(vsegids), d_.scattered()));
  }

  // New physical data, of any element type, under this array's virtual
  // segments: `data` holds the reachable physical segments one after another
  // in physical order (vsegd::contiguous_layout, the one rebuild path). The
  // result is flat when this array's vsegids are the identity. O(1) when
  // flat, O(virtual + physical segments) otherwise. Throws
  // std::invalid_argument unless data has exactly their elements.
  template <class U>
  nested<U> with_physical_data(array<U> data) const {
    vsegd d = d_.contiguous_layout();
    check_covers("nested::with_physical_data", d.scattered().packed_layout(), data.size());
    return nested<U>::from_vsegd_unchecked(typename nested<U>::block_list{std::move(data)}, std::move(d));
  }

 private:
  template <class U>
  friend class nested;
  friend struct detail::expression_access;

  nested(block_list blocks, vsegd d) : blocks_(std::move(blocks)), d_(std::move(d)) {}

  // The expression protocol (vseg/nested/protocol.hpp): a reader of virtual
  // segment i; a nested array never holds a bad element.
  detail::segment_cursor<T> cursor(std::int64_t i, detail::first_bad*, std::int64_t) const {
    return {(*this)[i].data()};
  }
  void throw_bad(std::int64_t) const {}
  // Element k of the concatenated virtual space, when flat().
  detail::segment_cursor<T> flat_cursor(detail::first_bad*) const { return {blocks_.front().data()}; }

  block_list blocks_;
  vsegd d_;
};

// ---------------------------------------------------------------------------
// Conversion and counting

// The segments as a vector of vectors (copies every virtual element).
// O(virtual elements).
template <class T>
std::vector<std::vector<T>> to_vectors(const nested<T>& xss) {
  std::vector<std::vector<T>> out(static_cast<std::size_t>(xss.size()));
  for (std::int64_t i = 0; i < xss.size(); ++i) {
    auto s = xss[i];
    out[static_cast<std::size_t>(i)].assign(s.begin(), s.end());
  }
  return out;
}

// The total number of virtual elements; throws std::overflow_error when it
// exceeds 2^63-1 (replication can make it astronomically large). O(virtual segments).
template <class T>
std::int64_t virtual_elements(const nested<T>& xss) {
  const std::int64_t n = reduce(xss.lengths(), detail::saturating_plus{});
  if (n < 0)
    detail::throw_overflow("virtual_elements", "the ", xss.size(),
                           " virtual segments hold more than 2^63-1 elements");
  return n;
}

}  // namespace vseg
