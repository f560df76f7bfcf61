// PERMUTE by a lazy transposing INDEX over one segment, done as a tiled
// transpose: no index is written or read and no permutation check runs
// (the index is a permutation by construction). radix transposes its
// 1000 x 256 count matrix and back this way (GET_OFFSETS: TRANSPOSE,
// +_SCAN, TRANSPOSE); the checked scatter wrote out the index and stored
// the elements at a 4 KB stride with a byte mark each.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <variant>

#include "lazy.hpp"
#include "machine.hpp"
#include "transposition.hpp"
#include "value.hpp"
#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/tuning.hpp"

namespace vseg::vcode::detail {

const segd* uniform_transposition(const value& index) {
  const lazy_vector* l = index.lazy();
  if (l == nullptr) return nullptr;
  if (const auto* x = std::get_if<transposed>(&l->form))
    return x->groups.segments() == 1 && x->shape.uniform_length() > 0 ? &x->shape : nullptr;
  const auto* a = std::get_if<affine>(&l->form);
  if (a == nullptr || a->shape.uniform_length() <= 0) return nullptr;
  const std::int64_t m = a->shape.segments();
  for (std::int64_t i = 0; i < m; ++i)
    if (a->starts[i] != i || a->strides[i] != m) return nullptr;
  return &a->shape;
}

template <class T>
void transpose_into(const T* in, std::int64_t m, std::int64_t len, T* out) {
  // A tile of 32 x 32 elements reads 32 source rows and writes 32 result
  // rows, each a few cache lines: both stay in L1 while the tile is done.
  constexpr std::int64_t tile = 32;
  const std::int64_t row_tiles = (m + tile - 1) / tile;
  const std::int64_t per_task = std::max<std::int64_t>(1, tuning::serial_cutoff / (tile * len));
  vseg::detail::parallel_for(row_tiles, per_task, [=](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t rt = lo; rt < hi; ++rt) {
      const std::int64_t r0 = rt * tile;
      const std::int64_t r1 = std::min(m, r0 + tile);
      for (std::int64_t c0 = 0; c0 < len; c0 += tile) {
        const std::int64_t c1 = std::min(len, c0 + tile);
        for (std::int64_t c = c0; c < c1; ++c)
          for (std::int64_t r = r0; r < r1; ++r) out[c * m + r] = in[r * len + c];
      }
    }
  });
}

template <class T>
bool machine::permute_transposition() {  // data index segd
  need(3);
  if (at(2).which() != vec_of<T>::kind || at(1).which() != value::int_ || at(0).which() != value::segdes)
    return false;
  const segd* shape = uniform_transposition(at(1));
  if (shape == nullptr || at(0).as<segd>().segments() != 1 || at(1).length() != shape->elements()) return false;
  // Its elements are INDEX's INTs: past INT's range they wrap and are no
  // permutation; the plain PERMUTE reports that.
  if (shape->elements() > std::numeric_limits<std::int32_t>::max()) return false;
  const std::int64_t index_length = at(1).length();
  const auto& data = vec<T>(3, 1);
  const segd& s = segdes(3, 3);
  // The checks and messages of the plain PERMUTE (permute_ops.cpp).
  same_length(data.size(), index_length, "the data", "the indices");
  covers(s, data.size(), "the data");
  const std::int64_t m = shape->segments();
  const std::int64_t len = shape->uniform_length();
  auto out = buffer<T>::for_overwrite(data.size());
  transpose_into(data.data(), m, len, out.data());
  finish(3, wrap_value(std::move(out).freeze()));
  return true;
}

template void transpose_into<std::int32_t>(const std::int32_t*, std::int64_t, std::int64_t, std::int32_t*);
template void transpose_into<bool>(const bool*, std::int64_t, std::int64_t, bool*);
template void transpose_into<double>(const double*, std::int64_t, std::int64_t, double*);
template bool machine::permute_transposition<std::int32_t>();
template bool machine::permute_transposition<bool>();
template bool machine::permute_transposition<double>();

}  // namespace vseg::vcode::detail
