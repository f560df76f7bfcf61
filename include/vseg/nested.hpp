// vseg::nested<T>: nested arrays with virtual segments, and their lifted
// operations. One header per concept under vseg/nested/:
//
//   ssegd.hpp       the scattered segment descriptor (blocks, starts, lengths)
//   vsegd.hpp       the virtual segment descriptor (vsegids over an ssegd)
//   nested.hpp      nested<T>: data blocks plus a vsegd; to_vectors, virtual_elements
//   protocol.hpp    the fusion protocol of delayed expressions (internal)
//   expression.hpp  index_l, zip_with (delayed) and their expression types
//   physical.hpp    the reachable physical segments as one space (internal)
//   fold.hpp        fold_s, sum_s, scan_s
//   map.hpp         map
//   concat.hpp      concat, unconcat, append_l
//   replicate.hpp   replicate, expand
//   pack.hpp        pack
//   combine.hpp     combine2, append
//   extract.hpp     extract, slice_l
//
// Every operation on descriptors (replicate, expand, pack, combine2, append,
// extract, slice_l) copies no element; concat is the only operation that
// materialises replication. Invariants and work bounds: notes/nested.md.
#pragma once

#include "vseg/nested/combine.hpp"
#include "vseg/nested/concat.hpp"
#include "vseg/nested/expression.hpp"
#include "vseg/nested/extract.hpp"
#include "vseg/nested/fold.hpp"
#include "vseg/nested/map.hpp"
#include "vseg/nested/nested.hpp"
#include "vseg/nested/pack.hpp"
#include "vseg/nested/protocol.hpp"
#include "vseg/nested/replicate.hpp"
#include "vseg/nested/ssegd.hpp"
#include "vseg/nested/vsegd.hpp"
