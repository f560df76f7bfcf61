#include <cstdint>
#include <list>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "vseg/array.hpp"

using vseg::array;

TEST_CASE("array: construction from initializer list, vector and ranges") {
  array<int> a{1, 2, 3};
  CHECK(a.size() == 3);
  CHECK(a[0] == 1);
  CHECK(a[2] == 3);
  CHECK(vseg::to_vector(a) == std::vector<int>{1, 2, 3});

  std::vector<double> v{0.5, 1.5};
  const double* storage = v.data();
  array<double> b(std::move(v));
  CHECK(b.size() == 2);
  CHECK(b.data() == storage);  // the vector's elements were taken over, not copied

  std::list<int> l{4, 5, 6, 7};
  array<int> c(l);
  CHECK(vseg::to_vector(c) == std::vector<int>{4, 5, 6, 7});

  array<int> empty;
  CHECK(empty.size() == 0);
  CHECK(empty.empty());
  CHECK(empty.begin() == empty.end());
}

TEST_CASE("array: copies and slices share the buffer") {
  array<int> a{0, 1, 2, 3, 4, 5};
  array<int> copy = a;
  CHECK(copy.data() == a.data());
  CHECK(copy.shares_buffer_with(a));
  array<int> s = a.slice(2, 3);
  CHECK(vseg::to_vector(s) == std::vector<int>{2, 3, 4});
  CHECK(s.data() == a.data() + 2);
  CHECK(s.shares_buffer_with(a));
  CHECK(a.slice(6, 0).size() == 0);
  array<int> other{0, 1, 2, 3, 4, 5};
  CHECK(other == a);
  CHECK_FALSE(other.shares_buffer_with(a));
}

TEST_CASE("array: writable_if_unique only for the sole owner of a buffer") {
  array<int> a{0, 1, 2, 3};
  {
    array<int> copy = a;
    CHECK(a.writable_if_unique().data() == nullptr);  // shared: a write would show in copy
  }
  auto w = a.writable_if_unique();
  REQUIRE(w.size() == 4);
  CHECK(w.data() == a.data());
  w[2] = 7;
  CHECK(vseg::to_vector(a) == std::vector<int>{0, 1, 7, 3});
  // A slice that alone holds the buffer may be written: nothing else sees it.
  array<int> s = array<int>{5, 6, 7}.slice(1, 2);
  CHECK(s.writable_if_unique().size() == 2);
  // Memory adopted from elsewhere (maybe read-only) is never writable.
  static const int fixed[3] = {1, 2, 3};
  auto adopted = array<int>::adopt(std::make_shared<int>(0), fixed, 3);
  CHECK(adopted.writable_if_unique().data() == nullptr);
  array<int> from_vector(std::vector<int>{1, 2});
  CHECK(from_vector.writable_if_unique().data() == nullptr);
  CHECK(array<int>{}.writable_if_unique().data() == nullptr);
}

TEST_CASE("array: bad slices and indices throw naming the value") {
  array<int> a{1, 2, 3};
  CHECK_THROWS_WITH_AS(a.slice(2, 2), doctest::Contains("slice [2, 2 + 2)"), std::out_of_range);
  CHECK_THROWS_AS(a.slice(-1, 1), std::out_of_range);
  CHECK_THROWS_AS(a.slice(0, -1), std::out_of_range);
  CHECK_THROWS_WITH_AS(a.at(3), doctest::Contains("index 3"), std::out_of_range);
  CHECK_THROWS_AS(a.at(-1), std::out_of_range);
  CHECK(a.at(1) == 2);
  CHECK_THROWS_WITH_AS(vseg::buffer<int>::for_overwrite(-5), doctest::Contains("-5"),
                       std::invalid_argument);
}

TEST_CASE("array<bool> is one byte per element with data() and spans") {
  std::vector<bool> bits{true, false, true};
  array<bool> a(bits);
  CHECK(a.size() == 3);
  const bool* p = a.data();
  CHECK(p[0]);
  CHECK_FALSE(p[1]);
  std::span<const bool> s = a;
  CHECK(s.size() == 3);
  CHECK(s[2]);
  static_assert(sizeof(*a.data()) == 1);
}

TEST_CASE("buffer: filled, written, frozen") {
  auto b = vseg::buffer<std::int64_t>::for_overwrite(5);
  for (std::int64_t i = 0; i < 5; ++i) b[i] = i * i;
  const auto* storage = b.data();
  array<std::int64_t> a = std::move(b).freeze();
  CHECK(a.data() == storage);
  CHECK(vseg::to_vector(a) == std::vector<std::int64_t>{0, 1, 4, 9, 16});
  CHECK(b.size() == 0);
  auto f = vseg::buffer<std::string>::filled(2, "x");
  CHECK(std::move(f).freeze()[1] == "x");
}

TEST_CASE("array: sizes above 2^31 index correctly") {
  // 2^31 + 16 one-byte elements: 2 GiB, enough to show 64-bit indexing.
  const std::int64_t n = (std::int64_t{1} << 31) + 16;
  auto b = vseg::buffer<unsigned char>::for_overwrite(n);
  b[n - 1] = 7;
  b[(std::int64_t{1} << 31)] = 9;
  array<unsigned char> a = std::move(b).freeze();
  CHECK(a.size() == n);
  CHECK(a[n - 1] == 7);
  CHECK(a.slice(n - 16, 16)[0] == 9);
}
