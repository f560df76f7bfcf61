// vseg::nested<T>: nested arrays with virtual segments.
//
// Representation (glossary in vseg/segd.hpp; invariants in notes/nested.md):
//
//   blocks     one or more flat data arrays, array<T>, shared and immutable;
//   ssegd      per physical segment p: source block sources[p], start
//              starts[p] and length lengths[p] — the elements
//              blocks[sources[p]][starts[p] .. starts[p] + lengths[p]);
//   vsegd      vsegids[i] = the physical segment that is virtual segment i.
//
// Several virtual segments may name one physical segment (replicate, expand),
// and a physical segment may be named by none (after pack or extract): such
// unreachable segments are dropped lazily by cull(), only when a consumer
// reads whole segments (fold, scan, map, concat). Index-only consumers
// (operator[], index_l, lengths) use the descriptor as it is.
//
// Every operation on descriptors (replicate, expand, pack, combine2, append,
// extract) copies no element; concat is the only operation that materialises
// replication.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/fused_fold.hpp"
#include "vseg/detail/index_buffers.hpp"
#include "vseg/detail/merge_path.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/flat.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/fold.hpp"

namespace vseg {

template <class T>
class nested;

namespace detail {

// Reads element i of one virtual segment of a nested array.
template <class T>
struct segment_cursor {
  const T* data;
  T operator()(std::int64_t i) const { return data[i]; }
};

// Marks that an index expression found no error; the nested array itself
// never fails to read.
struct no_error_report {};

// a + b for counts, or -1 when either is negative or the sum overflows (a
// monoid for reduce: -1 absorbs).
struct saturating_plus {
  static constexpr std::int64_t identity() { return 0; }
  std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    std::int64_t r;
    if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &r)) return -1;
    return r;
  }
};

}  // namespace detail

template <class T>
class nested {
 public:
  using value_type = T;

  // The nested array with no segments.
  nested() : blocks_(std::make_shared<const std::vector<array<T>>>()) {}

  // The segments of `data` with the given lengths, in order. O(segments).
  // Throws std::invalid_argument for a negative length or lengths that do
  // not add up to data.size().
  static nested from_lengths(array<std::int64_t> lengths, array<T> data) {
    segd s = segd::from_lengths(std::move(lengths));
    check_covers("nested::from_lengths", s, data.size());
    return from_segd(s, std::move(data));
  }

  // The segments of `data` described by s (which must cover it). O(segments).
  static nested from_segd(const segd& s, array<T> data) {
    check_covers("nested::from_segd", s, data.size());
    nested r;
    r.blocks_ = std::make_shared<const std::vector<array<T>>>(std::vector<array<T>>{std::move(data)});
    // The sources are a slice of the shared zeros (no page written) and the
    // vsegids the implicit identity: no O(segments) fill or memory per array.
    r.sources_ = detail::shared_zeros<std::int64_t>(s.segments());
    r.starts_ = s.starts();
    r.lengths_ = s.lengths();
    r.size_ = s.segments();
    r.identity_ = true;
    r.shape_ = std::make_shared<const segd>(s);
    r.culled_ = true;
    r.contiguous_ = true;
    return r;
  }

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

  // A nested array from explicit descriptors (blocks, ssegd, vsegids). The
  // cheap checks run here (sizes agree, O(1)); validate_full() checks every
  // entry.
  static nested from_descriptors(std::vector<array<T>> blocks, array<std::int64_t> sources,
                                 array<std::int64_t> starts, array<std::int64_t> lengths,
                                 array<std::int64_t> vsegids) {
    detail::check_same_size("nested::from_descriptors", "sources", sources.size(), "starts",
                            starts.size());
    detail::check_same_size("nested::from_descriptors", "sources", sources.size(), "lengths",
                            lengths.size());
    nested r;
    r.blocks_ = std::make_shared<const std::vector<array<T>>>(std::move(blocks));
    r.sources_ = std::move(sources);
    r.starts_ = std::move(starts);
    r.lengths_ = std::move(lengths);
    r.size_ = vsegids.size();
    r.vsegids_ = std::move(vsegids);
    r.culled_ = false;
    return r;
  }

  // A nested array whose virtual segments are its physical segments, in
  // order (identity vsegids, not stored). O(1); the same checks as
  // from_descriptors.
  static nested from_physical(std::vector<array<T>> blocks, array<std::int64_t> sources,
                              array<std::int64_t> starts, array<std::int64_t> lengths) {
    nested r = from_descriptors(std::move(blocks), std::move(sources), std::move(starts),
                                std::move(lengths), array<std::int64_t>{});
    r.size_ = r.lengths_.size();
    r.identity_ = true;
    r.culled_ = true;
    return r;
  }

  // Number of virtual segments.
  std::int64_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size() == 0; }

  // The length of every virtual segment. O(virtual segments).
  array<std::int64_t> lengths() const {
    if (shape_) return shape_->lengths();
    if (identity_) return lengths_;
    return bpermute_unchecked(lengths_, vsegids_);
  }

  // The length of virtual segment i.
  std::int64_t length(std::int64_t i) const noexcept { return lengths_[vsegid(i)]; }

  // Virtual segment i, unchecked.
  std::span<const T> operator[](std::int64_t i) const noexcept {
    const std::int64_t p = vsegid(i);
    return {(*blocks_)[static_cast<std::size_t>(sources_[p])].data() + starts_[p],
            static_cast<std::size_t>(lengths_[p])};
  }

  // Virtual segment i; throws std::out_of_range outside [0, size()).
  std::span<const T> at(std::int64_t i) const {
    if (!detail::in_range(i, size()))
      detail::throw_out_of_range("nested::at", "segment ", i, " outside [0, ", size(), ")");
    return (*this)[i];
  }

  // Number of reachable physical segments (named by some virtual segment).
  // O(virtual segments).
  std::int64_t physical_segments() const {
    if (culled_) return lengths_.size();
    return count_true(reachable());
  }

  // Number of physical segments in the descriptor, reachable or not. O(1).
  std::int64_t descriptor_segments() const noexcept { return lengths_.size(); }

  // The contiguous descriptor of the virtual segments (lengths, starts) as
  // if they were concatenated. O(virtual segments), cached when known.
  segd shape() const {
    if (shape_) return *shape_;
    return segd::from_lengths(lengths());
  }

  // The same nested array without unreachable physical segments. O(virtual
  // segments + physical segments); returns *this when all are reachable.
  nested cull() const {
    if (culled_) return *this;
    const array<bool> keep = reachable();
    const std::int64_t kept = count_true(keep);
    if (kept == lengths_.size()) {
      nested r = *this;
      r.culled_ = true;
      return r;
    }
    // new_id[p]: the index of physical segment p among the kept ones.
    auto new_id = scan(map([](bool k) { return std::int64_t{k ? 1 : 0}; }, keep),
                       plus<std::int64_t>{});
    nested r;
    r.blocks_ = blocks_;
    r.sources_ = pack(sources_, keep);
    r.starts_ = pack(starts_, keep);
    r.lengths_ = pack(lengths_, keep);
    r.vsegids_ = bpermute_unchecked(new_id, vsegids());
    r.size_ = size_;
    r.shape_ = shape_;
    r.culled_ = true;
    return r;
  }

  // Checks every descriptor entry: sources name blocks, physical segments lie
  // inside their blocks, vsegids name physical segments. O(segments).
  // Throws std::invalid_argument naming the first bad entry.
  void validate_full() const {
    const auto nblocks = static_cast<std::int64_t>(blocks_->size());
    for (std::int64_t p = 0; p < lengths_.size(); ++p) {
      if (!detail::in_range(sources_[p], nblocks))
        detail::throw_invalid("nested::validate_full", "physical segment ", p, " names block ",
                              sources_[p], " of ", nblocks);
      const std::int64_t block_size = (*blocks_)[static_cast<std::size_t>(sources_[p])].size();
      if (starts_[p] < 0 || lengths_[p] < 0 || starts_[p] > block_size ||
          lengths_[p] > block_size - starts_[p])
        detail::throw_invalid("nested::validate_full", "physical segment ", p, " = [",
                              starts_[p], ", ", starts_[p], " + ", lengths_[p],
                              ") lies outside its block of size ", block_size);
    }
    for (std::int64_t i = 0; i < size_; ++i)
      if (!detail::in_range(vsegid(i), lengths_.size()))
        detail::throw_invalid("nested::validate_full", "vsegids[", i, "] = ", vsegid(i),
                              " names no physical segment (there are ", lengths_.size(), ")");
  }

  // The descriptors, for the operations in this header and for tests.
  const std::vector<array<T>>& blocks() const noexcept { return *blocks_; }
  // The vsegids; for an array built from lengths or a segd they are the
  // identity and are not stored: this returns a slice of the shared iota
  // buffer (O(1) amortised, see detail/index_buffers.hpp).
  array<std::int64_t> vsegids() const {
    return identity_ ? detail::shared_iota<std::int64_t>(size_) : vsegids_;
  }
  // Whether the vsegids are the implicit identity (not stored). O(1).
  bool identity_vsegids() const noexcept { return identity_; }
  const array<std::int64_t>& physical_sources() const noexcept { return sources_; }
  const array<std::int64_t>& physical_starts() const noexcept { return starts_; }
  const array<std::int64_t>& physical_lengths() const noexcept { return lengths_; }

  // A reader of virtual segment i's elements (the nested-expression protocol
  // shared with the delayed forms below).
  detail::segment_cursor<T> cursor(std::int64_t i, detail::first_bad*, std::int64_t) const {
    return {(*this)[i].data()};
  }
  void throw_bad(std::int64_t) const {}

  // Whether the array is laid out as its shape: virtual segment i is the
  // elements [shape().start(i), shape().end(i)) of block 0 (true for arrays
  // built from lengths or a segd). Then flat_cursor reads element k of the
  // concatenated virtual space directly, and fused folds skip the
  // per-segment descriptor reads (detail/fused_fold.hpp). O(1).
  bool flat() const noexcept { return contiguous_; }
  detail::segment_cursor<T> flat_cursor(detail::first_bad*) const {
    return {blocks_->front().data()};
  }

  // The same physical data under other virtual segments. For the operations below.
  nested with_vsegids(array<std::int64_t> vsegids) const {
    nested r;
    r.blocks_ = blocks_;
    r.sources_ = sources_;
    r.starts_ = starts_;
    r.lengths_ = lengths_;
    r.size_ = vsegids.size();
    r.vsegids_ = std::move(vsegids);
    r.culled_ = false;
    return r;
  }

  // New physical data with this array's (culled) descriptor: block 0 holds
  // the physical segments one after another, in physical order.
  nested with_physical_data(array<T> data) const {
    const nested c = cull();
    const segd phys = segd::from_lengths(c.lengths_);
    check_covers("nested::with_physical_data", phys, data.size());
    nested r;
    r.blocks_ = std::make_shared<const std::vector<array<T>>>(std::vector<array<T>>{std::move(data)});
    r.sources_ = fill<std::int64_t>(phys.segments(), 0);
    r.starts_ = phys.starts();
    r.lengths_ = phys.lengths();
    r.vsegids_ = c.vsegids_;
    r.size_ = c.size_;
    r.identity_ = c.identity_;
    r.shape_ = shape_;
    r.culled_ = true;
    return r;
  }

  // The physical segments (culled), as a contiguous logical space: the
  // descriptor of their concatenation and a pointer per segment such that
  // element k of that space, inside segment p, is
  // base[p][k - descriptor.start(p)].
  struct physical_view {
    segd descriptor;
    std::vector<const T*> base;
  };
  physical_view physical() const {
    physical_view v{segd::from_lengths(lengths_), std::vector<const T*>(
                                                      static_cast<std::size_t>(lengths_.size()))};
    detail::parallel_for(lengths_.size(), [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t p = lo; p < hi; ++p)
        v.base[static_cast<std::size_t>(p)] =
            (*blocks_)[static_cast<std::size_t>(sources_[p])].data() + starts_[p];
    });
    return v;
  }

 private:
  // Per physical segment, whether some virtual segment names it.
  array<bool> reachable() const {
    auto marks = buffer<bool>::filled(lengths_.size(), false);
    bool* m = marks.data();
    detail::parallel_for(size_, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i)
        std::atomic_ref<bool>(m[vsegid(i)]).store(true, std::memory_order_relaxed);
    });
    return std::move(marks).freeze();
  }

  std::shared_ptr<const std::vector<array<T>>> blocks_;
  array<std::int64_t> sources_;  // ssegd: block of each physical segment
  array<std::int64_t> starts_;   // ssegd: start inside its block
  array<std::int64_t> lengths_;  // ssegd: length
  // The physical segment of virtual segment i.
  std::int64_t vsegid(std::int64_t i) const noexcept { return identity_ ? i : vsegids_[i]; }

  array<std::int64_t> vsegids_;  // vsegd: physical segment of each virtual segment (empty
                                 // when identity_)
  std::int64_t size_ = 0;        // number of virtual segments
  bool identity_ = false;        // vsegids_[i] == i, not stored (built from a segd)
  std::shared_ptr<const segd> shape_;  // the virtual shape, when known
  bool culled_ = true;                 // every physical segment is reachable
  bool contiguous_ = false;            // laid out as the shape in block 0 (see flat())
};

// ---------------------------------------------------------------------------
// Construction and conversion

// The segments as a vector of vectors (copies every virtual element).
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

// ---------------------------------------------------------------------------
// Operations on descriptors: no element is copied.

// [xs, xs, ..., xs] (n times): one physical segment named n times. O(1)
// amortised: the vsegids are a slice of a shared zero buffer.
template <class T>
nested<T> replicate(std::int64_t n, const array<T>& xs) {
  if (n < 0) detail::throw_invalid("replicate", "negative count ", n);
  // The vsegids are a slice of the shared zero buffer: O(1), no page written.
  return nested<T>::from_descriptors({xs}, array<std::int64_t>{0}, array<std::int64_t>{0},
                                     array<std::int64_t>{xs.size()},
                                     detail::shared_zeros<std::int64_t>(n));
}

// Lifted replicate: segment i of xss repeated counts[i] times. O(result segments).
template <class T>
nested<T> expand(const array<std::int64_t>& counts, const nested<T>& xss) {
  if (counts.size() != xss.size())
    detail::throw_invalid("expand", "counts has size ", counts.size(), " but the nested array has ",
                          xss.size(), " segments");
  if (xss.descriptor_segments() == 1) {
    // One physical segment (a replicated array, treeLookup's table): every
    // vsegid is 0, and so is every one of the result: a slice of the shared
    // zeros. O(counts) read, nothing written.
    const std::int64_t total = reduce(counts, detail::saturating_plus{});
    if (total >= 0) return xss.with_vsegids(detail::shared_zeros<std::int64_t>(total));
    // a negative count or an overflow: the general path below reports it
  }
  if (xss.identity_vsegids()) {
    // expand(counts, [0, 1, ..., n-1]) without materialising the iota.
    const segd s = segd::from_lengths(counts);
    auto out = buffer<std::int64_t>::for_overwrite(s.elements());
    std::int64_t* o = out.data();
    detail::for_each_segment_piece(s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
                                   [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                                     for (std::int64_t k = lo; k < hi; ++k) o[k] = j;
                                   });
    return xss.with_vsegids(std::move(out).freeze());
  }
  return xss.with_vsegids(expand(counts, xss.vsegids()));
}

// The virtual segments whose flag is true. O(virtual segments).
template <class T>
nested<T> pack(const nested<T>& xss, const array<bool>& flags) {
  if (flags.size() != xss.size())
    detail::throw_invalid("pack", "flags has size ", flags.size(), " but the nested array has ",
                          xss.size(), " segments");
  return xss.with_vsegids(pack(xss.vsegids(), flags));
}

namespace detail {

// The physical descriptors of xss followed by those of yss, yss's sources
// shifted past xss's blocks. Returns the combined array with empty vsegids
// and the shift for yss's vsegids (xss's number of physical segments).
template <class T>
std::pair<nested<T>, std::int64_t> join_physical(const nested<T>& xss, const nested<T>& yss) {
  std::vector<array<T>> blocks = xss.blocks();
  blocks.insert(blocks.end(), yss.blocks().begin(), yss.blocks().end());
  const auto shift_blocks = static_cast<std::int64_t>(xss.blocks().size());
  auto ysources = map([=](std::int64_t s) { return s + shift_blocks; }, yss.physical_sources());
  auto joined = nested<T>::from_descriptors(
      std::move(blocks), append(xss.physical_sources(), ysources),
      append(xss.physical_starts(), yss.physical_starts()),
      append(xss.physical_lengths(), yss.physical_lengths()), array<std::int64_t>{});
  return {joined, xss.descriptor_segments()};
}

}  // namespace detail

// Virtual segments taken from xss where tags[i] is false and from yss where
// it is true, in order. O(virtual + physical segments); no element copied.
template <class T>
nested<T> combine2(const array<bool>& tags, const nested<T>& xss, const nested<T>& yss) {
  auto [joined, shift] = detail::join_physical(xss, yss);
  // yss's vsegids shift by xss's number of *physical* segments (DPH's
  // combine2 shifts by the virtual count, wrong when segments are shared).
  auto yv = map([shift = shift](std::int64_t v) { return v + shift; }, yss.vsegids());
  return joined.with_vsegids(combine2(tags, xss.vsegids(), yv));
}

// [xss..., yss...]. O(virtual + physical segments); no element copied.
template <class T>
nested<T> append(const nested<T>& xss, const nested<T>& yss) {
  auto [joined, shift] = detail::join_physical(xss, yss);
  auto yv = map([shift = shift](std::int64_t v) { return v + shift; }, yss.vsegids());
  return joined.with_vsegids(append(xss.vsegids(), yv));
}

// Virtual segments [start, start + len). O(1): a slice of the vsegids.
template <class T>
nested<T> extract(const nested<T>& xss, std::int64_t start, std::int64_t len) {
  if (start < 0 || len < 0 || start > xss.size() || len > xss.size() - start)
    detail::throw_out_of_range("extract", "segments [", start, ", ", start, " + ", len,
                               ") outside a nested array of ", xss.size(), " segments");
  return xss.with_vsegids(xss.vsegids().slice(start, len));
}

// Lifted slice: [xss[k][starts[k] .. starts[k] + lengths[k]) | k]. Makes one
// physical segment per virtual segment (identity vsegids, not stored),
// copying no element. O(segments). Throws std::out_of_range for a slice
// outside its segment.
template <class T>
nested<T> slice_l(const nested<T>& xss, const array<std::int64_t>& starts,
                  const array<std::int64_t>& lengths) {
  const std::int64_t n = xss.size();
  detail::check_same_size("slice_l", "starts", starts.size(), "segments", n);
  detail::check_same_size("slice_l", "lengths", lengths.size(), "segments", n);
  // With one data block every source is 0: a slice of the shared zeros,
  // not an array written per call.
  const bool one_block = xss.blocks().size() <= 1;
  auto sources = buffer<std::int64_t>::for_overwrite(one_block ? 0 : n);
  auto new_starts = buffer<std::int64_t>::for_overwrite(n);
  const array<std::int64_t> vsegids = xss.vsegids();
  // Raw pointers, captured by value: the loop reloads nothing per segment.
  const std::int64_t *vs = vsegids.data(), *plen = xss.physical_lengths().data(),
                     *psrc = xss.physical_sources().data(), *pst = xss.physical_starts().data(),
                     *st = starts.data(), *ln = lengths.data();
  std::int64_t *so = sources.data(), *ns = new_starts.data();
  detail::first_bad bad;
  detail::parallel_for(n, [=, &bad](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) {
      const std::int64_t p = vs[k];
      const std::int64_t len = plen[p];
      if (st[k] < 0 || ln[k] < 0 || st[k] > len || ln[k] > len - st[k]) bad.note(k);
      if (!one_block) so[k] = psrc[p];
      ns[k] = pst[p] + st[k];
    }
  });
  if (bad.any()) {
    const std::int64_t k = bad.position();
    detail::throw_out_of_range("slice_l", "slice [", starts[k], ", ", starts[k], " + ", lengths[k],
                               ") outside segment ", k, " of length ", xss.length(k));
  }
  return nested<T>::from_physical(
      xss.blocks(), one_block ? detail::shared_zeros<std::int64_t>(n) : std::move(sources).freeze(),
      std::move(new_starts).freeze(), lengths);
}

// ---------------------------------------------------------------------------
// Delayed (fused) forms. A nested expression E has value_type, shape() (the
// contiguous descriptor of its virtual segments), cursor(i, bad, base)
// returning a reader of virtual segment i's elements (noting a bad element at
// position base + k in `bad`), and throw_bad(position). nested<T> itself is
// one; index_l and zip_with return delayed ones that convert to nested<T>.

template <class E>
concept nested_expression = requires(const E& e, detail::first_bad* bad) {
  typename E::value_type;
  { e.shape() } -> std::same_as<segd>;
  e.cursor(std::int64_t{0}, bad, std::int64_t{0});
  e.throw_bad(std::int64_t{0});
};

// A nested expression that can say whether it is flat: element k of its
// concatenated virtual space read without a per-segment cursor (see
// nested<T>::flat()).
template <class E>
concept flat_expression = nested_expression<E> && requires(const E& e, detail::first_bad* bad) {
  { e.flat() } -> std::same_as<bool>;
  e.flat_cursor(bad);
};

namespace detail {

template <class T, class Src, class I = std::int64_t>
struct index_cursor {
  const Src* src;
  std::int64_t src_len;
  const I* idx;
  first_bad* bad;
  std::int64_t base;
  T operator()(std::int64_t k) const {
    const std::int64_t i = idx[k];
    if (in_range(i, src_len)) [[likely]]
      return static_cast<T>(src[i]);
    bad->note(base + k);
    return T{};
  }
};

template <class F, class CA, class CB>
struct zip_cursor {
  const F* f;
  CA a;
  CB b;
  auto operator()(std::int64_t k) const { return (*f)(a(k), b(k)); }
};

// Throws the error an expression found at `position`.
template <class E>
[[noreturn]] void throw_expression_error(const E& e, std::int64_t position) {
  e.throw_bad(position);
  throw_out_of_range("nested expression", "bad element at position ", position);
}

// Materialises an expression into a new nested array (one block).
template <nested_expression E>
nested<typename E::value_type> materialize(const E& e) {
  using T = typename E::value_type;
  const segd s = e.shape();
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  first_bad bad;
  for_each_segment_piece(s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
                         [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                           const std::int64_t start = s.start(j);
                           auto c = e.cursor(j, &bad, start);
                           for (std::int64_t k = lo; k < hi; ++k) o[k] = c(k - start);
                         });
  if (bad.any()) throw_expression_error(e, bad.position());
  return nested<T>::from_segd(s, std::move(out).freeze());
}

}  // namespace detail

// Delayed lifted indexing: [[xss[k][i] | i <- iss[k]] | k], with indices of
// any integer type I (int32 column indices make SpMV move 12 bytes per
// non-zero instead of 16).
template <class T, std::integral I = std::int64_t>
class index_l_expr {
 public:
  using value_type = T;
  index_l_expr(nested<T> xss, nested<I> iss) : xss_(std::move(xss)), iss_(std::move(iss)) {
    if (xss_.size() != iss_.size())
      detail::throw_invalid("index_l", "the nested array has ", xss_.size(),
                            " segments but the index array has ", iss_.size());
  }
  segd shape() const { return iss_.shape(); }
  detail::index_cursor<T, T, I> cursor(std::int64_t k, detail::first_bad* bad, std::int64_t base) const {
    auto src = xss_[k];
    return {src.data(), static_cast<std::int64_t>(src.size()), iss_[k].data(), bad, base};
  }
  // Flat when the indices are laid out as their shape and the source has a
  // single physical segment (every virtual segment names it, as after
  // replicate): then element k is src[iss[k]] for one src. O(1).
  bool flat() const noexcept { return iss_.flat() && xss_.descriptor_segments() == 1; }
  detail::index_cursor<T, T, I> flat_cursor(detail::first_bad* bad) const {
    const std::int64_t p = 0;
    const T* src = xss_.blocks()[static_cast<std::size_t>(xss_.physical_sources()[p])].data() +
                   xss_.physical_starts()[p];
    return {src, xss_.physical_lengths()[p], iss_.flat_cursor(bad).data, bad, 0};
  }
  // Throws for the bad index at `position`, if this expression has one there.
  void throw_bad(std::int64_t position) const {
    const segd s = shape();
    // The virtual segment holding `position`: the last one starting at or before it.
    std::int64_t lo = 0, hi = s.segments() - 1;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (s.start(mid) <= position) lo = mid;
      else hi = mid - 1;
    }
    const std::int64_t k = lo, i = position - s.start(k);
    const std::int64_t index = static_cast<std::int64_t>(iss_[k][static_cast<std::size_t>(i)]);
    if (detail::in_range(index, xss_.length(k))) return;
    detail::throw_out_of_range("index_l", "index ", iss_[k][static_cast<std::size_t>(i)],
                               " at position ", i, " of segment ", k,
                               " outside that segment's length ", xss_.length(k));
  }
  operator nested<T>() const { return detail::materialize(*this); }

 private:
  nested<T> xss_;
  nested<I> iss_;
};

// Delayed element-wise combination of two nested expressions of one shape.
template <class F, nested_expression A, nested_expression B>
class zip_with_expr {
 public:
  using value_type = std::remove_cvref_t<
      std::invoke_result_t<const F&, typename A::value_type, typename B::value_type>>;
  zip_with_expr(F f, A a, B b) : f_(std::move(f)), a_(std::move(a)), b_(std::move(b)) {
    shape_ = a_.shape();
    const segd sb = b_.shape();
    if (!(shape_.lengths().data() == sb.lengths().data() &&
          shape_.lengths().size() == sb.lengths().size()) &&
        !(shape_ == sb))
      detail::throw_invalid("zip_with", "the nested arrays differ in shape (",
                            shape_.segments(), " and ", sb.segments(), " segments, ",
                            shape_.elements(), " and ", sb.elements(), " elements)");
  }
  segd shape() const { return shape_; }
  auto cursor(std::int64_t k, detail::first_bad* bad, std::int64_t base) const {
    using CA = decltype(a_.cursor(k, bad, base));
    using CB = decltype(b_.cursor(k, bad, base));
    return detail::zip_cursor<F, CA, CB>{&f_, a_.cursor(k, bad, base), b_.cursor(k, bad, base)};
  }
  void throw_bad(std::int64_t position) const {
    a_.throw_bad(position);
    b_.throw_bad(position);
  }
  // Flat when both operands are. O(1).
  bool flat() const noexcept
    requires flat_expression<A> && flat_expression<B>
  {
    return a_.flat() && b_.flat();
  }
  auto flat_cursor(detail::first_bad* bad) const
    requires flat_expression<A> && flat_expression<B>
  {
    using CA = decltype(a_.flat_cursor(bad));
    using CB = decltype(b_.flat_cursor(bad));
    return detail::zip_cursor<F, CA, CB>{&f_, a_.flat_cursor(bad), b_.flat_cursor(bad)};
  }
  operator nested<value_type>() const { return detail::materialize(*this); }

 private:
  F f_;
  A a_;
  B b_;
  segd shape_;
};

// Lifted indexing: [xss[k][is[k]] | k]. Reads only the elements it returns.
// Throws std::out_of_range for an index outside its segment.
template <class T>
array<T> index_l(const nested<T>& xss, const array<std::int64_t>& is) {
  if (is.size() != xss.size())
    detail::throw_invalid("index_l", "the nested array has ", xss.size(),
                          " segments but there are ", is.size(), " indices");
  auto out = buffer<T>::for_overwrite(is.size());
  T* o = out.data();
  const std::int64_t* ix = is.data();
  detail::first_bad bad;
  if (xss.descriptor_segments() == 1) {
    // One physical segment (replicate, treeLookup's table): a plain checked
    // gather, with no descriptor read per element (the per-element chain of
    // dependent descriptor loads left few gathers in flight).
    const T* src = xss.blocks()[static_cast<std::size_t>(xss.physical_sources()[0])].data() +
                   xss.physical_starts()[0];
    const std::int64_t len = xss.physical_lengths()[0];
    // Captured by value: the stores to o cannot then alias them, and the
    // loop stays as short as the flat gather's (more misses in flight).
    detail::parallel_for(is.size(), [o, ix, src, len, &bad](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t k = lo; k < hi; ++k) {
        if (detail::in_range(ix[k], len)) [[likely]] o[k] = src[ix[k]];
        else bad.note(k);
      }
    });
  } else {
    detail::parallel_for(is.size(), [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t k = lo; k < hi; ++k) {
        auto seg = xss[k];
        if (detail::in_range(ix[k], static_cast<std::int64_t>(seg.size()))) o[k] = seg[static_cast<std::size_t>(ix[k])];
        else bad.note(k);
      }
    });
  }
  if (bad.any()) {
    const std::int64_t k = bad.position();
    detail::throw_out_of_range("index_l", "index ", is[k], " outside segment ", k, " of length ",
                               xss.length(k));
  }
  return std::move(out).freeze();
}

// Lifted indexing: [[xss[k][i] | i <- iss[k]] | k], delayed: it converts to
// nested<T>, or fuses into zip_with, sum_s and fold_s without writing the
// gathered elements. O(result elements) when evaluated. The indices may be
// of any integer type.
template <class T, std::integral I>
index_l_expr<T, I> index_l(const nested<T>& xss, const nested<I>& iss) {
  return {xss, iss};
}

// Element-wise f over two nested arrays (or delayed forms) of the same shape,
// delayed. Throws std::invalid_argument when the shapes differ.
template <class F, nested_expression A, nested_expression B>
zip_with_expr<F, A, B> zip_with(F f, const A& a, const B& b) {
  return {std::move(f), a, b};
}

// The expression materialised as a nested array.
template <nested_expression E>
nested<typename E::value_type> force(const E& e) {
  return detail::materialize(e);
}

template <nested_expression E>
std::vector<std::vector<typename E::value_type>> to_vectors(const E& e) {
  return to_vectors(detail::materialize(e));
}

// ---------------------------------------------------------------------------
// Consumers of whole segments.

// Per virtual segment, the fold with the monoid. Each reachable physical
// segment is reduced once, then the results are gathered by vsegids.
// O(reachable physical elements + virtual segments).
template <class T, class Monoid>
array<T> fold_s(const nested<T>& xss, const Monoid& m) {
  const nested<T> c = xss.cull();
  const auto phys = c.physical();
  auto per_physical = buffer<T>::for_overwrite(phys.descriptor.segments());
  detail::fold_segments<T>(
      phys.descriptor.segments(), phys.descriptor.elements(),
      [&](std::int64_t p) { return phys.descriptor.end(p); },
      [&](std::int64_t p, std::int64_t lo, std::int64_t hi, T acc) {
        const std::int64_t st = phys.descriptor.start(p);
        return detail::fold_range(phys.base[static_cast<std::size_t>(p)], lo - st, hi - st, acc, m);
      },
      m, per_physical.data());
  return bpermute_unchecked(std::move(per_physical).freeze(), c.vsegids());
}

// Per segment of a delayed expression, the fold with the monoid, fused: the
// expression's elements are never written. O(elements + segments). A flat
// expression (flat() true) runs detail::fold_flat, which reads no
// per-segment descriptor but the shape's starts.
template <nested_expression E, class Monoid>
  requires(!std::same_as<E, nested<typename E::value_type>>)
array<typename E::value_type> fold_s(const E& e, const Monoid& m) {
  using T = typename E::value_type;
  const segd s = e.shape();
  auto out = buffer<T>::for_overwrite(s.segments());
  detail::first_bad bad;
  if constexpr (flat_expression<E>) {
    // Flat (SpMV's shape): a CSR-like loop with no per-segment descriptor reads.
    if (e.flat()) {
      detail::fold_flat<T>(s, e.flat_cursor(&bad), m, out.data());
      if (bad.any()) detail::throw_expression_error(e, bad.position());
      return std::move(out).freeze();
    }
  }
  detail::fold_segments<T>(
      s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
      [&](std::int64_t j, std::int64_t lo, std::int64_t hi, T acc) {
        const std::int64_t start = s.start(j);
        auto c = e.cursor(j, &bad, start);
        for (std::int64_t k = lo - start; k < hi - start; ++k) acc = m(acc, c(k));
        return acc;
      },
      m, out.data());
  if (bad.any()) detail::throw_expression_error(e, bad.position());
  return std::move(out).freeze();
}

// fold_s with an explicit initial value and binary operation (init must be
// the operation's identity).
template <class E, class Op>
  requires nested_expression<E>
array<typename E::value_type> fold_s(const E& e, typename E::value_type init, Op op) {
  return fold_s(e, make_monoid(std::move(op), std::move(init)));
}

// Per virtual segment, the sum of its elements.
template <nested_expression E>
array<typename E::value_type> sum_s(const E& e) {
  return fold_s(e, plus<typename E::value_type>{});
}

// Per virtual segment, the exclusive scan with the monoid. Each reachable
// physical segment is scanned once; the result keeps the virtual descriptor.
// O(reachable physical elements + segments).
template <class T, class Monoid>
nested<T> scan_s(const nested<T>& xss, const Monoid& m) {
  const nested<T> c = xss.cull();
  const auto phys = c.physical();
  auto out = buffer<T>::for_overwrite(phys.descriptor.elements());
  T* o = out.data();
  detail::scan_segments<T>(
      phys.descriptor.segments(), phys.descriptor.elements(),
      [&](std::int64_t p) { return phys.descriptor.end(p); },
      [&](std::int64_t p, std::int64_t lo, std::int64_t hi, T acc) {
        const std::int64_t st = phys.descriptor.start(p);
        return detail::fold_range(phys.base[static_cast<std::size_t>(p)], lo - st, hi - st, acc, m);
      },
      [&](std::int64_t p, std::int64_t lo, std::int64_t hi, T acc) {
        const T* base = phys.base[static_cast<std::size_t>(p)];
        const std::int64_t st = phys.descriptor.start(p);
        for (std::int64_t k = lo; k < hi; ++k) {
          const T x = base[k - st];
          o[k] = acc;
          acc = m(acc, x);
        }
        return acc;
      },
      m);
  return c.with_physical_data(std::move(out).freeze());
}

// Per virtual segment, the exclusive sum scan.
template <class T>
nested<T> scan_s(const nested<T>& xss) {
  return scan_s(xss, plus<T>{});
}

// [[f(x) | x <- xs] | xs <- xss], applied once per reachable physical
// element; the result keeps the descriptor. O(reachable physical elements).
template <class F, class T>
auto map(F f, const nested<T>& xss) {
  using U = std::remove_cvref_t<std::invoke_result_t<F&, const T&>>;
  const nested<T> c = xss.cull();
  const auto phys = c.physical();
  auto out = buffer<U>::for_overwrite(phys.descriptor.elements());
  U* o = out.data();
  detail::for_each_segment_piece(phys.descriptor.segments(), phys.descriptor.elements(),
                                 [&](std::int64_t p) { return phys.descriptor.end(p); },
                                 [&](std::int64_t p, std::int64_t lo, std::int64_t hi) {
                                   const T* base = phys.base[static_cast<std::size_t>(p)];
                                   const std::int64_t st = phys.descriptor.start(p);
                                   for (std::int64_t k = lo; k < hi; ++k) o[k] = f(base[k - st]);
                                 });
  // The new data has c's physical layout; rebuild with U elements.
  const segd pd = phys.descriptor;
  auto r = nested<U>::from_descriptors({std::move(out).freeze()}, fill<std::int64_t>(pd.segments(), 0),
                                       pd.starts(), pd.lengths(), c.vsegids());
  return r;
}

// All virtual elements, in order: the only operation that materialises
// replication. Throws std::overflow_error when there are more than 2^63-1.
// O(virtual elements).
template <class T>
array<T> concat(const nested<T>& xss) {
  virtual_elements(xss);  // throws before any allocation when too large
  const segd s = xss.shape();
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  detail::for_each_segment_piece(s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
                                 [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                                   const T* src = xss[j].data();
                                   const std::int64_t start = s.start(j);
                                   for (std::int64_t k = lo; k < hi; ++k) o[k] = src[k - start];
                                 });
  return std::move(out).freeze();
}

// The delayed expression's elements, in order.
template <nested_expression E>
  requires(!std::same_as<E, nested<typename E::value_type>>)
array<typename E::value_type> concat(const E& e) {
  return concat(detail::materialize(e));
}

// flat cut into the segments of shape: [[flat[..]] | same lengths as shape].
// Throws std::invalid_argument unless shape has flat.size() virtual elements.
template <class U, class T>
nested<T> unconcat(const nested<U>& shape, const array<T>& flat) {
  const segd s = shape.shape();
  if (s.elements() != flat.size())
    detail::throw_invalid("unconcat", "the shape holds ", s.elements(),
                          " elements but the flat array has ", flat.size());
  return nested<T>::from_segd(s, flat);
}

// [xss[k] ++ yss[k] | k]: segment-wise append (copies the elements).
// O(result elements + segments).
template <class T>
nested<T> append_l(const nested<T>& xss, const nested<T>& yss) {
  if (xss.size() != yss.size())
    detail::throw_invalid("append_l", "the nested arrays have ", xss.size(), " and ", yss.size(),
                          " segments");
  const array<std::int64_t> la = xss.lengths(), lb = yss.lengths();
  const segd s = segd::from_lengths(zip_with([](std::int64_t a, std::int64_t b) { return a + b; }, la, lb));
  auto out = buffer<T>::for_overwrite(s.elements());
  T* o = out.data();
  detail::for_each_segment_piece(s.segments(), s.elements(), [&](std::int64_t j) { return s.end(j); },
                                 [&](std::int64_t j, std::int64_t lo, std::int64_t hi) {
                                   const std::int64_t start = s.start(j);
                                   const std::int64_t split = start + la[j];
                                   const T* a = xss[j].data();
                                   const T* b = yss[j].data();
                                   for (std::int64_t k = lo; k < hi; ++k)
                                     o[k] = k < split ? a[k - start] : b[k - split];
                                 });
  return nested<T>::from_segd(s, std::move(out).freeze());
}

}  // namespace vseg
