// Tests for vseg/detail/index_buffers.hpp: the shared zeros and iota behind
// replicate and expand, at counts far beyond what memory can hold. Each
// huge request must end in bounded time with the count in the message (or,
// where a representation needs no n-element buffer, succeed with the right
// size): never a hang, an overflow (run under UBSan) or a bare bad_alloc.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>

#include "support.hpp"
#include "vseg/detail/index_buffers.hpp"
#include "vseg/vseg.hpp"

using vseg::array;

namespace {

constexpr std::int64_t two_to(int k) { return std::int64_t{1} << k; }
constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

// Calls make(n) and checks that it either returns an array of n segments or
// throws std::length_error / std::bad_alloc whose message names the
// operation and n, within `seconds`.
template <class Make>
void check_huge(std::int64_t n, const std::string& operation, Make make, double seconds = 10) {
  INFO("n = ", n);
  const auto start = std::chrono::steady_clock::now();
  try {
    const auto r = make(n);
    CHECK(r.size() == n);
  } catch (const std::length_error& e) {
    CHECK_MESSAGE(std::string(e.what()).find(std::to_string(n)) != std::string::npos, e.what());
    CHECK_MESSAGE(std::string(e.what()).find(operation) != std::string::npos, e.what());
  } catch (const std::bad_alloc& e) {
    CHECK_MESSAGE(std::string(e.what()).find(std::to_string(n)) != std::string::npos, e.what());
    CHECK_MESSAGE(std::string(e.what()).find(operation) != std::string::npos, e.what());
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  CHECK(took.count() < seconds);
}

}  // namespace

TEST_CASE("index_buffers: replicate with a huge count ends with a clear error") {
  const array<int> xs{1, 2, 3};
  for (std::int64_t n : {two_to(44), two_to(59), two_to(61), two_to(62), two_to(62) + 1, int64_max})
    check_huge(n, "replicate", [&](std::int64_t m) { return vseg::replicate(m, xs); });
}

TEST_CASE("index_buffers: expand of a replicated array by a huge count ends with a clear error") {
  const auto one = vseg::replicate(1, array<int>{7, 8});
  for (std::int64_t n : {two_to(44), two_to(61), two_to(62), two_to(62) + 1, int64_max})
    check_huge(n, "expand", [&](std::int64_t m) { return vseg::expand(array<std::int64_t>{m}, one); });
  // Two counts whose sum passes 2^63: an overflow error, not a wrapped size.
  CHECK_THROWS(vseg::expand(array<std::int64_t>{int64_max, 2}, vseg::replicate(2, array<int>{7})));
}

TEST_CASE("index_buffers: a count past the 2^63-byte limit is a length_error naming the caller") {
  using vseg::detail::shared_iota;
  using vseg::detail::shared_zeros;
  CHECK_THROWS_WITH_AS(shared_zeros<std::int64_t>(two_to(61), "replicate"),
                       doctest::Contains("vseg::replicate: 2305843009213693952 indices of 8 bytes"), std::length_error);
  CHECK_THROWS_WITH_AS(shared_zeros<std::int64_t>(int64_max),
                       doctest::Contains("vseg::shared_zeros: 9223372036854775807 indices"), std::length_error);
  CHECK_THROWS_WITH_AS(shared_iota<std::int64_t>(int64_max, "vsegids"),
                       doctest::Contains("vseg::vsegids: 9223372036854775807 indices"), std::length_error);
  // One byte per element: the limit is 2^63-1 elements, so only the mapping can fail.
  CHECK_THROWS_WITH_AS(shared_zeros<std::int8_t>(int64_max, "expand"),
                       doctest::Contains("vseg::expand: cannot map"), std::bad_alloc);
}

TEST_CASE("index_buffers: capacities stop at the limit instead of overflowing") {
  using vseg::detail::iota_capacity;
  using vseg::detail::zeros_capacity;
  CHECK(zeros_capacity(1, int64_max) == two_to(16));
  CHECK(zeros_capacity(two_to(16) + 1, int64_max) == two_to(17));
  CHECK(zeros_capacity(two_to(62), int64_max) == two_to(62));
  CHECK(zeros_capacity(two_to(62) + 1, int64_max) == two_to(62) + 1);  // 2^63 does not exist
  CHECK(zeros_capacity(int64_max, int64_max) == int64_max);
  CHECK(zeros_capacity(two_to(59) + 3, two_to(60) - 1) == two_to(59) + 3);
  CHECK(iota_capacity(1, int64_max) == two_to(16));
  CHECK(iota_capacity(two_to(16) + 1, int64_max) == two_to(17));
  CHECK(iota_capacity(int64_max - 5, int64_max) == int64_max - 5);
}

TEST_CASE("index_buffers: a refused request leaves the cache usable") {
  using vseg::detail::shared_zeros;
  const auto small = shared_zeros<std::int64_t>(1000);  // keeps the 2^16-zero buffer alive
  CHECK_THROWS_AS(shared_zeros<std::int64_t>(two_to(59)), std::bad_alloc);  // 2^62 bytes: no mapping
  // The cache must still describe the 2^16-zero buffer, so this call maps a
  // new, large enough buffer (a stale size would hand out a slice past the
  // old one's end: a crash, or an ASan report).
  const std::int64_t n = two_to(20);
  const auto big = shared_zeros<std::int64_t>(n);
  REQUIRE(big.size() == n);
  CHECK(big[n - 1] == 0);
  CHECK(vseg::reduce(big, vseg::plus<std::int64_t>{}) == 0);
  CHECK(small.size() == 1000);
}

TEST_CASE("index_buffers: a large fill of zero bytes is a slice of the shared zeros, writing nothing") {
  const std::int64_t n = vseg::tuning::shared_zero_fill_min_bytes / 8;
  auto a = vseg::fill<std::int64_t>(2 * n, 0);
  auto b = vseg::fill<std::int64_t>(n, 0);
  REQUIRE(a.size() == 2 * n);
  CHECK(a.shares_buffer_with(b));  // no element written: one mapping
  CHECK(vseg::sum(a) == 0);
  CHECK(a.writable_if_unique().empty());  // read-only: never written in place
  auto zeros = vseg::fill<double>(n, 0.0);
  CHECK(zeros[n - 1] == 0.0);
  CHECK_FALSE(std::signbit(zeros[0]));
  // -0.0 is not all zero bytes: written copies, each with its sign.
  auto negative = vseg::fill<double>(n, -0.0);
  CHECK(std::signbit(negative[n / 2]));
  CHECK_FALSE(negative.shares_buffer_with(zeros));
  CHECK_FALSE(negative.writable_if_unique().empty());
  // Below the threshold a fill is an ordinary buffer of its own.
  auto small = vseg::fill<std::int64_t>(16, 0);
  CHECK_FALSE(small.writable_if_unique().empty());
  // A fill far beyond memory: O(1), or a clear error naming fill and n.
  for (std::int64_t m : {two_to(44), two_to(61), int64_max})
    check_huge(m, "fill", [](std::int64_t k) { return vseg::fill<std::int64_t>(k, 0); });
}

namespace {

// Reads every element of xs serially (so only this thread faults) and
// returns their sum, which the caller checks, so the reads are not elided.
std::int64_t read_all(const array<std::int32_t>& xs) {
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < xs.size(); ++i) total += xs[i];
  return total;
}

}  // namespace

TEST_CASE("index_buffers: zeros dropped and asked for again are read without a page fault") {
  // 1 MiB of INT zeros (the VCODE interpreter writes out splats of 0 this
  // way, again and again): 256 small pages. The mapping outlives its last
  // slice (tuning::shared_zeros_kept_bytes), so its faulted-in pages are
  // not faulted in again: counted, not timed.
  const std::int64_t n = vseg::tuning::shared_zero_fill_min_bytes / 4;
  static_assert(vseg::tuning::shared_zero_fill_min_bytes <= vseg::tuning::shared_zeros_kept_bytes);
  const std::int64_t pages = n * 4 / 4096;
  const void* first = nullptr;
  {
    const auto zeros = vseg::fill<std::int32_t>(n, 0);
    first = zeros.data();
    CHECK(read_all(zeros) == 0);  // faults the pages in (if not already)
  }
  const long before = vseg::test::thread_page_faults();
  const auto again = vseg::fill<std::int32_t>(n, 0);
  CHECK(read_all(again) == 0);
  const long faults = vseg::test::thread_page_faults() - before;
  CHECK(again.data() == first);
  // The same address: necessary, not sufficient (a new mapping can land
  // where the old one was unmapped). The fault count is the proof: without
  // the kept mapping this read took one fault per page (256).
  CHECK(faults < pages / 8);
}
