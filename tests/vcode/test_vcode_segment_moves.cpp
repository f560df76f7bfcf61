// Tests of PERMUTE over one segment by a lazy INDEX of stride 1
// (lib/vcode/segment_moves.cpp, NESL's SEGPERMUTE): runs copied whole and
// checked by runs_partition. runs_partition is held against the definition
// (an index that is a permutation) on every small case; the PERMUTE runs
// once as written and once with the index written out first (an
// element-wise OR of it with itself), which takes the checked scatter, and
// both must print the same, errors included.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../../lib/vcode/segment_moves.hpp"
#include "run_program.hpp"
#include "vseg/segd.hpp"

using namespace vseg::vcode;
using namespace vseg::vcode::testing;

namespace {

const std::string force = "COPY 1 0\nOR INT\n";

std::string num(std::int64_t x) { return std::to_string(x); }

// A CONST INT of the values.
std::string ints(const std::vector<std::int32_t>& v) {
  std::string s = "CONST INT (";
  for (const std::int32_t x : v) s += num(x) + " ";
  return s + ")\n";
}

// One segment of n.
std::string one(std::int64_t n) { return "CONST INT " + num(n) + "\nMAKE_SEGDES\n"; }

// Whether the INDEX with these starts, strides and lengths is a permutation
// of [0, n): the definition, element by element.
bool is_permutation(const std::vector<std::int32_t>& starts, const std::vector<std::int32_t>& strides,
                    const std::vector<std::int64_t>& lengths, std::int64_t n) {
  std::vector<int> seen(static_cast<std::size_t>(n), 0);
  for (std::size_t t = 0; t < lengths.size(); ++t)
    for (std::int64_t r = 0; r < lengths[t]; ++r) {
      const std::int64_t i = std::int64_t{starts[t]} + r * strides[t];
      if (i < 0 || i >= n || seen[static_cast<std::size_t>(i)]++ != 0) return false;
    }
  return std::count(seen.begin(), seen.end(), 1) == n;
}

bool partition_check(const std::vector<std::int32_t>& starts, const std::vector<std::int32_t>& strides,
                     const std::vector<std::int64_t>& lengths, std::int64_t n) {
  const vseg::segd shape = vseg::segd::from_lengths(vseg::array<std::int64_t>(lengths));
  return vseg::vcode::detail::runs_partition(shape, starts.data(), strides.data(), n);
}

// Stored data of n elements: 5 + 3i as INT, that over 2 as FLOAT, or
// whether it is even as BOOL.
std::string data(std::int64_t n, const std::string& type) {
  std::string s = "CONST INT 5\nCONST INT 3\n" + one(n) + "INDEX\n" + force;
  if (type == "FLOAT") s += "I_TO_F\nCONST FLOAT 2.0\n" + one(n) + "DIST FLOAT\n/ FLOAT\n";
  if (type == "BOOL") s += "CONST INT 1\n" + one(n) + "DIST INT\nAND INT\nCONST INT 0\n" + one(n) + "DIST INT\n= INT\n";
  return s;
}

// The INDEX with these starts and strides over segments of these lengths.
std::string index_of(const std::vector<std::int32_t>& starts, const std::vector<std::int32_t>& strides,
                     const std::vector<std::int64_t>& lengths) {
  std::vector<std::int32_t> l(lengths.begin(), lengths.end());
  return ints(starts) + ints(strides) + ints(l) + "MAKE_SEGDES\nINDEX\n";
}

// The destination starts of the runs `lengths` placed in the order `order`
// (order[j] is the run that goes j-th).
std::vector<std::int32_t> placed(const std::vector<std::int64_t>& lengths, const std::vector<std::size_t>& order) {
  std::vector<std::int32_t> starts(lengths.size());
  std::int64_t at = 0;
  for (const std::size_t t : order) {
    starts[t] = static_cast<std::int32_t>(at);
    at += lengths[t];
  }
  return starts;
}

}  // namespace

TEST_CASE("segment moves: runs_partition agrees with the definition on every small case") {
  // Every choice of starts in [-1, n] for up to three runs of lengths 0..3
  // and strides 1 (and one stride 2), n the sum of the lengths.
  std::int64_t cases = 0, partitions = 0;
  for (std::int64_t l0 = 0; l0 <= 3; ++l0)
    for (std::int64_t l1 = 0; l1 <= 3; ++l1)
      for (std::int64_t l2 = 0; l2 <= 3; ++l2) {
        const std::vector<std::int64_t> lengths{l0, l1, l2};
        const std::int64_t n = l0 + l1 + l2;
        for (std::int32_t s0 = -1; s0 <= n; ++s0)
          for (std::int32_t s1 = -1; s1 <= n; ++s1)
            for (std::int32_t s2 = -1; s2 <= n; ++s2)
              for (const std::int32_t stride : {1, 2}) {
                const std::vector<std::int32_t> starts{s0, s1, s2}, strides{1, stride, 1};
                CAPTURE(l0);
                CAPTURE(l1);
                CAPTURE(l2);
                CAPTURE(s0);
                CAPTURE(s1);
                CAPTURE(s2);
                CAPTURE(stride);
                // A stride of 2 in a non-empty run is refused even where
                // it is a permutation (a run of one): the fast path is for
                // stride 1 only, and the plain PERMUTE takes the rest.
                const bool expected = is_permutation(starts, strides, lengths, n) && (stride == 1 || l1 == 0);
                const bool got = partition_check(starts, strides, lengths, n);
                CHECK(got == expected);
                ++cases;
                partitions += got ? 1 : 0;
              }
      }
  // The sweep reached both answers many times.
  CHECK(cases > 10000);
  CHECK(partitions > 100);
}

TEST_CASE("segment moves: runs_partition on large shuffled runs, and with one run moved by one") {
  std::mt19937 rng(7);
  for (const std::int64_t m : {1000, 50000}) {
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(m));
    for (auto& l : lengths) l = static_cast<std::int64_t>(rng() % 12);  // zeros included
    const std::int64_t n = std::accumulate(lengths.begin(), lengths.end(), std::int64_t{0});
    std::vector<std::size_t> order(lengths.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<std::int32_t> starts = placed(lengths, order);
    const std::vector<std::int32_t> strides(lengths.size(), 1);
    CHECK(partition_check(starts, strides, lengths, n));
    CHECK_FALSE(partition_check(starts, strides, lengths, n + 1));  // lengths not summing to n
    // The first non-empty run shifted by one either way: an overlap and a
    // gap, or a run past the end, never a permutation.
    const auto t = static_cast<std::size_t>(std::find_if(lengths.begin(), lengths.end(), [](auto l) { return l > 0; }) -
                                            lengths.begin());
    for (const int shift : {-1, 1}) {
      std::vector<std::int32_t> moved = starts;
      moved[t] += shift;
      CHECK_FALSE(partition_check(moved, strides, lengths, n));
    }
  }
}

TEST_CASE("segment moves: PERMUTE by a lazy INDEX of stride 1 equals the checked PERMUTE by it written out") {
  std::mt19937 rng(11);
  // Over lazy_min elements (2^14), so that the INDEX is kept lazy.
  const std::int64_t m = 8000;
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(m));
  for (auto& l : lengths) l = static_cast<std::int64_t>(rng() % 9);
  const std::int64_t n = std::accumulate(lengths.begin(), lengths.end(), std::int64_t{0});
  REQUIRE(n > (1 << 14));
  std::vector<std::size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  const std::vector<std::int32_t> starts = placed(lengths, order);
  const std::string index = index_of(starts, std::vector<std::int32_t>(lengths.size(), 1), lengths);
  for (const std::string type : {"INT", "FLOAT", "BOOL"}) {
    CAPTURE(type);
    const std::string lazy = output_of(main_of(data(n, type) + index + one(n) + "PERMUTE " + type + "\n"));
    const std::string written = output_of(main_of(data(n, type) + index + force + one(n) + "PERMUTE " + type + "\n"));
    CHECK(lazy.rfind("error", 0) == std::string::npos);
    const bool same = lazy == written;
    CHECK(same);
    if (type == "INT") {
      // The run placed first is order[0]'s: it starts with its source's
      // first element, 5 + 3 * (its source start).
      std::size_t first = 0;
      while (lengths[order[first]] == 0) ++first;
      std::int64_t source = 0;
      for (std::size_t t = 0; t < order[first]; ++t) source += lengths[t];
      CHECK(lazy.rfind("( " + num(5 + 3 * source) + " ", 0) == 0);
    }
  }
}

TEST_CASE("segment moves: an INDEX that is no permutation gives the plain PERMUTE's error") {
  const std::int64_t m = 4000, len = 5, n = m * len;
  const std::vector<std::int64_t> lengths(static_cast<std::size_t>(m), len);
  std::vector<std::size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), 0);
  std::reverse(order.begin(), order.end());
  const std::vector<std::int32_t> good = placed(lengths, order);
  const std::vector<std::int32_t> ones(lengths.size(), 1);
  const auto run_both = [&](const std::vector<std::int32_t>& starts, const std::vector<std::int32_t>& strides,
                            const std::string& dat, const std::string& seg) {
    const std::string index = index_of(starts, strides, lengths);
    const std::string lazy = without_line(output_of(main_of(dat + index + seg + "PERMUTE INT\n")));
    const std::string written = without_line(output_of(main_of(dat + index + force + seg + "PERMUTE INT\n")));
    CHECK(lazy == written);
    return lazy;
  };
  CHECK(run_both(good, ones, data(n, "INT"), one(n)).rfind("error", 0) == std::string::npos);
  // Two runs on one place (the last run's place left empty).
  std::vector<std::int32_t> twice = good;
  twice[0] = good[1];
  CHECK(run_both(twice, ones, data(n, "INT"), one(n)).rfind("error", 0) == 0);
  // Runs overlapping by one, and a run past the end.
  std::vector<std::int32_t> overlap = good;
  overlap[1] += 1;
  CHECK(run_both(overlap, ones, data(n, "INT"), one(n)).rfind("error", 0) == 0);
  std::vector<std::int32_t> past = good;
  past[0] = static_cast<std::int32_t>(n - 2);
  CHECK(run_both(past, ones, data(n, "INT"), one(n)).rfind("error", 0) == 0);
  // A negative start.
  std::vector<std::int32_t> negative = good;
  negative[m - 1] = -1;
  CHECK(run_both(negative, ones, data(n, "INT"), one(n)).rfind("error", 0) == 0);
  // One stride of 2: no segment move; the plain PERMUTE's verdict either way.
  std::vector<std::int32_t> strided = ones;
  strided[5] = 2;
  run_both(good, strided, data(n, "INT"), one(n));
  // Data one element longer than the index, and a descriptor that does not cover the data.
  CHECK(run_both(good, ones, data(n + 1, "INT"), one(n)).find("error") == 0);
  CHECK(run_both(good, ones, data(n, "INT"), one(n - 1)).find("error") == 0);
  // Two segments: not this path; the runs leave the first segment.
  std::string two = "CONST INT (";
  two.append(num(n / 2)).append(" ").append(num(n - n / 2)).append(")\nMAKE_SEGDES\n");
  CHECK(run_both(good, ones, data(n, "INT"), two).find("outside its segment") != std::string::npos);
}

TEST_CASE("segment moves: the INDEX is not written out (counted in -m words)") {
  // Runs of 10-29 elements: the lazy INDEX holds ~3 words per run, the
  // written-out one n / 2. Under a limit of 0.8 n words the stack holds the
  // data (n / 2) and the lazy INDEX, but not the INDEX written out beside
  // them: with every stride 1 the PERMUTE runs, with one stride 2 (the plain
  // PERMUTE, which writes its index out) it stops at the limit.
  std::mt19937 rng(5);
  const std::int64_t m = 3000;
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(m));
  for (auto& l : lengths) l = 10 + static_cast<std::int64_t>(rng() % 20);
  const std::int64_t n = std::accumulate(lengths.begin(), lengths.end(), std::int64_t{0});
  std::vector<std::size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  const std::vector<std::int32_t> starts = placed(lengths, order);
  std::vector<std::int32_t> strides(lengths.size(), 1);
  // Stored data made with n / 2 words at most on the stack: RAND of a lazy
  // DIST (a written-out copy, COPY, or a sequence, which PERMUTE inverts
  // instead, would not do).
  const std::string dat = "CONST INT 1000000\n" + one(n) + "DIST INT\nRAND\n";
  run_options limited;
  limited.memory_words = n * 8 / 10;
  const auto run = [&](const std::vector<std::int32_t>& st, run_options opt) {
    return output_of(main_of(dat + index_of(starts, st, lengths) + one(n) + "PERMUTE INT\n"), opt);
  };
  const std::string moved = run(strides, limited);
  CHECK(moved.rfind("error", 0) == std::string::npos);
  const bool same = moved == run(strides, {});
  CHECK(same);
  strides[0] = 2;
  const std::string plain = run(strides, limited);
  CAPTURE(plain.substr(0, 200));
  CHECK(plain.find("memory limit exceeded") != std::string::npos);
}
