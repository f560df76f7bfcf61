#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include <doctest/doctest.h>

#include "support.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/segd.hpp"

using vseg::array;
using vseg::segd;

TEST_CASE("segd: starts are the exclusive scan of the lengths") {
  auto s = segd::from_lengths(array<std::int64_t>{3, 0, 2, 5});
  CHECK(s.segments() == 4);
  CHECK(s.elements() == 10);
  CHECK(vseg::to_vector(s.starts()) == std::vector<std::int64_t>{0, 3, 3, 5});
  CHECK(s.end(3) == 10);
  CHECK(segd().segments() == 0);
  CHECK(segd().elements() == 0);
  CHECK(segd::single(7).elements() == 7);
  CHECK(segd::uniform(4, 3).elements() == 12);
  CHECK(segd::from_lengths({}).elements() == 0);
}

TEST_CASE("segd: large descriptors are built in parallel") {
  auto rng = vseg::test::seeded(11);
  auto v = vseg::test::random_ints(rng, 1'000'000, 0, 9);
  auto s = segd::from_lengths(array<std::int64_t>(v));
  std::int64_t acc = 0;
  for (std::size_t j = 0; j < v.size(); ++j) {
    REQUIRE(s.start(static_cast<std::int64_t>(j)) == acc);
    acc += v[j];
  }
  CHECK(s.elements() == acc);
}

TEST_CASE("segd: bad lengths are rejected naming the segment and value") {
  CHECK_THROWS_WITH_AS(segd::from_lengths(array<std::int64_t>{1, 2, -4, -1}),
                       doctest::Contains("segment 2 has negative length -4"),
                       std::invalid_argument);
  std::vector<std::int64_t> many(100'000, 1);
  many[77'000] = -9;
  many[99'000] = -3;
  CHECK_THROWS_WITH_AS(segd::from_lengths(array<std::int64_t>(many)),
                       doctest::Contains("segment 77000 has negative length -9"),
                       std::invalid_argument);
  const std::int64_t big = std::numeric_limits<std::int64_t>::max() / 2 + 1;
  CHECK_THROWS_AS(segd::from_lengths(array<std::int64_t>{big, big}), std::overflow_error);
  // int64 lengths are checked by ORs and XORs (lib/segd.cpp): over parallel
  // blocks, an overflow; a sum of exactly 2^63 - 1; and lengths that differ
  // while their OR is the first one's (3, 1, 3, 1, ...: not uniform).
  const std::vector<std::int64_t> huge(100'000, std::int64_t{1} << 50);
  vseg::test::for_each_thread_count([&](int) {
    CHECK_THROWS_AS(segd::from_lengths(array<std::int64_t>(huge)), std::overflow_error);
  });
  const std::int64_t quarter = std::int64_t{1} << 61;
  CHECK(segd::from_lengths(array<std::int64_t>{quarter, quarter, quarter, quarter - 1}).elements() ==
        std::numeric_limits<std::int64_t>::max());
  std::vector<std::int64_t> alternating(300'000);
  for (std::size_t j = 0; j < alternating.size(); ++j) alternating[j] = j % 2 == 0 ? 3 : 1;
  vseg::test::for_each_thread_count([&](int) {
    const segd a = segd::from_lengths(array<std::int64_t>(alternating));
    CHECK(a.uniform_length() == -1);
    CHECK(a.elements() == 600'000);
    CHECK(a.start(299'999) == 599'999);  // 150,000 threes and 149,999 ones before it
  });
  CHECK_THROWS_AS(segd::uniform(-1, 2), std::invalid_argument);
  CHECK_THROWS_AS(segd::uniform(std::int64_t{1} << 40, std::int64_t{1} << 40), std::overflow_error);
  CHECK_THROWS_WITH_AS(vseg::check_covers("op", segd::single(3), 4),
                       doctest::Contains("op: the segment descriptor covers 3 elements but the data has 4"),
                       std::invalid_argument);
}

TEST_CASE("segd::from_int32_lengths matches from_lengths and checks the same way") {
  auto rng = vseg::test::seeded(12);
  for (std::int64_t m : vseg::test::standard_sizes()) {
    INFO("m = " << m);
    auto v = vseg::test::random_ints(rng, m, 0, 9);
    std::vector<std::int32_t> narrow(v.begin(), v.end());
    const auto wide = segd::from_lengths(array<std::int64_t>(v));
    vseg::test::for_each_thread_count([&](int) {
      const auto s = segd::from_int32_lengths(narrow);
      CHECK(s == wide);
      CHECK(vseg::to_vector(s.starts()) == vseg::to_vector(wide.starts()));
      CHECK(s.elements() == wide.elements());
    });
  }
  std::vector<std::int32_t> many(100'000, 1);
  many[77'000] = -9;
  many[99'000] = -3;
  CHECK_THROWS_WITH_AS(segd::from_int32_lengths(many), doctest::Contains("segment 77000 has negative length -9"),
                       std::invalid_argument);
  // The largest INT lengths, over parallel blocks: summed in 64 bits.
  std::vector<std::int32_t> big(100'000, std::numeric_limits<std::int32_t>::max());
  big[5] = 3;
  const auto b = segd::from_int32_lengths(big);
  CHECK(b.elements() == 99'999 * std::int64_t{std::numeric_limits<std::int32_t>::max()} + 3);
  CHECK(b.start(6) == 5 * std::int64_t{std::numeric_limits<std::int32_t>::max()} + 3);
  CHECK(b.uniform_length() == -1);
}

TEST_CASE("segd: uniform_length names the common length, found while building") {
  CHECK(segd::uniform(5, 3).uniform_length() == 3);
  CHECK(segd::uniform(5, 0).uniform_length() == 0);
  CHECK(segd::single(9).uniform_length() == 9);
  CHECK(segd().uniform_length() == -1);  // no segments: nothing in common
  CHECK(segd::from_lengths(array<std::int64_t>{2, 2, 3}).uniform_length() == -1);
  CHECK(segd::from_lengths(array<std::int64_t>{0, 1}).uniform_length() == -1);
  // large, built over parallel blocks: one odd length in the last block
  std::vector<std::int64_t> ones(300'000, 1);
  CHECK(segd::from_lengths(array<std::int64_t>(ones)).uniform_length() == 1);
  std::vector<std::int32_t> ones32(300'000, 1);
  CHECK(segd::from_int32_lengths(ones32).uniform_length() == 1);
  ones.back() = 2;
  ones32.front() = 0;
  vseg::test::for_each_thread_count([&](int) {
    CHECK(segd::from_lengths(array<std::int64_t>(ones)).uniform_length() == -1);
    CHECK(segd::from_int32_lengths(ones32).uniform_length() == -1);
  });
}

TEST_CASE("segd: the uniform layout computes what the listed one reads") {
  for (auto s : {segd::uniform(1000, 1), segd::uniform(777, 4), segd::single(12345)}) {
    REQUIRE(s.uniform_length() >= 0);
    const vseg::detail::uniform_layout u{s.uniform_length()};
    const vseg::detail::listed_layout l{s.starts().data(), s.lengths().data()};
    bool same = true;
    for (std::int64_t j = 0; j < s.segments(); ++j)
      same = same && u.start(j) == l.start(j) && u.length(j) == l.length(j) && u.end(j) == l.end(j);
    CHECK(same);
  }
}

TEST_CASE("segd: a uniform descriptor built without arrays materialises them on demand") {
  std::vector<std::int32_t> twos(100'000, 2);
  const segd lazy = segd::from_int32_lengths(twos);
  CHECK(lazy.segments() == 100'000);
  CHECK(lazy.elements() == 200'000);
  CHECK(lazy.start(99'999) == 199'998);
  CHECK(lazy.end(99'999) == 200'000);
  CHECK(lazy.length(5) == 2);
  const segd copy = lazy;  // shares the lazily built arrays
  // first use from several threads at once
  std::vector<std::int64_t> last(4, -1);
  vseg::detail::parallel_for(4, 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t t = lo; t < hi; ++t) last[static_cast<std::size_t>(t)] = copy.starts()[99'999];
  });
  CHECK(last == std::vector<std::int64_t>(4, 199'998));
  CHECK(vseg::to_vector(lazy.lengths()) == std::vector<std::int64_t>(100'000, 2));
  std::vector<std::int64_t> starts(100'000);
  for (std::size_t j = 0; j < starts.size(); ++j) starts[j] = 2 * static_cast<std::int64_t>(j);
  CHECK(vseg::to_vector(lazy.starts()) == starts);
  CHECK(lazy == segd::uniform(100'000, 2));
  CHECK(lazy == segd::from_lengths(array<std::int64_t>(std::vector<std::int64_t>(100'000, 2))));
  CHECK_FALSE(lazy == segd::uniform(100'000, 1));
  CHECK_FALSE(lazy == segd::uniform(99'999, 2));
  CHECK_FALSE(segd::from_lengths(array<std::int64_t>{1, 2}) == segd::from_lengths(array<std::int64_t>{2, 1}));
  CHECK(segd::from_lengths(array<std::int64_t>{1, 2}) == segd::from_lengths(array<std::int64_t>{1, 2}));
}
