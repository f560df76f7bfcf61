// The lengths of a uniform descriptor kept as a splat, and the ops NESL's
// SEGPERMUTE applies to them answered without writing them out.
//
// NESL reorders the f copies of a nested vector of n segments of k (BFS's
// adjacency, free in an apply-to-each over a frontier of f vertices) by
// SEGPERMUTE: LENGTHS of the f*n-segment descriptor, a PERMUTE of those
// lengths, +_SCAN of them, and a MAKE_SEGDES of the permuted lengths
// (PARTITION). The descriptor is uniform (every segment k long), so its
// lengths are one value repeated: a splat, O(1). PERMUTE of a splat is the
// splat (once its index is checked to be a permutation), +_SCAN of it over
// one segment the sequence 0, k, 2k, ... and +_REDUCE of it k * f * n
// (both wrapping, as VCODE's INTs do), and MAKE_SEGDES of it uniform again
// (descriptor_of_one_length): none writes f*n INTs.
#include <cstdint>
#include <vector>

#include "machine.hpp"
#include "scalar.hpp"
#include "value.hpp"

namespace vseg::vcode::detail {

bool machine::lengths_as_splat() {  // segd
  need(1);
  const value& v = at(0);
  if (v.which() != value::segdes) return false;
  const segd& s = v.as<segd>();
  const std::int64_t k = s.uniform_length();
  // Small descriptors keep their stored lengths (and the cached pair).
  if (k < 0 || s.segments() < lazy_min) return false;
  return finish(1, value::splat(static_cast<std::int32_t>(k), s.segments())), true;
}

bool machine::permute_splat() {  // data index segd
  need(3);
  const value& data = at(2);
  if (data.which() != value::int_ || data.splat_scalar<std::int32_t>() == nullptr) return false;
  if (at(1).which() != value::int_ || at(0).which() != value::segdes) return false;
  const int_vec& index = ints(3, 2);
  const segd& s = segdes(3, 3);
  if (index.size() != data.length() || s.elements() != data.length()) return false;  // errors: the plain path
  // Each segment's indices must be a permutation of it: checked in n reads
  // and n bits; anything else is left to the plain PERMUTE, which reports it.
  value& index_value = *stack_[stack_.size() - 2];
  const bool one = s.segments() == 1;
  if (!(one && index_value.known_permutation())) {
    std::vector<bool> seen(static_cast<std::size_t>(index.size()), false);
    for (std::int64_t j = 0; j < s.segments(); ++j) {
      const std::int64_t start = s.start(j), len = s.length(j);
      for (std::int64_t i = start; i < start + len; ++i) {
        const std::int64_t x = index[i];
        if (x < 0 || x >= len || seen[static_cast<std::size_t>(start + x)]) return false;
        seen[static_cast<std::size_t>(start + x)] = true;
      }
    }
    if (one) index_value.mark_permutation();
  }
  return finish(3, slot(stack_[stack_.size() - 3])), true;
}

namespace {

// The scalar of an INT splat of one value over one segment (data segd on
// top of the stack, `top` the segd), or nullptr.
const std::int32_t* splat_over_one_segment(const value& data, const value& top) {
  const std::int32_t* x = data.which() == value::int_ ? data.splat_scalar<std::int32_t>() : nullptr;
  if (x == nullptr || top.which() != value::segdes) return nullptr;
  const segd& s = top.as<segd>();
  return s.segments() == 1 && s.elements() == data.length() ? x : nullptr;
}

}  // namespace

bool machine::plus_scan_of_splat() {  // data segd
  need(2);
  const std::int32_t* x = splat_over_one_segment(at(1), at(0));
  const std::int64_t n = at(1).length();
  if (x == nullptr || n < lazy_min) return false;
  return finish(2, value::sequence(0, *x, n)), true;
}

bool machine::plus_reduce_of_splat() {  // data segd
  need(2);
  const std::int32_t* x = splat_over_one_segment(at(1), at(0));
  if (x == nullptr) return false;
  const std::int32_t sum = wrap(bits(*x) * static_cast<std::uint32_t>(at(1).length()));
  return finish(2, value{int_vec{sum}}), true;
}

}  // namespace vseg::vcode::detail
