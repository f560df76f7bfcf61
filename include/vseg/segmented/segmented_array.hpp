// segmented_array<T>: flat data with the contiguous descriptor of its
// segments, the result of the segmented primitives that change the shape
// (pack_s, append_s, bpermute_s, split_s, partition_s).
//
// It is the contiguous representation; nested<T> is the virtual one (shared
// and scattered segments). The two convert at no copy where the layout
// allows: nested<T>::from_segmented / to_nested(xs) share xs.data (O(1));
// to_segmented(xss) (vseg/nested/concat.hpp) shares the data of a flat
// nested array and copies (concat) only when segments are shared or
// scattered.
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
