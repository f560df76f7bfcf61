// PERMUTE over one segment by a lazy INDEX of stride 1 in every segment:
// whole runs moved, not elements scattered. NESL's SEGPERMUTE permutes the
// segments of a nested sequence as PERMUTE_NOCHECK of the data by
// POSITIONS-FROM-OFFSETS, an INDEX whose segment t counts up from the new
// start of source segment t (Barnes-Hut: 40 such PERMUTEs of ~1.2M elements
// in segments of ~8). The plain PERMUTE writes that index out, reads it, and
// marks every element to check that it is a permutation; here each run is
// copied to its start, and the check marks two bytes per run.
//
// The check. Let the non-empty runs be [s_t, e_t), e_t = s_t + len_t, all
// inside [0, n), their lengths summing to n (the INDEX's shape covers n).
// They cover [0, n) once each if and only if starts + {n} = ends + {0} as
// sets. If so, 0 is a start (n > 0), and a smallest uncovered position p
// would end the run that covers p - 1, so p would be a start too, and
// covered: nothing is uncovered, and n positions covered by runs of total
// length n are covered once each. The starts and ends are marked in two
// byte arrays of n + 1 and compared.
//
// Anything else (a run out of range, runs that overlap or leave a gap, an
// index past INT's range) is left to the plain PERMUTE, which reports it.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <cstdint>
#include <limits>
#include <variant>

#include "lazy.hpp"
#include "machine.hpp"
#include "runs.hpp"
#include "segment_moves.hpp"
#include "value.hpp"
#include "vseg/array.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/segd.hpp"
#include "vseg/tuning.hpp"

namespace vseg::vcode::detail {

// A byte per position marks the runs' starts, another their ends: a store
// of one byte each (a relaxed atomic, so that two runs marking one position
// is no data race), where a bit would need a locked read-modify-write (a
// bitmap took 2-3.7 ms against ~1 ms on Barnes-Hut's 290K runs, timed in a
// temporary build).
bool runs_partition(const segd& shape, const std::int32_t* starts, const std::int32_t* strides, std::int64_t n) {
  if (shape.elements() != n) return false;  // the check below needs runs of total length n
  const std::int64_t m = shape.segments();
  auto begins = buffer<std::uint8_t>::for_overwrite(n + 1);
  auto ends = buffer<std::uint8_t>::for_overwrite(n + 1);
  std::uint8_t* b = begins.data();
  std::uint8_t* e = ends.data();
  vseg::detail::parallel_for(n + 1, tuning::elementwise_grain, [=](std::int64_t lo, std::int64_t hi) {
    std::fill(b + lo, b + hi, std::uint8_t{0});
    std::fill(e + lo, e + hi, std::uint8_t{0});
  });
  std::atomic<bool> outside{false};
  const std::int64_t grain = std::max<std::int64_t>(1, tuning::elementwise_grain / 4);
  vseg::detail::parallel_for(m, grain, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t t = lo; t < hi; ++t) {
      const std::int64_t len = shape.length(t);
      if (len == 0) continue;
      const std::int64_t first = starts[t];
      if (strides[t] != 1 || first < 0 || first + len > n) {
        outside.store(true, std::memory_order_relaxed);
        return;
      }
      std::atomic_ref<std::uint8_t>(b[first]).store(1, std::memory_order_relaxed);
      std::atomic_ref<std::uint8_t>(e[first + len]).store(1, std::memory_order_relaxed);
    }
  });
  if (outside.load()) return false;
  // starts + {n} = ends + {0}
  b[n] = 1;
  e[0] = 1;
  std::atomic<bool> differ{false};
  vseg::detail::parallel_for(n + 1, tuning::elementwise_grain, [&](std::int64_t lo, std::int64_t hi) {
    if (std::memcmp(b + lo, e + lo, static_cast<std::size_t>(hi - lo)) != 0) differ.store(true, std::memory_order_relaxed);
  });
  return !differ.load();
}

template <class T>
bool machine::permute_by_segment_moves() {  // data index segd
  need(3);
  if (at(2).which() != vec_of<T>::kind || at(1).which() != value::int_ || at(0).which() != value::segdes)
    return false;
  const lazy_vector* l = at(1).lazy();
  if (l == nullptr || at(0).as<segd>().segments() != 1) return false;
  const auto* a = std::get_if<affine>(&l->form);
  if (a == nullptr || a->shape.elements() != at(1).length()) return false;
  const segd& shape = a->shape;
  const std::int64_t m = shape.segments();
  const std::int64_t n = shape.elements();
  // Its elements are INDEX's INTs: past INT's range they wrap.
  if (n > std::numeric_limits<std::int32_t>::max()) return false;
  const std::int32_t* starts = a->starts.data();
  if (!runs_partition(shape, starts, a->strides.data(), n)) return false;
  const auto& data = vec<T>(3, 1);
  const segd& s = segdes(3, 3);
  // The checks and messages of the plain PERMUTE (permute_ops.cpp).
  same_length(data.size(), n, "the data", "the indices");
  covers(s, data.size(), "the data");
  auto out = buffer<T>::for_overwrite(n);
  const T* d = data.data();
  T* o = out.data();
  const std::int64_t per = m > 0 ? std::max<std::int64_t>(1, n / m) : 1;
  vseg::detail::parallel_for(m, std::max<std::int64_t>(1, tuning::elementwise_grain / per),
                             [&](std::int64_t lo, std::int64_t hi) {
                               for (std::int64_t t = lo; t < hi; ++t) {
                                 copy_run(d + shape.start(t), shape.length(t), o + starts[t]);
                               }
                             });
  finish(3, wrap_value(std::move(out).freeze()));
  return true;
}

template bool machine::permute_by_segment_moves<std::int32_t>();
template bool machine::permute_by_segment_moves<bool>();
template bool machine::permute_by_segment_moves<double>();

}  // namespace vseg::vcode::detail
