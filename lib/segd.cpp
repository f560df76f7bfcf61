#include "vseg/segd.hpp"

#include <atomic>
#include <limits>
#include <vector>

#include "vseg/detail/parallel.hpp"
#include "vseg/flat/scan.hpp"
#include "vseg/flat/tabulate.hpp"

namespace vseg {

segd segd::from_lengths(array<std::int64_t> lengths) {
  const std::int64_t m = lengths.size();
  // The first negative length, if any (searched in parallel, reported in order).
  std::atomic<std::int64_t> first_negative{m};
  detail::parallel_for(m, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t j = lo; j < hi; ++j)
      if (lengths[j] < 0) {
        std::int64_t seen = first_negative.load(std::memory_order_relaxed);
        while (j < seen && !first_negative.compare_exchange_weak(seen, j)) {
        }
        break;
      }
  });
  if (const std::int64_t j = first_negative.load(); j < m)
    detail::throw_invalid("segd::from_lengths", "segment ", j, " has negative length ",
                          lengths[j]);
  // Sum with an overflow check per block: lengths are non-negative, so the
  // total overflows iff some prefix does; saturate instead of wrapping.
  struct saturating_plus {
    static constexpr std::int64_t identity() { return 0; }
    std::int64_t operator()(std::int64_t a, std::int64_t b) const {
      std::int64_t r;
      if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &r)) return -1;
      return r;
    }
  };
  auto scanned = scan_with_total(lengths, saturating_plus{});
  if (scanned.total < 0)
    detail::throw_overflow("segd::from_lengths", "the ", m,
                           " lengths sum to more than 2^63-1 elements");
  segd s;
  s.lengths_ = std::move(lengths);
  s.starts_ = std::move(scanned.prefixes);
  s.elements_ = scanned.total;
  return s;
}

segd segd::single(std::int64_t n) { return from_lengths(array<std::int64_t>{n}); }

segd segd::uniform(std::int64_t n, std::int64_t each) {
  if (n < 0) detail::throw_invalid("segd::uniform", "negative segment count ", n);
  if (each < 0) detail::throw_invalid("segd::uniform", "negative segment length ", each);
  if (each > 0 && n > std::numeric_limits<std::int64_t>::max() / each)
    detail::throw_overflow("segd::uniform", n, " segments of length ", each,
                           " exceed 2^63-1 elements");
  return from_lengths(fill(n, each));
}

void check_covers(const char* operation, const segd& s, std::int64_t n) {
  if (s.elements() != n)
    detail::throw_invalid(operation, "the segment descriptor covers ", s.elements(),
                          " elements but the data has ", n);
}

}  // namespace vseg
