// Tests of vseg/segmented/permute.hpp, bpermute_flagged.hpp and replace.hpp against a sequential model on seeded
// random segmentations, swept over thread counts.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#include "support.hpp"
#include "vseg/segmented/bpermute_flagged.hpp"
#include "vseg/segmented/permute.hpp"
#include "vseg/segmented/replace.hpp"

namespace {

struct case_data {
  std::vector<std::int64_t> lengths;
  vseg::segd s;
};

// Lengths drawn from [0, max_len], or all max_len when uniform (the
// descriptor then takes the arithmetic layout, see segd.hpp).
case_data random_segd(std::mt19937_64& rng, std::int64_t segments, std::int64_t max_len, bool uniform = false) {
  std::uniform_int_distribution<std::int64_t> len(0, max_len);
  case_data c;
  for (std::int64_t j = 0; j < segments; ++j) c.lengths.push_back(uniform ? max_len : len(rng));
  c.s = vseg::segd::from_lengths(vseg::array<std::int64_t>(c.lengths));
  return c;
}

}  // namespace

TEST_CASE("permute_s, permute_default_s, bpermute_flagged_s, replace_s match the model") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    struct shape {
      std::int64_t segments, max_len;
      bool uniform;
    };
    for (auto [segments, max_len, uniform] :
         {shape{0, 0, false}, {5, 0, false}, {100, 1, false}, {300, 60, false}, {3, 40000, false},
          {100'000, 1, true}, {30'000, 3, true}, {2'000, 64, true}, {1, 200'000, true}, {7, 0, true}}) {
      const case_data c = random_segd(rng, segments, max_len, uniform);
      REQUIRE((c.s.uniform_length() >= 0) == (uniform || (segments > 0 && max_len == 0)));
      const std::int64_t n = c.s.elements();
      std::vector<int> data(static_cast<std::size_t>(n));
      std::iota(data.begin(), data.end(), 100);
      // local indices: a random permutation of every segment
      std::vector<std::int32_t> perm(static_cast<std::size_t>(n));
      std::vector<bool> flags(static_cast<std::size_t>(n));
      for (std::int64_t j = 0; j < segments; ++j) {
        auto first = perm.begin() + c.s.start(j);
        std::iota(first, first + c.s.length(j), 0);
        std::shuffle(first, first + c.s.length(j), rng);
      }
      for (std::size_t k = 0; k < flags.size(); ++k) flags[k] = (rng() & 1) != 0;
      std::vector<int> scattered(static_cast<std::size_t>(n)), gathered(static_cast<std::size_t>(n));
      for (std::int64_t j = 0; j < segments; ++j)
        for (std::int64_t k = c.s.start(j); k < c.s.end(j); ++k) {
          scattered[static_cast<std::size_t>(c.s.start(j) + perm[static_cast<std::size_t>(k)])] = data[static_cast<std::size_t>(k)];
          gathered[static_cast<std::size_t>(k)] =
              flags[static_cast<std::size_t>(k)] ? data[static_cast<std::size_t>(c.s.start(j) + perm[static_cast<std::size_t>(k)])] : -1;
        }
      vseg::array<int> xs(data);
      vseg::array<std::int32_t> idx(perm);
      vseg::array<bool> fl(flags);
      vseg::test::for_each_thread_count([&](int) {
        CHECK(vseg::to_vector(vseg::permute_s(c.s, xs, idx)) == scattered);
        CHECK(vseg::to_vector(vseg::permute_default_s(c.s, xs, idx, c.s, vseg::array<int>(std::vector<int>(static_cast<std::size_t>(n), 0)))) == scattered);
        CHECK(vseg::to_vector(vseg::bpermute_flagged_s(c.s, xs, c.s, idx, fl, -1)) == gathered);
      });
      // replace the first element of every non-empty segment by -segment
      std::vector<std::int32_t> at(static_cast<std::size_t>(segments), 0);
      std::vector<int> vals(static_cast<std::size_t>(segments));
      std::vector<int> replaced = data;
      std::vector<std::int64_t> keep;
      for (std::int64_t j = 0; j < segments; ++j) {
        vals[static_cast<std::size_t>(j)] = static_cast<int>(-j);
        if (c.s.length(j) > 0) replaced[static_cast<std::size_t>(c.s.start(j))] = static_cast<int>(-j);
      }
      bool any_empty = std::any_of(c.lengths.begin(), c.lengths.end(), [](std::int64_t l) { return l == 0; });
      if (any_empty) {
        CHECK_THROWS_AS(vseg::replace_s(c.s, xs, vseg::array<std::int32_t>(at), vseg::array<int>(vals)), std::out_of_range);
      } else {
        CHECK(vseg::to_vector(vseg::replace_s(c.s, xs, vseg::array<std::int32_t>(at), vseg::array<int>(vals))) == replaced);
      }
    }
  }
}

TEST_CASE("segment-local permutations reject bad indices") {
  const auto s = vseg::segd::from_lengths(vseg::array<std::int64_t>{2, 2});
  const vseg::array<int> xs{1, 2, 3, 4};
  CHECK_THROWS_AS(vseg::permute_s(s, xs, vseg::array<int>{0, 2, 0, 1}), std::out_of_range);  // 2 >= length 2
  CHECK_THROWS_AS(vseg::permute_s(s, xs, vseg::array<int>{0, 0, 0, 1}), std::out_of_range);  // repeated
  CHECK_THROWS_AS(vseg::permute_s(s, xs, vseg::array<int>{0, 1, 0}), std::invalid_argument); // size
  CHECK_THROWS_AS(vseg::bpermute_flagged_s(s, xs, s, vseg::array<int>{0, -1, 0, 0},
                                           vseg::array<bool>{true, true, false, false}, 0),
                  std::out_of_range);
  // an unflagged index is never read, however bad
  CHECK(vseg::to_vector(vseg::bpermute_flagged_s(s, xs, s, vseg::array<int>{1, 99, 0, 0},
                                                 vseg::array<bool>{true, false, true, false}, 0)) ==
        std::vector<int>{2, 0, 3, 0});
  // permute_default_s: the later position wins
  CHECK(vseg::to_vector(vseg::permute_default_s(s, xs, vseg::array<int>{1, 1, 0, 0}, s, vseg::array<int>{9, 9, 9, 9})) ==
        std::vector<int>{9, 2, 4, 9});
}

TEST_CASE("uniform descriptors: repeats, bad indices and gathers on the arithmetic layout") {
  // 50,000 source segments of one element scattered into segments of two
  // (NESL's batcher sort does this at every level), large enough for the
  // parallel paths.
  const std::int64_t m = 50'000;
  const auto one = vseg::segd::uniform(m, 1);
  const auto two = vseg::segd::uniform(m, 2);
  std::vector<int> data(static_cast<std::size_t>(m)), defaults(static_cast<std::size_t>(2 * m), -1);
  std::iota(data.begin(), data.end(), 0);
  std::vector<std::int32_t> at(static_cast<std::size_t>(m));
  std::vector<int> expect = defaults;
  for (std::int64_t j = 0; j < m; ++j) {
    at[static_cast<std::size_t>(j)] = static_cast<std::int32_t>(j % 2);
    expect[static_cast<std::size_t>(2 * j + j % 2)] = static_cast<int>(j);
  }
  const vseg::array<int> xs(data), def(defaults);
  vseg::test::for_each_thread_count([&](int) {
    CHECK(vseg::to_vector(vseg::permute_default_s(one, xs, vseg::array<std::int32_t>(at), two, def)) == expect);
  });
  // Two sources per target segment, both naming position 1: the later wins.
  const auto pairs = vseg::segd::uniform(m / 2, 2);
  const auto singles = vseg::segd::uniform(m / 2, 2);
  std::vector<std::int32_t> ones(static_cast<std::size_t>(m), 1);
  std::vector<int> last(static_cast<std::size_t>(m), -1);
  for (std::int64_t j = 0; j < m / 2; ++j) last[static_cast<std::size_t>(2 * j + 1)] = static_cast<int>(2 * j + 1);
  vseg::test::for_each_thread_count([&](int) {
    CHECK(vseg::to_vector(vseg::permute_default_s(pairs, xs, vseg::array<std::int32_t>(ones), singles,
                                                  vseg::array<int>(std::vector<int>(static_cast<std::size_t>(m), -1)))) ==
          last);
    // ... and as a permutation it is rejected, naming the first repeat.
    CHECK_THROWS_WITH_AS(vseg::permute_s(pairs, xs, vseg::array<std::int32_t>(ones)),
                         doctest::Contains("at position 1 repeats"), std::out_of_range);
  });
  // An index outside its segment of one element.
  std::vector<std::int32_t> zeros(static_cast<std::size_t>(m), 0);
  zeros[31'337] = 1;
  CHECK_THROWS_WITH_AS(vseg::permute_s(one, xs, vseg::array<std::int32_t>(zeros)),
                       doctest::Contains("index 1 at position 31337 outside its segment"), std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::permute_default_s(one, xs, vseg::array<std::int32_t>(zeros), one, xs),
                       doctest::Contains("index 1 at position 31337"), std::out_of_range);
}

TEST_CASE("uniform descriptors of many segments: repeats win late and are found in any segment") {
  // 2,000 segments of 64 (permute_default_s then scatters whole segments per
  // task, without marks): indices drawn with repeats, checked against the
  // serial model where the later position wins.
  const std::int64_t m = 2'000, each = 64, n = m * each;
  const auto s = vseg::segd::uniform(m, each);
  std::mt19937_64 rng(7);
  std::vector<int> data(static_cast<std::size_t>(n)), expect(static_cast<std::size_t>(n), -1);
  std::iota(data.begin(), data.end(), 0);
  std::vector<std::int32_t> idx(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    idx[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(rng() % each);
    expect[static_cast<std::size_t>(k / each * each + idx[static_cast<std::size_t>(k)])] = static_cast<int>(k);
  }
  const vseg::array<int> xs(data);
  const vseg::array<int> minus_one(std::vector<int>(static_cast<std::size_t>(n), -1));
  vseg::test::for_each_thread_count([&](int) {
    CHECK(vseg::to_vector(vseg::permute_default_s(s, xs, vseg::array<std::int32_t>(idx), s, minus_one)) == expect);
  });
  // A permutation of every segment but one late segment, whose position
  // 1,500 * 64 + 9 repeats the index of position 1,500 * 64 + 3.
  std::vector<std::int32_t> perm(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < m; ++j) std::iota(perm.begin() + j * each, perm.begin() + (j + 1) * each, 0);
  perm[static_cast<std::size_t>(1'500 * each + 9)] = 3;
  vseg::test::for_each_thread_count([&](int) {
    CHECK_THROWS_WITH_AS(vseg::permute_s(s, xs, vseg::array<std::int32_t>(perm)),
                         doctest::Contains("index 3 at position 96009 repeats"), std::out_of_range);
  });
  perm[static_cast<std::size_t>(1'500 * each + 9)] = 64;
  CHECK_THROWS_WITH_AS(vseg::permute_s(s, xs, vseg::array<std::int32_t>(perm)),
                       doctest::Contains("index 64 at position 96009 outside its segment"), std::out_of_range);
}

TEST_CASE("permute_s over one large segment: failures at the first and last position, then a good call") {
  // VCODE's PERMUTE of one segment (radix) runs the parallel check
  // (detail/scatter.hpp, scatter_marked).
  const std::int64_t n = 70'000;
  const auto s = vseg::segd::uniform(1, n);
  std::vector<int> data(static_cast<std::size_t>(n)), rev(static_cast<std::size_t>(n));
  std::iota(data.begin(), data.end(), 0);
  for (std::int64_t i = 0; i < n; ++i) rev[static_cast<std::size_t>(i)] = static_cast<int>(n - 1 - i);
  const vseg::array<int> xs(data);
  vseg::test::for_each_thread_count([&](int) {
    auto idx = rev;
    idx[static_cast<std::size_t>(n - 1)] = idx[0];
    CHECK_THROWS_WITH_AS(vseg::permute_s(s, xs, vseg::array<int>(idx)),
                         doctest::Contains("index 69999 at position 69999 repeats"), std::out_of_range);
    idx = rev;
    idx[0] = static_cast<int>(n);
    CHECK_THROWS_WITH_AS(vseg::permute_s(s, xs, vseg::array<int>(idx)),
                         doctest::Contains("index 70000 at position 0 outside its segment"), std::out_of_range);
    CHECK(vseg::to_vector(vseg::permute_s(s, xs, vseg::array<int>(rev))) == rev);
  });
}

TEST_CASE("permute_default_s_into scatters into its destination as permute_default_s copies") {
  // Every path of the shared scatter: whole uniform segments per task (with
  // one source per segment, and with repeats), the parallel scatter over
  // uneven segments (distinct targets, and repeats redone in order), and the
  // serial one. Random indices below each target segment's length repeat,
  // so the later position must win; the model is the serial loop.
  std::mt19937_64 rng(11);
  struct shape {
    const char* name;
    std::vector<std::int64_t> src, dst;  // segment lengths
    bool distinct;                       // indices 0, 1, ... of every segment
  };
  const std::vector<shape> shapes = {
      {"uniform, one source per segment", std::vector<std::int64_t>(30'000, 1), std::vector<std::int64_t>(30'000, 2), false},
      {"uniform, repeats", std::vector<std::int64_t>(40, 1'000), std::vector<std::int64_t>(40, 700), false},
      {"uneven, repeats", {5'000, 15'000, 0, 3'000}, {6'000, 16'000, 3, 4'000}, false},
      {"uneven, distinct", {5'000, 15'000, 0, 3'000}, {6'000, 16'000, 3, 4'000}, true},
      {"short", {3, 0, 1}, {4, 2, 1}, false},
  };
  for (const shape& c : shapes) {
    CAPTURE(c.name);
    const auto src = vseg::segd::from_lengths(vseg::array<std::int64_t>(c.src));
    const auto dst = vseg::segd::from_lengths(vseg::array<std::int64_t>(c.dst));
    std::vector<int> data(static_cast<std::size_t>(src.elements())), defaults(static_cast<std::size_t>(dst.elements()));
    std::iota(data.begin(), data.end(), 0);
    for (auto& d : defaults) d = -static_cast<int>(rng() % 1000) - 1;
    std::vector<std::int32_t> idx(data.size());
    std::vector<int> expect = defaults;
    for (std::int64_t j = 0; j < src.segments(); ++j)
      for (std::int64_t k = src.start(j); k < src.end(j); ++k) {
        const auto i = static_cast<std::int32_t>(c.distinct ? k - src.start(j) : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(dst.length(j))));
        idx[static_cast<std::size_t>(k)] = i;
        expect[static_cast<std::size_t>(dst.start(j) + i)] = data[static_cast<std::size_t>(k)];
      }
    const vseg::array<int> xs(data), def(defaults);
    const vseg::array<std::int32_t> at(idx);
    vseg::test::for_each_thread_count([&](int) {
      std::vector<int> out = defaults;
      vseg::permute_default_s_into(src, xs, at, dst, std::span<int>(out));
      CHECK(out == expect);
      CHECK(vseg::to_vector(vseg::permute_default_s(src, xs, at, dst, def)) == expect);
    });
  }
}

TEST_CASE("permute_default_s_into rejects bad input, naming the operation and the value") {
  const auto s = vseg::segd::from_lengths(vseg::array<std::int64_t>{2, 2});
  const vseg::array<int> xs{1, 2, 3, 4};
  std::vector<int> out{9, 9, 9, 9};
  CHECK_THROWS_WITH_AS(vseg::permute_default_s_into(s, xs, vseg::array<int>{0, 1, 2, 0}, s, std::span<int>(out)),
                       "vseg::permute_default_s_into: index 2 at position 2 outside its segment", std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::permute_default_s_into(s, xs, vseg::array<int>{0, -1, 0, 0}, s, std::span<int>(out)),
                       "vseg::permute_default_s_into: index -1 at position 1 outside its segment", std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::permute_default_s_into(s, xs, vseg::array<int>{0, 1, 0}, s, std::span<int>(out)),
                       doctest::Contains("permute_default_s_into: the segment descriptor covers 4 elements but the indices have 3"),
                       std::invalid_argument);
  std::vector<int> short_out{9, 9, 9};
  CHECK_THROWS_WITH_AS(vseg::permute_default_s_into(s, xs, vseg::array<int>{0, 1, 0, 1}, s, std::span<int>(short_out)),
                       doctest::Contains("permute_default_s_into: the segment descriptor covers 4 elements but the destination's elements have 3"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::permute_default_s_into(s, xs, vseg::array<int>{0, 1, 0, 1}, vseg::segd::uniform(1, 4),
                                                    std::span<int>(out)),
                       doctest::Contains("source segments has size 2 but destination segments has size 1"),
                       std::invalid_argument);
  CHECK_THROWS_AS(vseg::permute_default_s_into(vseg::segd::uniform(1, 3), xs, vseg::array<int>{0, 1, 0, 1}, s,
                                               std::span<int>(out)),
                  std::invalid_argument);
  // After the failures above the good call still gives the later position.
  std::vector<int> good{9, 9, 9, 9};
  vseg::permute_default_s_into(s, xs, vseg::array<int>{1, 1, 0, 0}, s, std::span<int>(good));
  CHECK(good == std::vector<int>{9, 2, 4, 9});
  // A large uniform case fails on the parallel path with the first bad position.
  const std::int64_t m = 50'000;
  std::vector<std::int32_t> zeros(static_cast<std::size_t>(m), 0);
  zeros[31'337] = 1;
  zeros[40'000] = 7;
  std::vector<int> many(static_cast<std::size_t>(m), 0), dest(static_cast<std::size_t>(m), 0);
  vseg::test::for_each_thread_count([&](int) {
    CHECK_THROWS_WITH_AS(vseg::permute_default_s_into(vseg::segd::uniform(m, 1), vseg::array<int>(many),
                                                      vseg::array<std::int32_t>(zeros), vseg::segd::uniform(m, 1),
                                                      std::span<int>(dest)),
                         "vseg::permute_default_s_into: index 1 at position 31337 outside its segment", std::out_of_range);
  });
}
