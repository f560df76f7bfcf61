// vseg::vsegd: the virtual segment descriptor of a nested array.
//
// Glossary (the paper's names; also in vseg/segd.hpp):
//   vsegd      vsegids[i] names the physical segment (of an ssegd) that is
//              virtual segment i; several virtual segments may name one
//              physical segment (replicate, expand), and a physical segment
//              may be named by none (after pack or extract).
//   identity   vsegids[i] == i; then the vsegids are implicit, not stored
//              (8 bytes per segment saved): vsegids() hands out a slice of the
//              shared iota buffer only when asked.
//   culled     every physical segment is named by some virtual segment.
//              cull() drops the others; only consumers of whole segments
//              (fold, scan, map, concat) need it.
//   flat       identity over a contiguous ssegd: virtual segment i is the
//              elements [shape().start(i), shape().end(i)) of block 0, so a
//              fused fold reads no per-segment descriptor (SpMV's fast path).
//   repeat     vsegid(i) = base(i / repeat), base being the identity or the
//              stored ids: expand by equal counts c multiplies the repeat by
//              c and writes no id, so a chain of such expands (treeLookup's
//              levels) is composed arithmetically (level fusion) and its ids
//              are computed once, in one pass, only if someone asks for them.
//
// The descriptor owns these invariants: every constructor and operation
// below sets them, and nothing else does. Consumers that write new physical
// data (map, scan_s) get their descriptor from contiguous_layout(), the one
// rebuild path, which keeps identity and makes the result flat when the
// input's vsegids are the identity.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <utility>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/index_buffers.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/streaming_store.hpp"
#include "vseg/flat.hpp"
#include "vseg/monoid.hpp"
#include "vseg/nested/ssegd.hpp"
#include "vseg/segd.hpp"

namespace vseg {

class vsegd {
 public:
  // The descriptor of no segments. O(1).
  vsegd() = default;

  // Virtual segment i is physical segment i of ss (identity, not stored;
  // culled). O(1).
  static vsegd identity(ssegd ss) {
    vsegd r;
    r.size_ = ss.segments();
    r.ss_ = std::move(ss);
    return r;
  }

  // The segments of s over block 0: identity over ssegd::from_segd(s), flat,
  // with s as its shape. O(1).
  static vsegd from_segd(const segd& s) { return identity(ssegd::from_segd(s)); }

  // Virtual segments naming the physical segments of ss by vsegids, checked:
  // every id must name a physical segment. O(virtual segments). Throws
  // std::out_of_range naming `operation`, the position and the id.
  static vsegd from_vsegids(array<std::int64_t> vsegids, ssegd ss,
                            std::string_view operation = "vsegd::from_vsegids") {
    const std::int64_t n = vsegids.size(), physical = ss.segments();
    const std::int64_t* v = vsegids.data();
    detail::first_bad bad;
    detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i)
        if (!detail::in_range(v[i], physical)) bad.note(i);
    });
    if (bad.any())
      detail::throw_out_of_range(operation, "vsegids[", bad.position(), "] = ", v[bad.position()],
                                 " names no physical segment (there are ", physical, ")");
    return from_vsegids_unchecked(std::move(vsegids), std::move(ss));
  }

  // The same without looking at the ids, for callers whose ids are valid by
  // construction (derived from a valid descriptor). O(1).
  static vsegd from_vsegids_unchecked(array<std::int64_t> vsegids, ssegd ss) {
    vsegd r;
    r.size_ = vsegids.size();
    r.base_ = std::move(vsegids);
    r.ss_ = std::move(ss);
    r.base_identity_ = false;
    r.culled_ = false;
    return r;
  }

  // Number of virtual segments. O(1).
  std::int64_t size() const noexcept { return size_; }
  // The scattered descriptor of the physical segments. O(1).
  const ssegd& scattered() const noexcept { return ss_; }
  // The physical segment of virtual segment i, unchecked. O(1) (one
  // division when repeated).
  std::int64_t vsegid(std::int64_t i) const noexcept {
    const std::int64_t j = repeat_ == 1 ? i : i / repeat_;
    return base_identity_ ? j : base_[j];
  }
  // The vsegids; for the identity a slice of the shared iota buffer. O(1)
  // amortised, O(virtual segments) when repeated (the ids are computed then).
  array<std::int64_t> vsegids() const {
    if (repeat_ == 1)
      return base_identity_ ? detail::shared_iota<std::int64_t>(size_, "nested::vsegids") : base_;
    return gather_by_vsegid([](std::int64_t p) { return p; });
  }
  // Whether the vsegids are the implicit identity (see the glossary). O(1).
  bool identity() const noexcept { return base_identity_ && repeat_ == 1; }
  // How many consecutive virtual segments name each base id (see the
  // glossary): 1 unless built by expand with equal counts. O(1).
  std::int64_t repeat() const noexcept { return repeat_; }
  // Number of vsegids held in memory: 0 for an identity base, whatever the
  // repeat; the base's size otherwise. O(1).
  std::int64_t stored_vsegids() const noexcept { return base_identity_ ? 0 : base_.size(); }

  // The same physical segments, virtual segment i naming what virtual
  // segment i / each names here: expand with every count equal to each,
  // composed into the repeat, no id written. O(1). Throws
  // std::invalid_argument for each < 1, std::overflow_error when the number
  // of virtual segments would pass int64.
  vsegd repeated(std::int64_t each) const {
    if (each < 1) detail::throw_invalid("vsegd::repeated", "repeat count ", each, " is not positive");
    if (size_ > std::numeric_limits<std::int64_t>::max() / each)
      detail::throw_overflow("expand", "the counts sum past int64 (", size_, " segments of ", each, ")");
    vsegd r = *this;
    r.size_ = size_ * each;
    r.repeat_ = repeat_ * each;  // <= r.size_ unless size_ == 0, so no overflow
    if (size_ == 0) r.repeat_ = 1;
    return r;
  }

  // Calls f(i, vsegid(i)) for i = lo .. hi-1 in order, with no division per
  // segment (one per call). The loop of every consumer that walks the ids
  // of a possibly repeated descriptor (lengths, slice_l). O(hi - lo).
  template <class F>
  void for_each_vsegid(std::int64_t lo, std::int64_t hi, F&& f) const {
    if (lo >= hi) return;
    const std::int64_t* b = base_.data();
    if (repeat_ == 1) {
      if (base_identity_) for (std::int64_t i = lo; i < hi; ++i) f(i, i);
      else for (std::int64_t i = lo; i < hi; ++i) f(i, b[i]);
      return;
    }
    const std::int64_t each = repeat_;
    auto walk = [&](auto base_of) {
      std::int64_t j = lo / each, r = lo % each;
      for (std::int64_t i = lo; i < hi; ++i) {
        f(i, base_of(j));
        if (++r == each) {
          r = 0;
          ++j;
        }
      }
    };
    if (base_identity_) walk([](std::int64_t j) { return j; });
    else walk([b](std::int64_t j) { return b[j]; });
  }
  // Whether every physical segment is known to be reachable. O(1).
  bool culled() const noexcept { return culled_; }
  // Whether the virtual segments are laid out as the shape in block 0. O(1).
  bool flat() const noexcept { return identity() && ss_.contiguous(); }

  // The length of virtual segment i, unchecked. O(1).
  std::int64_t length(std::int64_t i) const noexcept { return ss_.length(vsegid(i)); }
  // The length of every virtual segment. O(1) for the identity, O(virtual segments) otherwise.
  array<std::int64_t> lengths() const {
    if (identity()) return ss_.lengths();
    if (repeat_ == 1) return bpermute_unchecked(ss_.lengths(), base_);
    const std::int64_t* len = ss_.lengths().data();
    return gather_by_vsegid([len](std::int64_t p) { return len[p]; });
  }
  // The contiguous descriptor of the virtual segments as if concatenated.
  // O(1) when flat, O(virtual segments) otherwise.
  segd shape() const {
    if (flat()) return ss_.packed_layout();
    return segd::from_lengths(lengths());
  }

  // Per physical segment, whether some virtual segment names it.
  // O(virtual + physical segments).
  array<bool> reachable() const {
    auto marks = buffer<bool>::filled(ss_.segments(), culled_);
    if (culled_) return std::move(marks).freeze();
    // The base names the same physical segments as the repeated ids.
    bool* m = marks.data();
    const std::int64_t* v = base_.data();
    detail::parallel_for(base_.size(), [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i)
        std::atomic_ref<bool>(m[v[i]]).store(true, std::memory_order_relaxed);
    });
    return std::move(marks).freeze();
  }

  // Number of reachable physical segments. O(1) when culled, O(virtual +
  // physical segments) otherwise.
  std::int64_t physical_segments() const {
    return culled_ ? ss_.segments() : count_true(reachable());
  }

  // The same virtual segments over only the reachable physical segments,
  // renumbered in order. O(1) when culled, O(virtual + physical segments) otherwise.
  vsegd cull() const {
    if (culled_) return *this;
    const array<bool> keep = reachable();
    vsegd r = *this;
    r.culled_ = true;
    if (count_true(keep) == ss_.segments()) return r;
    // new_id[p]: the index of physical segment p among the kept ones.
    const auto new_id = scan(map([](bool k) { return std::int64_t{k ? 1 : 0}; }, keep),
                             plus<std::int64_t>{});
    r.ss_ = ss_.pack(keep);
    r.base_ = bpermute_unchecked(new_id, base_);  // the repeat stays
    return r;
  }

  // The rebuild path: the descriptor of the same virtual segments once the
  // reachable physical segments are written one after another into a new
  // block 0, in physical order (what map and scan_s produce). Culled and
  // contiguous; keeps the identity, so an identity input gives a flat result
  // (the same descriptor, when the input is already flat). O(1) when flat,
  // O(virtual + physical segments) otherwise.
  vsegd contiguous_layout() const {
    if (flat()) return *this;
    const vsegd c = cull();
    vsegd r = c;
    r.ss_ = ssegd::from_segd(c.ss_.packed_layout());
    return r;
  }

  // The cheap checks (Arrow's Validate): the ssegd's validate(), and as many
  // stored vsegids as virtual segments. O(1). Throws std::invalid_argument
  // naming `operation`.
  void validate(std::string_view operation = "vsegd::validate") const {
    ss_.validate(operation);
    if (repeat_ < 1 || (size_ == 0 && repeat_ != 1))
      detail::throw_invalid(operation, "repeat ", repeat_, " over ", size_, " virtual segments");
    const std::int64_t base = size_ / repeat_;
    if (base * repeat_ != size_)
      detail::throw_invalid(operation, size_, " virtual segments are not a multiple of the repeat ", repeat_);
    if (base_identity_) detail::check_same_size(operation, "the identity vsegids", base, "the physical segments", ss_.segments());
    else detail::check_same_size(operation, "vsegids", base_.size(), "the virtual segments", base);
  }

  // The thorough checks (Arrow's ValidateFull): validate(), the ssegd's
  // validate_full against the block sizes, every vsegid names a physical
  // segment, and a descriptor that claims to be culled is. O(virtual +
  // physical segments). Throws std::invalid_argument naming `operation` and
  // the first bad entry.
  void validate_full(std::span<const std::int64_t> block_sizes,
                     std::string_view operation = "vsegd::validate_full") const {
    validate(operation);
    ss_.validate_full(block_sizes, operation);
    if (base_identity_) return;  // the identity names every physical segment once
    const std::int64_t physical = ss_.segments();
    const std::int64_t* v = base_.data();
    detail::first_bad bad;
    detail::parallel_for(base_.size(), [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i)
        if (!detail::in_range(v[i], physical)) bad.note(i);
    });
    if (bad.any())
      detail::throw_invalid(operation, "vsegids[", bad.position(), "] = ", v[bad.position()],
                            " names no physical segment (there are ", physical, ")");
    if (culled_ && count_true(vsegd::from_vsegids_unchecked(base_, ss_).reachable()) != physical)
      detail::throw_invalid(operation, "the descriptor claims to be culled but some of its ",
                            physical, " physical segments are named by no virtual segment");
  }

 private:
  // [f(vsegid(i)) | i], walking the ids (for_each_vsegid); an output larger
  // than the cache goes around it (streaming_store.hpp). O(virtual segments).
  template <class F>
  array<std::int64_t> gather_by_vsegid(F f) const {
    auto out = buffer<std::int64_t>::for_overwrite(size_);
    std::int64_t* o = out.data();
    detail::with_store_for(size_ * 8, [&]<class Store>(Store) {
      detail::parallel_for(size_, [&](std::int64_t lo, std::int64_t hi) {
        for_each_vsegid(lo, hi, [o, &f](std::int64_t i, std::int64_t p) { Store::put(o + i, f(p)); });
        Store::fence();
      });
    });
    return std::move(out).freeze();
  }

  ssegd ss_;
  array<std::int64_t> base_;   // the base ids; empty when base_identity_
  std::int64_t size_ = 0;      // number of virtual segments: base ids * repeat_
  std::int64_t repeat_ = 1;    // vsegid(i) = base(i / repeat_)
  bool base_identity_ = true;  // base(j) == j, not stored
  bool culled_ = true;         // every physical segment is reachable
};

}  // namespace vseg
