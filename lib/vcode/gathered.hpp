// A deferred gather: BPERMUTE's result kept as its source and its index.
//
// Barnes-Hut (NESL's bh.nesl) reads the 19 fields of a tree node for every
// (body, node) pair it looks at: 19 flat BPERMUTE FLOATs by one index of
// 122k-400k elements from a 29,409-node tree. Written out, each is a fresh
// 1-3 MB vector that the next element-wise op reads back once; the tree
// itself fits in L2. Kept as (source, index), an element-wise op reads
// source[index[j]] block by block (lazy.hpp's write_range) and the gathered
// vector is never written; any other reader writes it out (machine::arg),
// once: the first writing out is kept, so a value shared by several stack
// entries is gathered once however many of them are materialised.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include <boost/smart_ptr/intrusive_ptr.hpp>

#include "value.hpp"

namespace vseg::vcode::detail {

// Element j is source[index[j]]: one source segment gathered into one
// destination segment. Every index was checked to lie in [0, source's
// length) when the value was made, so reading it needs no check.
struct gathered {
  boost::intrusive_ptr<value> source;  // a stored vector
  int_vec index;
  // The elements once written out (materialised), shared by every entry
  // holding this value; empty until then. A memo of a pure function of the
  // two fields above, so setting it does not change what the value is.
  std::shared_ptr<std::optional<value>> written = std::make_shared<std::optional<value>>();

  // The written-out vector of T's, or nullptr before the first writing out.
  template <class T>
  const array<T>* written_as() const noexcept {
    return written->has_value() ? &(*written)->template as<array<T>>() : nullptr;
  }
};

// The deferred gather a value is, or nullptr.
const gathered* gather_of(const value& v) noexcept;

// Indices composed recently, so that the 19-22 fields of a node moved by
// one index (Barnes-Hut PERMUTEs and BPERMUTEs them one by one) compose it
// once. An entry holds its three arrays, so a buffer seen again is the
// same buffer with the same elements (a held buffer is never written in
// place); up to `capacity` entries (a few MB), not counted by -m.
class composed_indices {
 public:
  // result[outer[j]] = inner[j] (PERMUTE), or result[j] = inner[outer[j]] (BPERMUTE).
  enum class by : std::uint8_t { permute, bpermute };
  // The composition remembered for these buffers, or nullptr. O(capacity).
  const int_vec* find(const int_vec& inner, const int_vec& outer, by how) const noexcept {
    for (const entry& e : recent_)
      if (e.how == how && e.inner.data() == inner.data() && e.inner.size() == inner.size() &&
          e.outer.data() == outer.data() && e.outer.size() == outer.size() && e.result.size() == outer.size())
        return &e.result;
    return nullptr;
  }
  // Remembers a composition, forgetting the oldest. O(1).
  void remember(int_vec inner, int_vec outer, by how, int_vec result) {
    recent_[next_] = entry{std::move(inner), std::move(outer), how, std::move(result)};
    next_ = (next_ + 1) % capacity;
  }
  // Whether every element of ix is known to lie in [0, size): the last
  // index checked, against a bound at most size (the 19 gathers of a node's
  // fields by one index check it once). O(1).
  bool known_in_range(const int_vec& ix, std::int64_t size) const noexcept {
    return checked_.data() == ix.data() && checked_.size() == ix.size() && checked_bound_ <= size;
  }
  void remember_in_range(int_vec ix, std::int64_t size) {
    checked_ = std::move(ix);
    checked_bound_ = size;
  }

 private:
  static constexpr std::size_t capacity = 4;
  struct entry {
    int_vec inner;
    int_vec outer;
    by how = by::permute;
    int_vec result;
  };
  std::array<entry, capacity> recent_{};
  std::size_t next_ = 0;
  int_vec checked_;
  std::int64_t checked_bound_ = 0;
};

// source[index[lo..hi)] written to out. O(hi - lo).
template <class T>
void write_gathered(const gathered& g, std::int64_t lo, std::int64_t hi, T* out) {
  if (const array<T>* w = g.written_as<T>()) {
    const T* d = w->data();
    for (std::int64_t j = lo; j < hi; ++j) out[j - lo] = d[j];
    return;
  }
  const T* s = g.source->as<array<T>>().data();
  const std::int32_t* ix = g.index.data();
  for (std::int64_t j = lo; j < hi; ++j) out[j - lo] = s[ix[j]];
}

// The gathered vector, written out on the first call (in parallel blocks)
// and kept; later calls share it. O(index) the first time, O(1) after.
template <class T>
array<T> written_out(const gathered& g);

}  // namespace vseg::vcode::detail
