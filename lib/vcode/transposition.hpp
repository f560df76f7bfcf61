// Lazy INDEX values that transpose a matrix, and the PERMUTE by one
// (transposition.cpp): NESL's TRANSPOSE-INDEX and SEGPERMUTE's index.
#pragma once

#include <cstdint>

#include "value.hpp"
#include "vseg/segd.hpp"

namespace vseg::vcode::detail {

// A lazy INDEX that transposes m segments of one length L (SEGPERMUTE's
// index: an `affine` with starts 0, 1, ..., m - 1 and strides m, or NESL's
// TRANSPOSE-INDEX of one group): element j is j / L + (j % L) * m, a
// permutation of [0, m L). Its shape, or nullptr for anything else. O(m).
const segd* uniform_transposition(const value& index);

// out[c * m + r] = in[r * len + c] for r < m, c < len: the len x m
// transpose of the m x len matrix `in`, in cache-sized tiles, in parallel.
// O(m * len).
template <class T>
void transpose_into(const T* in, std::int64_t m, std::int64_t len, T* out);

}  // namespace vseg::vcode::detail
