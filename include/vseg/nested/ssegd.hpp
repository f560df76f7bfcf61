// vseg::ssegd: the scattered segment descriptor of a nested array.
//
// Glossary (the paper's names; also in vseg/segd.hpp):
//   block               one flat data array; a nested array has one or more.
//   physical segment p  the elements blocks[source(p)][start(p) .. start(p) + length(p)).
//   ssegd               the (source, start, length) triple of every physical
//                       segment: this type. It knows the blocks only by their
//                       sizes, when validate_full() is given them.
//   contiguous          the physical segments lie one after another in block 0
//                       from its first element: the ssegd is then a segd over
//                       block 0 (packed_layout() in O(1)). Arrays built from
//                       lengths or a segd are contiguous.
//
// An ssegd is a value: O(1) to copy (its arrays are shared), never changed
// after it is built. The checked constructor validates every entry against
// the block sizes; the unchecked one says so in its name.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/index_buffers.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/flat.hpp"
#include "vseg/segd.hpp"

namespace vseg {

class ssegd {
 public:
  // The descriptor of no physical segments. O(1).
  ssegd() = default;

  // The segments of s as physical segments, one after another in block 0
  // (contiguous). O(1): the sources are a slice of the shared zeros.
  static ssegd from_segd(const segd& s) {
    ssegd r;
    r.sources_ = detail::shared_zeros<std::int64_t>(s.segments(), "ssegd::from_segd");
    r.starts_ = s.starts();
    r.lengths_ = s.lengths();
    r.layout_ = std::make_shared<const segd>(s);
    return r;
  }

  // Physical segments from their sources, starts and lengths, checked against
  // the sizes of the blocks they point into (validate_full). O(segments).
  // Throws std::invalid_argument naming `operation` and the first bad entry.
  static ssegd from_arrays(array<std::int64_t> sources, array<std::int64_t> starts,
                           array<std::int64_t> lengths, std::span<const std::int64_t> block_sizes,
                           std::string_view operation = "ssegd::from_arrays") {
    ssegd r = from_arrays_unchecked(std::move(sources), std::move(starts), std::move(lengths),
                                    operation);
    r.validate_full(block_sizes, operation);
    return r;
  }

  // The same with only the O(1) checks of validate() (the three arrays have
  // one size): for callers whose entries are valid by construction. O(1).
  static ssegd from_arrays_unchecked(array<std::int64_t> sources, array<std::int64_t> starts,
                                     array<std::int64_t> lengths,
                                     std::string_view operation = "ssegd::from_arrays_unchecked") {
    ssegd r;
    r.sources_ = std::move(sources);
    r.starts_ = std::move(starts);
    r.lengths_ = std::move(lengths);
    r.validate(operation);
    return r;
  }

  // Number of physical segments. O(1).
  std::int64_t segments() const noexcept { return lengths_.size(); }
  // Per physical segment: its block, its start in that block, its length. O(1).
  const array<std::int64_t>& sources() const noexcept { return sources_; }
  const array<std::int64_t>& starts() const noexcept { return starts_; }
  const array<std::int64_t>& lengths() const noexcept { return lengths_; }
  // Physical segment p's block, start and length, unchecked. O(1).
  std::int64_t source(std::int64_t p) const noexcept { return sources_[p]; }
  std::int64_t start(std::int64_t p) const noexcept { return starts_[p]; }
  std::int64_t length(std::int64_t p) const noexcept { return lengths_[p]; }

  // Whether the physical segments lie one after another in block 0 from its
  // first element (see the glossary). O(1).
  bool contiguous() const noexcept { return layout_ != nullptr; }

  // The segd of the physical segments written one after another (new data
  // in physical order, as map and scan_s write it): the ssegd itself when
  // contiguous. O(1) when contiguous, O(segments) otherwise.
  segd packed_layout() const {
    if (layout_) return *layout_;
    return segd::from_lengths(lengths_);
  }

  // The physical segments whose keep flag is true, in order. O(segments).
  ssegd pack(const array<bool>& keep) const {
    detail::check_same_size("ssegd::pack", "keep", keep.size(), "physical segments", segments());
    ssegd r;
    r.sources_ = vseg::pack(sources_, keep);
    r.starts_ = vseg::pack(starts_, keep);
    r.lengths_ = vseg::pack(lengths_, keep);
    return r;
  }

  // a's physical segments followed by b's, whose sources shift by a_blocks
  // (the number of blocks a's sources count in). O(a.segments() + b.segments()).
  static ssegd append(const ssegd& a, std::int64_t a_blocks, const ssegd& b) {
    ssegd r;
    r.sources_ = vseg::append(a.sources_, map([=](std::int64_t s) { return s + a_blocks; }, b.sources_));
    r.starts_ = vseg::append(a.starts_, b.starts_);
    r.lengths_ = vseg::append(a.lengths_, b.lengths_);
    return r;
  }

  // The cheap checks (Arrow's Validate): the three arrays have one size.
  // O(1). Throws std::invalid_argument naming `operation`.
  void validate(std::string_view operation = "ssegd::validate") const {
    detail::check_same_size(operation, "sources", sources_.size(), "starts", starts_.size());
    detail::check_same_size(operation, "sources", sources_.size(), "lengths", lengths_.size());
  }

  // The thorough checks (Arrow's ValidateFull): validate(), then every
  // source names a block, every segment lies inside its block, and a
  // contiguous descriptor really is laid out as its segd. O(segments).
  // Throws std::invalid_argument naming `operation` and the first bad entry.
  void validate_full(std::span<const std::int64_t> block_sizes,
                     std::string_view operation = "ssegd::validate_full") const {
    validate(operation);
    const auto nblocks = static_cast<std::int64_t>(block_sizes.size());
    const std::int64_t *src = sources_.data(), *st = starts_.data(), *len = lengths_.data();
    detail::first_bad bad;
    detail::parallel_for(segments(), [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t p = lo; p < hi; ++p) {
        if (!detail::in_range(src[p], nblocks)) {
          bad.note(p);
          continue;
        }
        const std::int64_t size = block_sizes[static_cast<std::size_t>(src[p])];
        if (st[p] < 0 || len[p] < 0 || st[p] > size || len[p] > size - st[p]) bad.note(p);
      }
    });
    if (bad.any()) {
      const std::int64_t p = bad.position();
      if (!detail::in_range(src[p], nblocks))
        detail::throw_invalid(operation, "physical segment ", p, " names block ", src[p], " of ",
                              nblocks);
      detail::throw_invalid(operation, "physical segment ", p, " = [", st[p], ", ", st[p], " + ",
                            len[p], ") lies outside its block of size ",
                            block_sizes[static_cast<std::size_t>(src[p])]);
    }
    if (!layout_) return;
    // Contiguous: every source is 0 and every start the layout's.
    detail::parallel_for(segments(), [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t p = lo; p < hi; ++p)
        if (src[p] != 0 || st[p] != layout_->start(p)) bad.note(p);
    });
    if (bad.any())
      detail::throw_invalid(operation, "physical segment ", bad.position(),
                            " breaks the contiguous layout the descriptor claims");
  }

 private:
  array<std::int64_t> sources_;  // block of each physical segment
  array<std::int64_t> starts_;   // start inside its block
  array<std::int64_t> lengths_;  // length
  // When contiguous: the segd whose starts and lengths are starts_ and
  // lengths_ (shared, so equal shapes compare by pointer). Null otherwise.
  std::shared_ptr<const segd> layout_;
};

}  // namespace vseg
