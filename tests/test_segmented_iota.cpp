// Tests of vseg/segmented/iota.hpp: arithmetic sequences per segment.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "support.hpp"
#include "vseg/segmented/iota.hpp"

TEST_CASE("iota_s matches the model on seeded random segmentations") {
  for (std::uint64_t seed : {7u, 8u}) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (std::int64_t max_len : {0, 1, 50, 70000}) {
      std::vector<std::int64_t> lengths;
      std::vector<std::int32_t> starts, strides, expect;
      for (int j = 0; j < 37; ++j) {
        const std::int64_t len = max_len == 0 ? 0 : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(max_len + 1));
        lengths.push_back(len);
        starts.push_back(static_cast<std::int32_t>(rng() % 1000) - 500);
        strides.push_back(static_cast<std::int32_t>(rng() % 7) - 3);
        for (std::int64_t i = 0; i < len; ++i)
          expect.push_back(static_cast<std::int32_t>(starts.back() + static_cast<std::int32_t>(i) * strides.back()));
      }
      const auto s = vseg::segd::from_lengths(vseg::array<std::int64_t>(lengths));
      vseg::test::for_each_thread_count([&](int) {
        CHECK(vseg::to_vector(vseg::iota_s(s, vseg::array<std::int32_t>(starts), vseg::array<std::int32_t>(strides))) == expect);
      });
    }
  }
}

TEST_CASE("iota_s wraps narrow integers and checks its sizes") {
  const auto s = vseg::segd::from_lengths(vseg::array<std::int64_t>{3});
  const std::int32_t big = std::numeric_limits<std::int32_t>::max();
  CHECK(vseg::to_vector(vseg::iota_s(s, vseg::array<std::int32_t>{big}, vseg::array<std::int32_t>{1})) ==
        std::vector<std::int32_t>{big, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::min() + 1});
  CHECK(vseg::to_vector(vseg::iota_s(s, vseg::array<double>{0.5}, vseg::array<double>{0.25})) ==
        std::vector<double>{0.5, 0.75, 1.0});
  CHECK_THROWS_AS(vseg::iota_s(s, vseg::array<int>{1, 2}, vseg::array<int>{1}), std::invalid_argument);
}
