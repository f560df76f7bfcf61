#include "vseg/segd.hpp"

#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/flat/tabulate.hpp"

namespace vseg {

namespace {

// a + b for non-negative a and b, or -1 when the sum overflows int64.
std::int64_t add_saturating(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &r)) return -1;
  return r;
}

// The smallest and largest length seen; uniform when they agree.
struct length_range {
  std::int64_t min = std::numeric_limits<std::int64_t>::max();
  std::int64_t max = -1;
  void add(const length_range& r) {
    min = r.min < min ? r.min : min;
    max = r.max > max ? r.max : max;
  }
  std::int64_t uniform() const { return min == max ? min : -1; }
};

// The sum of len[lo, hi) (-1 on overflow), copying the lengths to wide when
// it is given, noting the first negative length in `negative` and widening
// `range` by the lengths.
template <class L>
std::int64_t sum_lengths(std::span<const L> len, std::int64_t lo, std::int64_t hi, std::int64_t* wide,
                         detail::first_bad& negative, length_range& range) {
  std::int64_t sum = 0;
  bool overflow = false;
  std::int64_t least = range.min;
  std::int64_t most = range.max;
  for (std::int64_t j = lo; j < hi; ++j) {
    const auto l = static_cast<std::int64_t>(len[static_cast<std::size_t>(j)]);
    if constexpr (!std::is_same_v<L, std::int64_t>) wide[j] = l;
    if (l < 0) {
      negative.note(j);
      return 0;
    }
    least = l < least ? l : least;
    most = l > most ? l : most;
    // A block of int32 lengths cannot overflow int64; int64 ones can.
    if constexpr (sizeof(L) < sizeof(std::int64_t)) sum += l;
    else overflow = overflow || __builtin_add_overflow(sum, l, &sum);
  }
  range.min = least;
  range.max = most;
  return overflow ? -1 : sum;
}

struct built {
  array<std::int64_t> lengths;
  array<std::int64_t> starts;
  std::int64_t elements;
  std::int64_t uniform;
};

// The descriptor of the lengths len, in two passes over fixed blocks (sum and
// check per block; then the starts from each block's offset), or one serial
// pass below the cutoff. `lengths` is len itself when L is int64; otherwise
// the lengths are widened into a new array in the first pass.
template <class L>
built build(std::span<const L> len, array<std::int64_t> lengths) {
  const auto m = static_cast<std::int64_t>(len.size());
  constexpr bool widen = !std::is_same_v<L, std::int64_t>;
  buffer<std::int64_t> wide;
  if constexpr (widen) wide = buffer<std::int64_t>::for_overwrite(m);
  auto starts = buffer<std::int64_t>::for_overwrite(m);
  std::int64_t* st = starts.data();
  detail::first_bad negative;
  length_range range;
  std::int64_t total = 0;
  const std::int64_t block = tuning::flat_block;
  const std::int64_t blocks = detail::block_count(m, block);
  if (m <= tuning::serial_cutoff) {
    for (std::int64_t j = 0; j < m && total >= 0 && !negative.any(); ++j) {
      st[j] = total;
      total = add_saturating(total, sum_lengths(len, j, j + 1, wide.data(), negative, range));
    }
  } else {
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(blocks));
    std::vector<length_range> ranges(static_cast<std::size_t>(blocks));
    detail::for_each_block(m, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
      offsets[static_cast<std::size_t>(b)] =
          sum_lengths(len, lo, hi, wide.data(), negative, ranges[static_cast<std::size_t>(b)]);
    });
    for (const length_range& r : ranges) range.add(r);
    for (auto& o : offsets) {
      const std::int64_t sum = o;
      o = total;
      total = add_saturating(total, sum);
    }
    if (total >= 0 && !negative.any())
      detail::for_each_block(m, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
        std::int64_t run = offsets[static_cast<std::size_t>(b)];
        for (std::int64_t j = lo; j < hi; ++j) {
          st[j] = run;
          run += static_cast<std::int64_t>(len[static_cast<std::size_t>(j)]);
        }
      });
  }
  if (negative.any()) {
    const std::int64_t j = negative.position();
    detail::throw_invalid("segd::from_lengths", "segment ", j, " has negative length ",
                          static_cast<std::int64_t>(len[static_cast<std::size_t>(j)]));
  }
  if (total < 0)
    detail::throw_overflow("segd::from_lengths", "the ", m, " lengths sum to more than 2^63-1 elements");
  if constexpr (widen) lengths = std::move(wide).freeze();
  return {std::move(lengths), std::move(starts).freeze(), total, range.uniform()};
}

}  // namespace

segd segd::from_lengths(array<std::int64_t> lengths) {
  const auto len = lengths.span();
  built b = build<std::int64_t>(len, std::move(lengths));
  segd s;
  s.lengths_ = std::move(b.lengths);
  s.starts_ = std::move(b.starts);
  s.elements_ = b.elements;
  s.uniform_ = b.uniform;
  return s;
}

segd segd::from_int32_lengths(std::span<const std::int32_t> lengths) {
  built b = build<std::int32_t>(lengths, {});
  segd s;
  s.lengths_ = std::move(b.lengths);
  s.starts_ = std::move(b.starts);
  s.elements_ = b.elements;
  s.uniform_ = b.uniform;
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
