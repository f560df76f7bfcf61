#include "vseg/segd.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "vseg/detail/first_bad.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/detail/saturating.hpp"
#include "vseg/flat/pack.hpp"
#include "vseg/flat/tabulate.hpp"

namespace vseg {

namespace {

// The smallest and largest length seen; uniform when they agree and no
// block saw two different lengths (`mixed`: a block of int64 lengths knows
// that, not its smallest and largest).
struct length_range {
  std::int64_t min = std::numeric_limits<std::int64_t>::max();
  std::int64_t max = -1;
  bool mixed = false;
  void add(const length_range& r) {
    min = r.min < min ? r.min : min;
    max = r.max > max ? r.max : max;
    mixed = mixed || r.mixed;
  }
  std::int64_t uniform() const { return !mixed && min == max ? min : -1; }
};

// The sum of len[lo, hi) (-1 on overflow), noting the first negative length
// in `negative` and widening `range` by the lengths.
// The loop is three reductions with no exit (a wrapping sum and, for narrow
// lengths, the min and max, for int64 ones an OR and an OR of XORs), so it
// vectorises; a negative length or an overflow is looked for only when they
// say there may be one.
template <class L>
std::int64_t sum_lengths(std::span<const L> len, std::int64_t lo, std::int64_t hi, detail::first_bad& negative,
                         length_range& range) {
  std::uint64_t sum = 0;
  std::int64_t least = std::numeric_limits<std::int64_t>::max();
  std::int64_t most = -1;  // the largest length, or (int64) a bound on it
  bool mixed = false;
  if constexpr (sizeof(L) < sizeof(std::int64_t)) {
    // Narrow lengths: the min and max in L, the sum of their zero-extended
    // values (right when none is negative, and a negative one is reported
    // below): no 64-bit compare, so the loop vectorises on plain x86-64
    // (SSE2 has none; the 64-bit version ran scalar, ~55% of building a
    // descriptor of 400K INT lengths).
    using U = std::make_unsigned_t<L>;
    L narrow_least = std::numeric_limits<L>::max();
    L narrow_most = std::numeric_limits<L>::min();
    for (std::int64_t j = lo; j < hi; ++j) {
      const L l = len[static_cast<std::size_t>(j)];
      narrow_least = l < narrow_least ? l : narrow_least;
      narrow_most = l > narrow_most ? l : narrow_most;
      sum += static_cast<U>(l);
    }
    if (hi > lo) {
      least = narrow_least;
      most = narrow_most;
    }
  } else if (hi > lo) {
    // int64 lengths: no min or max (SSE2 has no 64-bit compare, and the
    // loop would run scalar), but the OR of all (its sign is any length's;
    // it is at least the largest of non-negative ones, which bounds the sum
    // below) and whether any differs from the first, by ORs and XORs.
    const auto first = static_cast<std::uint64_t>(len[static_cast<std::size_t>(lo)]);
    std::uint64_t any = 0, differ = 0;
    for (std::int64_t j = lo; j < hi; ++j) {
      const auto l = static_cast<std::uint64_t>(len[static_cast<std::size_t>(j)]);
      any |= l;
      differ |= l ^ first;
      sum += l;
    }
    least = static_cast<std::int64_t>(any) < 0 ? -1 : static_cast<std::int64_t>(first);
    most = differ == 0 ? static_cast<std::int64_t>(first) : static_cast<std::int64_t>(any);
    mixed = differ != 0;
  }
  if (least < 0) {
    for (std::int64_t j = lo; j < hi; ++j)
      if (len[static_cast<std::size_t>(j)] < 0) {
        negative.note(j);
        break;
      }
    return 0;
  }
  range.add({least, most, mixed});
  // A block of int32 lengths cannot overflow int64; int64 ones can, but only
  // when the largest (here a bound on it) times the count does.
  if constexpr (sizeof(L) == sizeof(std::int64_t)) {
    if (hi > lo && most > std::numeric_limits<std::int64_t>::max() / (hi - lo)) {
      std::int64_t exact = 0;
      for (std::int64_t j = lo; j < hi; ++j)
        if (__builtin_add_overflow(exact, static_cast<std::int64_t>(len[static_cast<std::size_t>(j)]), &exact)) return -1;
      return exact;
    }
  }
  return static_cast<std::int64_t>(sum);
}

struct built {
  array<std::int64_t> lengths;  // empty when uniform and L is not int64
  array<std::int64_t> starts;   // empty when uniform
  std::int64_t elements;
  std::int64_t uniform;
};

// The descriptor of the lengths len. Pass 1, over fixed blocks in parallel
// (serially below the cutoff): check, sum and find the smallest and largest
// length. A uniform descriptor stops there (its arrays are computed only if
// asked for, see segd::lengths). Pass 2 writes the starts from each block's
// offset, and, when L is not int64, the widened lengths. `lengths` is len
// itself when L is int64.
template <class L>
built build(std::span<const L> len, array<std::int64_t> lengths) {
  const auto m = static_cast<std::int64_t>(len.size());
  constexpr bool widen = !std::is_same_v<L, std::int64_t>;
  detail::first_bad negative;
  length_range range;
  std::int64_t total = 0;
  const std::int64_t block = tuning::flat_block;
  const bool serial = m <= tuning::serial_cutoff;
  std::vector<std::int64_t> offsets;
  if (serial) {
    total = sum_lengths(len, 0, m, negative, range);
  } else {
    const std::int64_t blocks = detail::block_count(m, block);
    offsets.resize(static_cast<std::size_t>(blocks));
    std::vector<length_range> ranges(static_cast<std::size_t>(blocks));
    detail::for_each_block(m, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
      offsets[static_cast<std::size_t>(b)] = sum_lengths(len, lo, hi, negative, ranges[static_cast<std::size_t>(b)]);
    });
    for (const length_range& r : ranges) range.add(r);
    for (auto& o : offsets) {
      const std::int64_t sum = o;
      o = total;
      total = detail::saturating_plus{}(total, sum);
    }
  }
  if (negative.any()) {
    const std::int64_t j = negative.position();
    detail::throw_invalid("segd::from_lengths", "segment ", j, " has negative length ",
                          static_cast<std::int64_t>(len[static_cast<std::size_t>(j)]));
  }
  if (total < 0)
    detail::throw_overflow("segd::from_lengths", "the ", m, " lengths sum to more than 2^63-1 elements");
  const std::int64_t uniform = range.uniform();
  if (uniform >= 0) {
    if constexpr (widen) lengths = {};
    return {std::move(lengths), {}, total, uniform};
  }
  buffer<std::int64_t> wide;
  if constexpr (widen) wide = buffer<std::int64_t>::for_overwrite(m);
  auto starts = buffer<std::int64_t>::for_overwrite(m);
  std::int64_t* st = starts.data();
  std::int64_t* w = wide.data();
  auto write = [&](std::int64_t lo, std::int64_t hi, std::int64_t run) {
    for (std::int64_t j = lo; j < hi; ++j) {
      const auto l = static_cast<std::int64_t>(len[static_cast<std::size_t>(j)]);
      if constexpr (widen) w[j] = l;
      st[j] = run;
      run += l;
    }
  };
  if (serial) write(0, m, 0);
  else
    detail::for_each_block(m, block, [&](std::int64_t b, std::int64_t lo, std::int64_t hi) {
      write(lo, hi, offsets[static_cast<std::size_t>(b)]);
    });
  if constexpr (widen) lengths = std::move(wide).freeze();
  return {std::move(lengths), std::move(starts).freeze(), total, -1};
}

}  // namespace

// The arrays of a uniform descriptor built without them, made on first use.
struct segd::lazy_arrays {
  std::once_flag once;
  array<std::int64_t> lengths;
  array<std::int64_t> starts;
};

segd segd::uniform_without_arrays(std::int64_t segments, std::int64_t each) {
  segd s;
  s.segments_ = segments;
  s.elements_ = segments * each;
  s.uniform_ = each;
  s.lazy_ = std::make_shared<lazy_arrays>();
  return s;
}

const array<std::int64_t>& segd::lengths() const {
  if (!lazy_) return lengths_;
  std::call_once(lazy_->once, [this] {
    lazy_->lengths = lengths_.size() == segments_ ? lengths_ : fill(segments_, uniform_);
    lazy_->starts = tabulate(segments_, [each = uniform_](std::int64_t j) { return j * each; });
  });
  return lazy_->lengths;
}

const array<std::int64_t>& segd::starts() const {
  if (!lazy_) return starts_;
  lengths();
  return lazy_->starts;
}

bool operator==(const segd& a, const segd& b) {
  if (a.segments_ != b.segments_) return false;
  if (a.uniform_ >= 0 || b.uniform_ >= 0) return a.uniform_ == b.uniform_;
  return a.lengths_ == b.lengths_;
}

segd segd::from_lengths(array<std::int64_t> lengths) {
  const auto len = lengths.span();
  built b = build<std::int64_t>(len, std::move(lengths));
  if (b.uniform >= 0) {
    segd s = uniform_without_arrays(static_cast<std::int64_t>(len.size()), b.uniform);
    s.lengths_ = std::move(b.lengths);  // kept: the caller's array costs nothing to share
    return s;
  }
  segd s;
  s.segments_ = b.lengths.size();
  s.lengths_ = std::move(b.lengths);
  s.starts_ = std::move(b.starts);
  s.elements_ = b.elements;
  return s;
}

segd segd::from_int32_lengths(std::span<const std::int32_t> lengths) {
  built b = build<std::int32_t>(lengths, {});
  if (b.uniform >= 0) return uniform_without_arrays(static_cast<std::int64_t>(lengths.size()), b.uniform);
  segd s;
  s.segments_ = b.lengths.size();
  s.lengths_ = std::move(b.lengths);
  s.starts_ = std::move(b.starts);
  s.elements_ = b.elements;
  return s;
}

segd segd::single(std::int64_t n) { return from_lengths(array<std::int64_t>{n}); }

segd segd::uniform(std::int64_t n, std::int64_t each) {
  if (n < 0) detail::throw_invalid("segd::uniform", "negative segment count ", n);
  if (each < 0) detail::throw_invalid("segd::uniform", "negative segment length ", each);
  if (each > 0 && n > std::numeric_limits<std::int64_t>::max() / each)
    detail::throw_overflow("segd::uniform", n, " segments of length ", each,
                           " exceed 2^63-1 elements");
  if (n == 0) return segd();
  return uniform_without_arrays(n, each);
}

segd segd::from_head_flags(const array<bool>& flags) {
  const std::int64_t n = flags.size();
  if (n == 0) return segd();
  if (!flags[0])
    detail::throw_invalid("segd::from_head_flags", "the first flag is false: every element must lie in a "
                          "segment, so flags[0] must start one (", n, " flags)");
  // The heads, then each segment runs to the next head (the last to n).
  const array<std::int64_t> heads = pack_index(flags);
  const std::int64_t m = heads.size();
  return from_lengths(tabulate(m, [&](std::int64_t j) { return (j + 1 < m ? heads[j + 1] : n) - heads[j]; }));
}

void check_covers(const char* operation, const segd& s, std::int64_t n) {
  if (s.elements() != n)
    detail::throw_invalid(operation, "the segment descriptor covers ", s.elements(),
                          " elements but the data has ", n);
}

}  // namespace vseg
