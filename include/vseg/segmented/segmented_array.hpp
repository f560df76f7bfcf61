// segmented_array<T>: flat data with the contiguous descriptor of its
// segments, the result of the segmented primitives that change the shape
// (pack_s, append_s, bpermute_s).
#pragma once

#include "vseg/array.hpp"
#include "vseg/segd.hpp"

namespace vseg {

template <class T>
struct segmented_array {
  segd descriptor;
  array<T> data;
};

}  // namespace vseg
