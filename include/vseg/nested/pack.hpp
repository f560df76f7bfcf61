// pack on nested arrays: a descriptor operation, no element is copied.
#pragma once

#include <cstdint>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/flat.hpp"
#include "vseg/nested/nested.hpp"

namespace vseg {

// The virtual segments whose flag is true. O(virtual segments). Throws
// std::invalid_argument unless there is one flag per segment.
template <class T>
nested<T> pack(const nested<T>& xss, const array<bool>& flags) {
  if (flags.size() != xss.size())
    detail::throw_invalid("pack", "flags has size ", flags.size(), " but the nested array has ",
                          xss.size(), " segments");
  return xss.with_vsegids_unchecked(pack(xss.vsegids(), flags));
}

}  // namespace vseg
