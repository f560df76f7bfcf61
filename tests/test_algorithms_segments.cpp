// vseg/algorithm's segment operations (gather, filter_segments, scatter,
// split, partition, interleave, count_s, segd::from_head_flags, stencil_2d)
// against sequential reference models on seeded random inputs, swept over
// thread counts (results compared bit for bit), plus the work contract of
// the nested gather (no element copied) and every bad-input error.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#include <doctest/doctest.h>

#include "support.hpp"
#include "vseg/algorithm.hpp"
#include "vseg/matrix_market.hpp"
#include "vseg/nested.hpp"

using vseg::array;
using vseg::nested;
using vseg::segd;
using namespace vseg::test;

namespace {

using ints = std::vector<std::int64_t>;
using ref_t = std::vector<ints>;

// Sizes around the serial cutoff, where the parallel paths begin.
std::vector<std::int64_t> sizes() {
  const std::int64_t c = vseg::tuning::serial_cutoff;
  return {0, 1, 2, 17, c - 1, c, c + 1, 3 * c + 7};
}

// Three nested arrays with the same segments ref: flat (identity vsegids),
// through expand (shared vsegids), and a replicated one with its own ref.
struct nested_case {
  const char* name;
  nested<std::int64_t> xss;
  ref_t ref;
};

std::vector<nested_case> nested_cases(std::mt19937_64& rng) {
  std::vector<nested_case> cases;
  const ints lengths = random_ints(rng, 3000, 0, 9);
  ref_t ref;
  ints data;
  for (std::int64_t len : lengths) {
    ref.push_back(random_ints(rng, len, -50, 50));
    data.insert(data.end(), ref.back().begin(), ref.back().end());
  }
  const auto flat = nested<std::int64_t>::from_lengths(array<std::int64_t>(lengths), array<std::int64_t>(data));
  cases.push_back({"flat", flat, ref});
  const ints counts = random_ints(rng, flat.size(), 0, 3);
  ref_t expanded;
  for (std::size_t i = 0; i < ref.size(); ++i)
    for (std::int64_t c = 0; c < counts[i]; ++c) expanded.push_back(ref[i]);
  cases.push_back({"expanded", vseg::expand(array<std::int64_t>(counts), flat), expanded});
  cases.push_back({"replicated", vseg::replicate(500, array<std::int64_t>{4, -1, 7}), ref_t(500, ints{4, -1, 7})});
  cases.push_back({"empty", nested<std::int64_t>(), {}});
  return cases;
}

}  // namespace

TEST_CASE("gather: nested by ids, against the reference, at every thread count") {
  auto rng = seeded(1301);
  for (auto& c : nested_cases(rng)) {
    INFO("case " << c.name);
    const auto n = static_cast<std::int64_t>(c.ref.size());
    for (std::int64_t k : {0, 1, 100, 40'000}) {
      if (n == 0 && k > 0) continue;
      const ints ids = random_ints(rng, k, 0, std::max<std::int64_t>(n - 1, 0));
      ref_t want;
      for (std::int64_t id : ids) want.push_back(c.ref[static_cast<std::size_t>(id)]);
      for_each_thread_count([&](int) {
        CHECK(vseg::to_vectors(vseg::gather(c.xss, array<std::int64_t>(ids))) == want);
        const std::vector<std::int32_t> narrow(ids.begin(), ids.end());
        CHECK(vseg::to_vectors(vseg::gather(c.xss, narrow)) == want);
      });
    }
  }
}

TEST_CASE("gather: flat, and filter_segments, against the reference") {
  auto rng = seeded(1302);
  for (std::int64_t n : sizes()) {
    INFO("n = " << n);
    const ints xs = random_ints(rng, n, -1000, 1000);
    const ints ids = n == 0 ? ints{} : random_ints(rng, 2 * n, 0, n - 1);
    ints want;
    for (std::int64_t id : ids) want.push_back(xs[static_cast<std::size_t>(id)]);
    for_each_thread_count([&](int) { CHECK(vseg::to_vector(vseg::gather(array<std::int64_t>(xs), ids)) == want); });
  }
  for (auto& c : nested_cases(rng)) {
    INFO("case " << c.name);
    const auto keep = random_flags_vector(rng, static_cast<std::int64_t>(c.ref.size()), 0.4);
    ref_t want, want_long;
    for (std::size_t i = 0; i < c.ref.size(); ++i) {
      if (keep[i]) want.push_back(c.ref[i]);
      if (i % 2 == 0 && c.ref[i].size() >= 3) want_long.push_back(c.ref[i]);
    }
    CHECK(vseg::to_vectors(vseg::filter_segments(c.xss, array<bool>(keep))) == want);
    auto pred = [](std::int64_t i, std::int64_t len) { return i % 2 == 0 && len >= 3; };
    CHECK(vseg::to_vectors(vseg::filter_segments(c.xss, pred)) == want_long);
  }
}

TEST_CASE("work contract: gather and filter_segments copy no element") {
  auto data = vseg::tabulate(10'000, [](std::int64_t i) { return counted(i); });
  auto xss = nested<counted>::from_lengths(vseg::fill<std::int64_t>(100, 100), data);
  auto shared = vseg::expand(vseg::fill<std::int64_t>(100, 3), xss);
  counted::copies = 0;
  auto g = vseg::gather(xss, vseg::tabulate(1'000'000, [](std::int64_t i) { return (i * 7) % 100; }));
  auto h = vseg::gather(shared, vseg::tabulate(50'000, [](std::int64_t i) { return 299 - i % 300; }));
  auto f = vseg::filter_segments(h, [](std::int64_t i, std::int64_t) { return i % 2 == 1; });
  CHECK(counted::copies == 0);
  CHECK(g.size() == 1'000'000);
  CHECK(g[3].data() == xss[21].data());  // the original elements, not copies
  CHECK(h[0].data() == xss[99].data());
  CHECK(f[0].data() == xss[99].data());  // h[1] is shared[298], segment 99 of xss
  CHECK(g.blocks()[0].shares_buffer_with(data));
}

// The serial scatters of values by ids into copies of dest, under every
// rule: the reference the scatter tests compare with.
template <class T>
struct scatters {
  std::vector<T> last, first, sum, lo, hi;
};
template <class T>
scatters<T> serial_scatters(const std::vector<T>& dest, const ints& ids, const std::vector<T>& values) {
  scatters<T> r{dest, dest, dest, dest, dest};
  std::vector<bool> seen(dest.size(), false);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto t = static_cast<std::size_t>(ids[i]);
    r.last[t] = values[i];
    if (!seen[t]) r.first[t] = values[i];
    seen[t] = true;
    r.sum[t] = r.sum[t] + values[i];
    r.lo[t] = std::min(r.lo[t], values[i]);
    r.hi[t] = std::max(r.hi[t], values[i]);
  }
  return r;
}

TEST_CASE("scatter: every combining rule against the serial reference, bit for bit") {
  auto rng = seeded(1303);
  for (std::int64_t n : sizes()) {
    if (n == 0) continue;
    for (std::int64_t k : {std::int64_t{0}, n / 2, n, 3 * n}) {
      for (std::int64_t spread : {std::int64_t{1}, n}) {  // many repeats, then few
        INFO("n = " << n << ", k = " << k << ", spread = " << spread);
        const auto dest = random_doubles(rng, n);
        const ints ids = random_ints(rng, k, 0, std::min(n, spread * 7 + 3) - 1);
        const auto values = random_doubles(rng, k);
        const auto [last, first, sum, lo, hi] = serial_scatters(dest, ids, values);
        const array<double> d(dest), v(values);
        const array<std::int64_t> ix(ids);
        for_each_thread_count([&](int) {
          CHECK(vseg::to_vector(vseg::scatter(d, ix, v)) == last);
          CHECK(vseg::to_vector(vseg::scatter(d, ix, v, vseg::last_wins{})) == last);
          CHECK(vseg::to_vector(vseg::scatter(d, ix, v, vseg::first_wins{})) == first);
          CHECK(same_bits(vseg::to_vector(vseg::scatter(d, ix, v, vseg::plus<double>{})), sum));
          CHECK(vseg::to_vector(vseg::scatter(d, ix, v, vseg::minimum<double>{})) == lo);
          CHECK(vseg::to_vector(vseg::scatter(d, ix, v, vseg::maximum<double>{})) == hi);
          std::vector<double> into = dest;
          vseg::scatter_into(into, ix, v, vseg::plus<double>{});
          CHECK(same_bits(into, sum));
          into = dest;
          vseg::scatter_into(std::span<double>(into), ix, v, vseg::first_wins{});
          CHECK(into == first);
        });
      }
    }
  }
}

TEST_CASE("scatter_into: few sources into a large destination (the sorted path), every rule") {
  auto rng = seeded(1309);
  const std::int64_t k = vseg::tuning::serial_cutoff + 1000;
  const std::int64_t n = (k + 1) * vseg::tuning::sparse_scatter_ratio_marks + 7;  // past both switches
  for (std::int64_t spread : {std::int64_t{50}, n}) {  // many repeats, then few
    INFO("spread = " << spread);
    const ints ids = random_ints(rng, k, 0, spread - 1);
    std::vector<std::int32_t> values(static_cast<std::size_t>(k));
    for (auto& v : values) v = static_cast<std::int32_t>(rng() % 1000) - 500;
    const std::vector<std::int32_t> dest(static_cast<std::size_t>(n), 7);
    const auto [last, first, sum, lo, hi] = serial_scatters(dest, ids, values);
    const array<std::int64_t> ix(ids);
    const array<std::int32_t> v(values);
    for_each_thread_count([&](int) {
      std::vector<std::int32_t> into = dest;
      vseg::scatter_into(into, ix, v, vseg::first_wins{});
      CHECK(into == first);
      into = dest;
      vseg::scatter_into(into, ix, v);
      CHECK(into == last);
      into = dest;
      vseg::scatter_into(into, ix, v, vseg::plus<std::int32_t>{});
      CHECK(into == sum);
    });
  }
  // Bad ids are still rejected before anything is written.
  std::vector<std::int32_t> into(static_cast<std::size_t>(n), 7);
  std::vector<std::int64_t> bad(static_cast<std::size_t>(k), 3);
  bad.back() = n;
  CHECK_THROWS_WITH_AS(vseg::scatter_into(into, array<std::int64_t>(bad), array<std::int32_t>(std::vector<std::int32_t>(bad.size(), 1))),
                       doctest::Contains("scatter_into"), std::out_of_range);
  CHECK(into[3] == 7);
}

TEST_CASE("scatter_into one value: repeated ids, against the serial reference") {
  auto rng = seeded(1307);
  for (std::int64_t n : sizes()) {
    if (n == 0) continue;
    for (std::int64_t k : {std::int64_t{0}, n / 2, 3 * n}) {
      INFO("n = " << n << ", k = " << k);
      const ints ids = random_ints(rng, k, 0, n - 1);
      std::vector<char> expected(static_cast<std::size_t>(n), 1);
      for (auto t : ids) expected[static_cast<std::size_t>(t)] = 0;
      const array<std::int64_t> ix(ids);
      for_each_thread_count([&](int) {
        std::vector<char> flags(static_cast<std::size_t>(n), 1);
        vseg::scatter_into(flags, ix, char{0});
        CHECK(flags == expected);
      });
    }
  }
  std::vector<double> dest{1, 2, 3};
  CHECK_THROWS_WITH_AS(vseg::scatter_into(dest, array<std::int64_t>{0, 3}, 0.0),
                       doctest::Contains("scatter_into: id 3 at position 1"), std::out_of_range);
  CHECK(dest == std::vector<double>{1, 2, 3});  // nothing written
}

TEST_CASE("split_s and partition_s: stable, against the reference, on every segment mix") {
  for (const auto& mix : standard_mixes(1304)) {
    INFO("mix " << mix.name);
    auto rng = seeded(1305);
    const segd s = segd::from_lengths(array<std::int64_t>(mix.lengths));
    // Values with many duplicates, and each segment's pivot one of them or not.
    const auto vals = random_ints(rng, s.elements(), -20, 20);
    std::vector<double> xs(vals.begin(), vals.end());
    const auto piv = random_ints(rng, s.segments(), -22, 22);
    ints want_lengths;
    std::vector<double> want;
    for (std::int64_t j = 0; j < s.segments(); ++j) {
      const auto p = static_cast<double>(piv[static_cast<std::size_t>(j)]);
      for (int side = 0; side < 3; ++side) {
        std::int64_t len = 0;
        for (std::int64_t e = s.start(j); e < s.end(j); ++e) {
          const double x = xs[static_cast<std::size_t>(e)];
          if ((side == 0 && x < p) || (side == 1 && x == p) || (side == 2 && x > p)) want.push_back(x), ++len;
        }
        want_lengths.push_back(len);
      }
    }
    const array<double> x(xs);
    const array<double> pivots(std::vector<double>(piv.begin(), piv.end()));
    for_each_thread_count([&](int) {
      const auto r = vseg::split_s(s, x, pivots);
      CHECK(vseg::to_vector(r.descriptor.lengths()) == want_lengths);
      CHECK(same_bits(vseg::to_vector(r.data), want));
    });
    // k = 5 takes the counting sort, k = 11 one pack per bucket.
    for (std::int64_t k : {5, 11}) {
      INFO("k = " << k);
      const auto buckets = random_ints(rng, s.elements(), 0, k - 1);
      ints want_plengths;
      std::vector<double> want_p;
      for (std::int64_t j = 0; j < s.segments(); ++j)
        for (std::int64_t b = 0; b < k; ++b) {
          std::int64_t len = 0;
          for (std::int64_t e = s.start(j); e < s.end(j); ++e)
            if (buckets[static_cast<std::size_t>(e)] == b) want_p.push_back(xs[static_cast<std::size_t>(e)]), ++len;
          want_plengths.push_back(len);
        }
      for_each_thread_count([&](int) {
        const auto p = vseg::partition_s(s, x, buckets, k);
        CHECK(vseg::to_vector(p.descriptor.lengths()) == want_plengths);
        CHECK(same_bits(vseg::to_vector(p.data), want_p));
      });
    }
  }
}

TEST_CASE("split and partition: flat, with a comparator, and k = 1") {
  auto rng = seeded(1306);
  for (std::int64_t n : sizes()) {
    INFO("n = " << n);
    const ints xs = random_ints(rng, n, -30, 30);
    const ints buckets = random_ints(rng, n, 0, 2);
    ints lt, eq, gt, by[3];
    for (std::size_t i = 0; i < xs.size(); ++i) {
      // Under std::greater, "less" means larger: the larger values come first.
      (xs[i] > 4 ? lt : xs[i] == 4 ? eq : gt).push_back(xs[i]);
      by[buckets[i]].push_back(xs[i]);
    }
    ints want = lt, want_p = by[0];
    want.insert(want.end(), eq.begin(), eq.end());
    want.insert(want.end(), gt.begin(), gt.end());
    for (int b = 1; b < 3; ++b) want_p.insert(want_p.end(), by[b].begin(), by[b].end());
    const array<std::int64_t> x(xs);
    for_each_thread_count([&](int) {
      const auto r = vseg::split(x, std::int64_t{4}, std::greater<>{});
      CHECK(vseg::to_vector(r.descriptor.lengths()) == ints{std::ssize(lt), std::ssize(eq), std::ssize(gt)});
      CHECK(vseg::to_vector(r.data) == want);
      const auto p = vseg::partition(x, array<std::int64_t>(buckets), 3);
      CHECK(vseg::to_vector(p.descriptor.lengths()) == ints{std::ssize(by[0]), std::ssize(by[1]), std::ssize(by[2])});
      CHECK(vseg::to_vector(p.data) == want_p);
    });
    const auto one = vseg::partition(x, ints(xs.size(), 0), 1);
    CHECK(vseg::to_vector(one.data) == xs);
  }
}

TEST_CASE("interleave, segd::from_head_flags, count_s, count_if_s against the reference") {
  auto rng = seeded(1307);
  for (std::int64_t n : sizes()) {
    INFO("n = " << n);
    const ints a = random_ints(rng, n, 0, 9), b = random_ints(rng, n, 10, 19), c = random_ints(rng, n, 20, 29);
    ints two, three;
    for (std::size_t i = 0; i < a.size(); ++i) {
      two.insert(two.end(), {a[i], b[i]});
      three.insert(three.end(), {a[i], b[i], c[i]});
    }
    const std::vector<array<std::int64_t>> arrays{array<std::int64_t>(a), array<std::int64_t>(b), array<std::int64_t>(c)};
    auto flags = random_flags_vector(rng, n, 0.1);
    if (n > 0) flags[0] = true;
    ints heads;
    for (std::int64_t i = 0; i < n; ++i)
      if (flags[static_cast<std::size_t>(i)]) heads.push_back(i);
    ints want_lengths;
    for (std::size_t j = 0; j < heads.size(); ++j) want_lengths.push_back((j + 1 < heads.size() ? heads[j + 1] : n) - heads[j]);
    const auto marks = random_flags_vector(rng, n, 0.5);
    ints want_count, want_odd;
    for (std::size_t j = 0; j < heads.size(); ++j) {
      std::int64_t cnt = 0, odd = 0;
      for (std::int64_t e = heads[j]; e < heads[j] + want_lengths[j]; ++e) {
        cnt += marks[static_cast<std::size_t>(e)] ? 1 : 0;
        odd += a[static_cast<std::size_t>(e)] % 2;
      }
      want_count.push_back(cnt);
      want_odd.push_back(odd);
    }
    for_each_thread_count([&](int) {
      CHECK(vseg::to_vector(vseg::interleave(arrays[0], arrays[1])) == two);
      CHECK(vseg::to_vector(vseg::interleave(std::span<const array<std::int64_t>>(arrays))) == three);
      const segd s = segd::from_head_flags(array<bool>(flags));
      CHECK(vseg::to_vector(s.lengths()) == want_lengths);
      CHECK(vseg::segd_from_flags(array<bool>(flags)) == s);
      CHECK(vseg::to_vector(vseg::count_s(s, array<bool>(marks))) == want_count);
      auto is_odd = [](std::int64_t x) { return x % 2 != 0; };
      CHECK(vseg::to_vector(vseg::count_if_s(s, arrays[0], is_odd)) == want_odd);
      const auto xss = nested<std::int64_t>::from_segd(s, arrays[0]);
      CHECK(vseg::to_vector(vseg::count_if_s(xss, is_odd)) == want_odd);
    });
  }
  // Nested arrays with shared segments count each virtual segment.
  for (auto& c : nested_cases(rng)) {
    INFO("case " << c.name);
    ints want;
    for (const auto& seg : c.ref) want.push_back(std::count_if(seg.begin(), seg.end(), [](std::int64_t x) { return x > 0; }));
    CHECK(vseg::to_vector(vseg::count_if_s(c.xss, [](std::int64_t x) { return x > 0; })) == want);
  }
}

TEST_CASE("stencil_2d: against a dense reference") {
  for (int points : {5, 9}) {
    for (auto [nx, ny] : {std::pair<std::int64_t, std::int64_t>{0, 3}, {1, 1}, {3, 4}, {7, 2}, {40, 31}}) {
      INFO("points = " << points << ", grid " << nx << " x " << ny);
      const vseg::csr_matrix m = vseg::stencil_2d(nx, ny, points);
      CHECK(m.rows == nx * ny);
      CHECK(m.cols == nx * ny);
      std::vector<std::map<std::int64_t, double>> want(static_cast<std::size_t>(nx * ny));
      for (std::int64_t x = 0; x < nx; ++x)
        for (std::int64_t y = 0; y < ny; ++y)
          for (std::int64_t u = 0; u < nx; ++u)
            for (std::int64_t v = 0; v < ny; ++v) {
              const std::int64_t dx = std::abs(u - x), dy = std::abs(v - y);
              if (dx > 1 || dy > 1 || (points == 5 && dx + dy > 1)) continue;
              want[static_cast<std::size_t>(x * ny + y)][u * ny + v] = dx + dy == 0 ? points - 1 : -1.0;
            }
      std::int64_t k = 0;
      for (std::int64_t r = 0; r < m.rows; ++r) {
        const auto& row = want[static_cast<std::size_t>(r)];
        REQUIRE(m.row_lengths[r] == std::ssize(row));
        for (const auto& [col, val] : row) {
          CHECK(m.col_indices[k] == col);
          CHECK(m.values[k] == val);
          ++k;
        }
      }
      CHECK(k == m.nnz());
    }
  }
}

TEST_CASE("bad input: every operation names itself and the offending value") {
  const array<std::int64_t> xs{1, 2, 3};
  const auto xss = nested<std::int64_t>::from_lengths(array<std::int64_t>{2, 1}, xs);
  CHECK_THROWS_WITH_AS(vseg::gather(xss, array<std::int64_t>{0, 2}),
                       doctest::Contains("gather: id 2 at position 1 outside [0, 2)"), std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::gather(xss, std::vector<int>{-1}), doctest::Contains("gather: id -1 at position 0"),
                       std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::gather(xs, std::vector<unsigned>{0, 1, 3}),
                       doctest::Contains("gather: id 3 at position 2 outside [0, 3)"), std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::filter_segments(xss, array<bool>{true}),
                       doctest::Contains("filter_segments: keep has size 1 but the nested array has 2"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::scatter(xs, array<std::int64_t>{0, 5}, array<std::int64_t>{1, 1}),
                       doctest::Contains("scatter: id 5 at position 1 outside [0, 3)"), std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::scatter(xs, array<std::int64_t>{0}, array<std::int64_t>{1, 1}, vseg::first_wins{}),
                       doctest::Contains("scatter: ids has size 1 but values has size 2"), std::invalid_argument);
  std::vector<std::int64_t> dest{7, 7};
  CHECK_THROWS_WITH_AS(vseg::scatter_into(dest, array<std::int64_t>{1, -3}, array<std::int64_t>{1, 1}, vseg::plus<std::int64_t>{}),
                       doctest::Contains("scatter_into: id -3 at position 1"), std::out_of_range);
  CHECK(dest == ints{7, 7});  // nothing written
  const segd s = segd::from_lengths(array<std::int64_t>{2, 1});
  CHECK_THROWS_WITH_AS(vseg::split_s(s, xs, array<std::int64_t>{1}),
                       doctest::Contains("split_s: pivots has size 1 but the segment descriptor has 2"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::split_s(s, array<std::int64_t>{1, 2}, array<std::int64_t>{1, 1}),
                       doctest::Contains("split_s: the segment descriptor covers 3 elements but the data has 2"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::partition(xs, array<std::int64_t>{0, 3, 1}, 3),
                       doctest::Contains("partition: bucket 3 at position 1 outside [0, 3)"), std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::partition(xs, array<std::int64_t>{0, 0, 0}, 0),
                       doctest::Contains("partition: bucket count k = 0"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::partition(xs, array<std::int64_t>{0, 0}, 2),
                       doctest::Contains("partition: xs has size 3 but buckets has size 2"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::partition_s(s, xs, array<std::int64_t>{0, 0, -1}, 2),
                       doctest::Contains("partition_s: bucket -1 at position 2"), std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::partition_s(s, xs, array<std::int64_t>{0, 0}, 2),
                       doctest::Contains("partition_s: the segment descriptor covers 3 elements but the buckets have 2"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::partition_s(s, xs, array<std::int64_t>{0, 0, 0}, -4),
                       doctest::Contains("partition_s: bucket count k = -4"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::interleave(xs, array<std::int64_t>{1}),
                       doctest::Contains("interleave: xs has size 3 but ys has size 1"), std::invalid_argument);
  const std::vector<array<std::int64_t>> uneven{xs, xs, array<std::int64_t>{1}};
  CHECK_THROWS_WITH_AS(vseg::interleave(std::span<const array<std::int64_t>>(uneven)),
                       doctest::Contains("interleave: array 2 has size 1 but array 0 has size 3"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(segd::from_head_flags(array<bool>{false, true}),
                       doctest::Contains("segd::from_head_flags: the first flag is false"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::segd_from_flags(array<bool>{false}),
                       doctest::Contains("segd::from_head_flags: the first flag is false"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::count_s(s, array<bool>{true}),
                       doctest::Contains("count_s: the segment descriptor covers 3 elements but the flags have 1"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::count_if_s(s, array<int>{1}, [](int) { return true; }),
                       doctest::Contains("count_if_s: the segment descriptor covers 3 elements"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::stencil_2d(3, 3, 7), doctest::Contains("stencil_2d: points = 7, must be 5 or 9"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::stencil_2d(-1, 3, 5), doctest::Contains("stencil_2d: negative grid size nx = -1"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::stencil_2d(3, -2, 9), doctest::Contains("stencil_2d: negative grid size ny = -2"),
                       std::invalid_argument);
}

TEST_CASE("segmented_array and nested convert at no copy where the layout allows") {
  auto data = vseg::tabulate(1000, [](std::int64_t i) { return counted(i); });
  const vseg::segmented_array<counted> sa{segd::from_lengths(vseg::fill<std::int64_t>(10, 100)), data};
  counted::copies = 0;
  const auto xss = vseg::to_nested(sa);
  const auto same = nested<counted>::from_segmented(sa);
  const auto back = vseg::to_segmented(xss);
  CHECK(counted::copies == 0);
  CHECK(xss.size() == 10);
  CHECK(same[3].data() == data.data() + 300);
  CHECK(back.data.shares_buffer_with(data));
  CHECK(back.descriptor == sa.descriptor);
  // Shared segments have no contiguous layout: to_segmented copies them.
  const auto shared = vseg::gather(xss, array<std::int64_t>{9, 9, 0});
  const auto copied = vseg::to_segmented(shared);
  CHECK(counted::copies == 300);
  CHECK(vseg::to_vector(copied.descriptor.lengths()) == ints{100, 100, 100});
  CHECK(copied.data[100].value == 900);
  CHECK(copied.data[200].value == 0);
  CHECK(!copied.data.shares_buffer_with(data));
}
