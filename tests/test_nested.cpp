// nested<T> against a std::vector<std::vector<T>> reference, and the work
// contracts counted with an element type that counts its copies.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include <doctest/doctest.h>

#include "support.hpp"
#include "vseg/nested.hpp"

using vseg::array;
using vseg::nested;
using namespace vseg::test;

namespace {

using ref_t = std::vector<std::vector<std::int64_t>>;

// A random nested array with shared, repeated, empty and unreachable physical
// segments over several data blocks, and its reference.
struct random_nested {
  nested<std::int64_t> xss;
  ref_t ref;
};

random_nested make_random(std::mt19937_64& rng, std::int64_t vsegs, std::int64_t max_len) {
  std::vector<array<std::int64_t>> blocks;
  std::vector<std::int64_t> sources, starts, lengths;
  for (int b = 0; b < 3; ++b) {
    auto data = random_ints(rng, 1000 + b * 500, -1000, 1000);
    blocks.emplace_back(data);
  }
  const std::int64_t physical = std::max<std::int64_t>(1, vsegs / 2 + 1);
  for (std::int64_t p = 0; p < physical; ++p) {
    const auto b = static_cast<std::int64_t>(rng() % 3);
    const std::int64_t size = blocks[static_cast<std::size_t>(b)].size();
    const std::int64_t len = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(max_len + 1));
    const std::int64_t start = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(size - len + 1));
    sources.push_back(b);
    starts.push_back(start);
    lengths.push_back(p % 7 == 3 ? 0 : len);  // some empty physical segments
  }
  // vsegids: random, so some physical segments repeat and some are unreachable.
  auto vsegids = random_ints(rng, vsegs, 0, physical - 1);
  auto xss = nested<std::int64_t>::from_descriptors(
      blocks, array<std::int64_t>(sources), array<std::int64_t>(starts),
      array<std::int64_t>(lengths), array<std::int64_t>(vsegids));
  xss.validate_full();
  ref_t ref;
  for (auto v : vsegids) {
    auto p = static_cast<std::size_t>(v);
    auto& blk = blocks[static_cast<std::size_t>(sources[p])];
    ref.emplace_back(blk.begin() + starts[p], blk.begin() + starts[p] + lengths[p]);
  }
  return {xss, ref};
}

}  // namespace

TEST_CASE("nested: construction, lengths, indexing, to_vectors") {
  ref_t r{{1, 2, 3}, {}, {4}, {5, 6}};
  auto xss = nested<std::int64_t>::from(r);
  CHECK(xss.size() == 4);
  CHECK(vseg::to_vector(xss.lengths()) == std::vector<std::int64_t>{3, 0, 1, 2});
  CHECK(vseg::to_vectors(xss) == r);
  CHECK(xss[3][1] == 6);
  CHECK(xss.physical_segments() == 4);
  auto ys = nested<std::int64_t>::from_lengths(array<std::int64_t>{2, 1}, array<std::int64_t>{7, 8, 9});
  CHECK(vseg::to_vectors(ys) == ref_t{{7, 8}, {9}});
  CHECK(vseg::to_vectors(nested<std::int64_t>()) == ref_t{});
  CHECK_THROWS_WITH_AS(nested<int>::from_lengths(array<std::int64_t>{2, 2}, array<int>{1, 2, 3}),
                       doctest::Contains("covers 4 elements but the data has 3"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(nested<int>::from_lengths(array<std::int64_t>{2, -1}, array<int>{1}),
                       doctest::Contains("negative length -1"), std::invalid_argument);
  CHECK_THROWS_AS(xss.at(4), std::out_of_range);
}

TEST_CASE("nested: arrays built from a segd keep their identity vsegids implicit") {
  auto rng = seeded(21);
  ref_t ref;
  for (std::int64_t i = 0; i < 3000; ++i)
    ref.push_back(random_ints(rng, static_cast<std::int64_t>(rng() % 6), -100, 100));
  const auto xss = nested<std::int64_t>::from(ref);
  const std::int64_t n = xss.size();
  REQUIRE(xss.identity_vsegids());
  // Not stored, but the descriptor reads as the identity.
  CHECK(vseg::to_vector(xss.vsegids()) == vseg::to_vector(vseg::iota(n)));
  CHECK_NOTHROW(xss.validate_full());
  CHECK(xss.physical_segments() == n);
  CHECK(vseg::to_vectors(xss.cull()) == ref);
  CHECK(xss.cull().identity_vsegids());
  // Results that keep the descriptor (scan_s, map) keep the identity too.
  CHECK(vseg::scan_s(xss).identity_vsegids());
  const auto doubled = vseg::map([](std::int64_t x) { return 2 * x; }, xss);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < ref[static_cast<std::size_t>(i)].size(); ++k)
      REQUIRE(doubled[i][k] == 2 * ref[static_cast<std::size_t>(i)][k]);
  // Descriptor operations read the implicit vsegids and store explicit ones.
  const auto e = vseg::expand(vseg::fill<std::int64_t>(n, 2), xss);
  CHECK_FALSE(e.identity_vsegids());
  ref_t re;
  for (const auto& s : ref) re.insert(re.end(), {s, s});
  CHECK(vseg::to_vectors(e) == re);
  const auto x = vseg::extract(xss, 10, 20);
  CHECK(vseg::to_vectors(x) == ref_t(ref.begin() + 10, ref.begin() + 30));
  const auto a = vseg::append(xss, xss);
  CHECK(a.size() == 2 * n);
  CHECK(vseg::to_vectors(vseg::extract(a, n, n)) == ref);
  const auto flags = vseg::tabulate(n, [](std::int64_t i) { return i % 3 != 0; });
  const auto p = vseg::pack(xss, flags);
  CHECK(p.physical_segments() == n - (n + 2) / 3);
  const auto lengths = xss.lengths();
  const auto sl = vseg::slice_l(xss, vseg::fill<std::int64_t>(n, 0),
                                vseg::tabulate(n, [&](std::int64_t i) { return lengths[i] / 2; }));
  for (std::int64_t i = 0; i < n; ++i) {
    REQUIRE(sl.length(i) == lengths[i] / 2);
    if (lengths[i] / 2 > 0) REQUIRE(sl[i].data() == xss[i].data());
  }
  std::vector<std::int64_t> sums;
  for (const auto& s : ref) sums.push_back(std::accumulate(s.begin(), s.end(), std::int64_t{0}));
  CHECK(vseg::to_vector(vseg::sum_s(xss)) == sums);
}

TEST_CASE("nested: treeLookup's paths (equal counts over identity vsegids, index_l over one block's slices)") {
  // expand by equal counts of an array with identity vsegids computes the
  // vsegids from the position; an overflow of the total is reported.
  const array<std::int64_t> data = vseg::iota(20'000);
  const auto xss = nested<std::int64_t>::from_lengths(vseg::fill<std::int64_t>(5'000, 4), data);
  REQUIRE(xss.identity_vsegids());
  for (std::int64_t each : {1, 3}) {
    const auto e = vseg::expand(vseg::fill<std::int64_t>(xss.size(), each), xss);
    REQUIRE(e.size() == xss.size() * each);
    const auto ids = e.vsegids();
    bool all = true;
    for (std::int64_t k = 0; k < e.size(); ++k) all = all && ids[k] == k / each;
    CHECK(all);
  }
  const auto four = nested<std::int64_t>::from_lengths(vseg::fill<std::int64_t>(4, 1), vseg::iota(4));
  CHECK_THROWS_WITH_AS(vseg::expand(vseg::fill<std::int64_t>(4, std::int64_t{1} << 62), four),
                       doctest::Contains("expand: the counts sum past int64"), std::overflow_error);
  // index_l over slice_l's result (one block, identity vsegids): element
  // ix[k] of the k-th slice, checked against the slice's length.
  const auto sl = vseg::slice_l(xss, vseg::fill<std::int64_t>(5'000, 1), vseg::fill<std::int64_t>(5'000, 2));
  REQUIRE(sl.identity_vsegids());
  const auto picked = vseg::index_l(sl, vseg::tabulate(sl.size(), [](std::int64_t k) { return k % 2; }));
  bool all = true;
  for (std::int64_t k = 0; k < sl.size(); ++k) all = all && picked[k] == 4 * k + 1 + k % 2;
  CHECK(all);
  auto bad = vseg::tabulate(sl.size(), [](std::int64_t k) { return k < 3'000 ? std::int64_t{0} : std::int64_t{2}; });
  CHECK_THROWS_WITH_AS(vseg::index_l(sl, bad), doctest::Contains("index_l: index 2 outside segment 3000 of length 2"),
                       std::out_of_range);
}

TEST_CASE("nested: one physical segment (replicate) takes the gather and shared-zeros paths") {
  const array<std::int64_t> xs{10, 11, 12};
  const auto r = vseg::replicate(4, xs);
  // index_l: a plain gather, still checked
  CHECK(vseg::to_vector(vseg::index_l(r, array<std::int64_t>{2, 0, 1, 2})) ==
        std::vector<std::int64_t>{12, 10, 11, 12});
  CHECK_THROWS_WITH_AS(vseg::index_l(r, array<std::int64_t>{0, 3, 0, -1}),
                       doctest::Contains("index_l: index 3 outside segment 1 of length 3"), std::out_of_range);
  CHECK(vseg::index_l(vseg::replicate(0, xs), array<std::int64_t>{}).size() == 0);
  // expand: the result names the one segment counts-sum times
  const auto e = vseg::expand(array<std::int64_t>{2, 0, 3, 1}, r);
  CHECK(e.size() == 6);
  CHECK(e.descriptor_segments() == 1);
  CHECK(vseg::to_vectors(e) == ref_t(6, ref_t::value_type{10, 11, 12}));
  CHECK_THROWS_WITH_AS(vseg::expand(array<std::int64_t>{1, -1, 0, 0}, r),
                       doctest::Contains("expand: negative count -1 for segment 1"), std::invalid_argument);
  // slice_l of it: one physical segment per virtual one, identity vsegids
  const auto sl = vseg::slice_l(e, vseg::fill<std::int64_t>(6, 1), vseg::fill<std::int64_t>(6, 2));
  CHECK(sl.identity_vsegids());
  CHECK(vseg::to_vectors(sl) == ref_t(6, ref_t::value_type{11, 12}));
  CHECK_NOTHROW(sl.validate_full());
}

TEST_CASE("nested: every operation matches the reference on random shared descriptors") {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
    for (std::int64_t vsegs : {0, 1, 17, 5000}) {
      INFO("seed = " << seed << ", vsegs = " << vsegs);
      auto rng = seeded(seed * 1000 + static_cast<std::uint64_t>(vsegs));
      auto [xss, ref] = make_random(rng, vsegs, 40);
      auto [yss, yref] = make_random(rng, vsegs, 10);
      for_each_thread_count([&](int) {
        CHECK(vseg::to_vectors(xss) == ref);
        // lengths, virtual_elements
        std::vector<std::int64_t> ref_len;
        std::int64_t total = 0;
        for (auto& s : ref) {
          ref_len.push_back(static_cast<std::int64_t>(s.size()));
          total += static_cast<std::int64_t>(s.size());
        }
        CHECK(vseg::to_vector(xss.lengths()) == ref_len);
        CHECK(vseg::virtual_elements(xss) == total);
        // concat
        std::vector<std::int64_t> flat;
        for (auto& s : ref) flat.insert(flat.end(), s.begin(), s.end());
        CHECK(vseg::to_vector(vseg::concat(xss)) == flat);
        // unconcat
        CHECK(vseg::to_vectors(vseg::unconcat(xss, vseg::concat(xss))) == ref);
        // sum_s, fold_s (max), scan_s
        std::vector<std::int64_t> ref_sum, ref_max;
        ref_t ref_scan;
        for (auto& s : ref) {
          ref_sum.push_back(std::accumulate(s.begin(), s.end(), std::int64_t{0}));
          ref_max.push_back(s.empty() ? std::numeric_limits<std::int64_t>::lowest()
                                      : *std::max_element(s.begin(), s.end()));
          ref_scan.emplace_back();
          std::int64_t acc = 0;
          for (auto x : s) {
            ref_scan.back().push_back(acc);
            acc += x;
          }
        }
        CHECK(vseg::to_vector(vseg::sum_s(xss)) == ref_sum);
        CHECK(vseg::to_vector(vseg::fold_s(xss, vseg::maximum<std::int64_t>{})) == ref_max);
        CHECK(vseg::to_vector(vseg::fold_s(xss, std::int64_t{0}, std::plus<>{})) == ref_sum);
        CHECK(vseg::to_vectors(vseg::scan_s(xss)) == ref_scan);
        // map
        ref_t ref_map = ref;
        for (auto& s : ref_map)
          for (auto& x : s) x = x * 2 + 1;
        CHECK(vseg::to_vectors(vseg::map([](std::int64_t x) { return x * 2 + 1; }, xss)) == ref_map);
        // expand
        auto counts = random_ints(rng, xss.size(), 0, 3);
        ref_t ref_expand;
        for (std::size_t i = 0; i < ref.size(); ++i)
          for (std::int64_t c = 0; c < counts[i]; ++c) ref_expand.push_back(ref[i]);
        CHECK(vseg::to_vectors(vseg::expand(array<std::int64_t>(counts), xss)) == ref_expand);
        // pack
        auto flags = random_flags_vector(rng, xss.size(), 0.5);
        ref_t ref_pack;
        for (std::size_t i = 0; i < ref.size(); ++i)
          if (flags[i]) ref_pack.push_back(ref[i]);
        auto packed = vseg::pack(xss, array<bool>(flags));
        CHECK(vseg::to_vectors(packed) == ref_pack);
        CHECK(vseg::to_vectors(packed.cull()) == ref_pack);
        CHECK(packed.cull().descriptor_segments() == packed.physical_segments());
        // combine2: xss's physical segments are shared, and yss has its own
        std::vector<bool> tags(static_cast<std::size_t>(xss.size() + yss.size()), false);
        std::fill(tags.begin(), tags.begin() + yss.size(), true);
        std::shuffle(tags.begin(), tags.end(), rng);
        ref_t ref_comb;
        {
          std::size_t ia = 0, ib = 0;
          for (bool t : tags) ref_comb.push_back(t ? yref[ib++] : ref[ia++]);
        }
        CHECK(vseg::to_vectors(vseg::combine2(array<bool>(tags), xss, yss)) == ref_comb);
        // combine2 of an array with itself: the second copy's vsegids shift by
        // the *physical* count
        std::vector<bool> alt(static_cast<std::size_t>(2 * xss.size()));
        for (std::size_t q = 0; q < alt.size(); ++q) alt[q] = q % 2 == 1;
        ref_t ref_self;
        for (auto& seg : ref) {
          ref_self.push_back(seg);
          ref_self.push_back(seg);
        }
        CHECK(vseg::to_vectors(vseg::combine2(array<bool>(alt), xss, xss)) == ref_self);
        // append, append_l, extract
        ref_t ref_app = ref;
        ref_app.insert(ref_app.end(), yref.begin(), yref.end());
        CHECK(vseg::to_vectors(vseg::append(xss, yss)) == ref_app);
        CHECK(vseg::to_vectors(vseg::append(packed, packed)).size() == 2 * ref_pack.size());
        ref_t ref_appl = ref;
        for (std::size_t i = 0; i < ref.size(); ++i)
          ref_appl[i].insert(ref_appl[i].end(), yref[i].begin(), yref[i].end());
        CHECK(vseg::to_vectors(vseg::append_l(xss, yss)) == ref_appl);
        if (xss.size() >= 3) {
          CHECK(vseg::to_vectors(vseg::extract(xss, 1, 2)) == ref_t(ref.begin() + 1, ref.begin() + 3));
        }
        // index_l, flat and nested
        std::vector<std::int64_t> is, ref_idx;
        std::vector<std::vector<std::int64_t>> iss;
        ref_t ref_idx_l;
        for (auto& s : ref) {
          is.push_back(s.empty() ? 0 : static_cast<std::int64_t>(rng() % s.size()));
          ref_idx.push_back(s.empty() ? 0 : s[static_cast<std::size_t>(is.back())]);
          iss.emplace_back();
          ref_idx_l.emplace_back();
          for (int q = 0; q < 3 && !s.empty(); ++q) {
            iss.back().push_back(static_cast<std::int64_t>(rng() % s.size()));
            ref_idx_l.back().push_back(s[static_cast<std::size_t>(iss.back().back())]);
          }
        }
        const bool any_empty = std::any_of(ref.begin(), ref.end(), [](auto& s) { return s.empty(); });
        if (!any_empty) CHECK(vseg::to_vector(vseg::index_l(xss, array<std::int64_t>(is))) == ref_idx);
        auto inner = nested<std::int64_t>::from(iss);
        nested<std::int64_t> got = vseg::index_l(xss, inner);
        CHECK(vseg::to_vectors(got) == ref_idx_l);
        // zip_with over two nested arrays of one shape
        ref_t ref_zip = ref;
        for (std::size_t i = 0; i < ref.size(); ++i)
          for (std::size_t k = 0; k < ref[i].size(); ++k) ref_zip[i][k] = ref[i][k] - ref_map[i][k];
        auto mapped = vseg::map([](std::int64_t x) { return x * 2 + 1; }, xss);
        CHECK(vseg::to_vectors(vseg::zip_with(std::minus<>{}, xss, mapped)) == ref_zip);
      });
    }
  }
}

TEST_CASE("nested: a chain expand -> pack -> combine -> fold matches the reference") {
  auto rng = seeded(77);
  auto [xss, ref] = make_random(rng, 300, 20);
  auto counts = random_ints(rng, xss.size(), 0, 4);
  auto e = vseg::expand(array<std::int64_t>(counts), xss);
  ref_t re;
  for (std::size_t i = 0; i < ref.size(); ++i)
    for (std::int64_t c = 0; c < counts[i]; ++c) re.push_back(ref[i]);
  auto flags = random_flags_vector(rng, e.size(), 0.6);
  auto p = vseg::pack(e, array<bool>(flags));
  ref_t rp;
  for (std::size_t i = 0; i < re.size(); ++i)
    if (flags[i]) rp.push_back(re[i]);
  // tags: false takes the next packed segment, true the next of the original
  std::vector<bool> tags(rp.size() + ref.size(), false);
  std::fill(tags.begin(), tags.begin() + static_cast<std::ptrdiff_t>(ref.size()), true);
  std::shuffle(tags.begin(), tags.end(), rng);
  auto c = vseg::combine2(array<bool>(tags), p, xss);
  ref_t rc;
  std::size_t ia = 0, ib = 0;
  for (bool t : tags) rc.push_back(t ? ref[ib++] : rp[ia++]);
  CHECK(vseg::to_vectors(c) == rc);
  std::vector<std::int64_t> rs;
  for (auto& s : rc) rs.push_back(std::accumulate(s.begin(), s.end(), std::int64_t{0}));
  CHECK(vseg::to_vector(vseg::sum_s(c)) == rs);
}

TEST_CASE("work contracts: descriptor operations copy no element") {
  auto data = vseg::tabulate(10'000, [](std::int64_t i) { return counted(i); });
  auto xss = nested<counted>::from_lengths(vseg::fill<std::int64_t>(100, 100), data);
  counted::copies = 0;
  auto r = vseg::replicate(1'000'000, data);
  CHECK(r.size() == 1'000'000);
  CHECK(counted::copies == 0);
  auto e = vseg::expand(vseg::fill<std::int64_t>(100, 1000), xss);
  CHECK(e.size() == 100'000);
  auto p = vseg::pack(e, vseg::tabulate(e.size(), [](std::int64_t i) { return i % 3 == 0; }));
  auto c = vseg::combine2(vseg::tabulate(p.size() + e.size(), [&](std::int64_t i) { return i >= p.size(); }), p, e);
  auto a = vseg::append(c, r);
  auto x = vseg::extract(a, 5, 1000);
  CHECK(counted::copies == 0);
  CHECK(x[0].data() == xss[0].data());  // still the original elements
  CHECK(a.blocks()[0].shares_buffer_with(data));
  // index_l copies exactly the elements it returns.
  counted::copies = 0;
  auto picked = vseg::index_l(r, vseg::tabulate(r.size(), [](std::int64_t i) { return i % 10'000; }));
  CHECK(counted::copies == 1'000'000);
  CHECK(picked[12'345].value == 2345);
  // concat materialises: one copy per virtual element.
  counted::copies = 0;
  auto flat = vseg::concat(vseg::extract(e, 0, 50));
  CHECK(flat.size() == 5000);
  CHECK(counted::copies == 5000);
}

TEST_CASE("work contracts: sum_s reduces each reachable physical segment once") {
  std::atomic<std::int64_t> calls{0};
  auto counting_plus = vseg::make_monoid(
      [&](std::int64_t a, std::int64_t b) {
        calls.fetch_add(1, std::memory_order_relaxed);
        return a + b;
      },
      std::int64_t{0});
  auto xs = vseg::iota(1000);
  auto r = vseg::replicate(100'000, xs);  // 10^8 virtual elements
  auto sums = vseg::fold_s(r, counting_plus);
  CHECK(sums.size() == 100'000);
  CHECK(sums[99'999] == 999 * 1000 / 2);
  CHECK(calls.load() <= 1000 + 2 * (1000 / vseg::tuning::segmented_block + 2));
  // Unreachable physical segments are culled before folding.
  auto two = nested<std::int64_t>::from_lengths(array<std::int64_t>{500, 500}, xs);
  auto only_second = vseg::expand(array<std::int64_t>{0, 3}, two);
  CHECK(only_second.physical_segments() == 1);
  calls = 0;
  auto s2 = vseg::fold_s(only_second, counting_plus);
  CHECK(vseg::to_vector(s2) == std::vector<std::int64_t>(3, (500 + 999) * 500 / 2));
  CHECK(calls.load() <= 500 + 4);
}

TEST_CASE("bad input names the operation and the value") {
  auto xss = nested<int>::from({{1, 2}, {3}});
  CHECK_THROWS_WITH_AS(vseg::replicate(-2, array<int>{1}), doctest::Contains("replicate: negative count -2"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::expand(array<std::int64_t>{1}, xss), doctest::Contains("expand: counts has size 1"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::expand(array<std::int64_t>{1, -1}, xss),
                       doctest::Contains("expand: negative count -1 for segment 1"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::pack(xss, array<bool>{true}), doctest::Contains("pack: flags has size 1"),
                       std::invalid_argument);
  CHECK_THROWS_AS(vseg::combine2(array<bool>{true, true}, xss, xss), std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::extract(xss, 1, 2), doctest::Contains("extract: segments [1, 1 + 2)"),
                       std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::index_l(xss, array<std::int64_t>{0, 1}),
                       doctest::Contains("index_l: index 1 outside segment 1 of length 1"), std::out_of_range);
  CHECK_THROWS_AS(vseg::index_l(xss, array<std::int64_t>{0}), std::invalid_argument);
  auto iss = nested<std::int64_t>::from({{0, 1}, {0, 5}});
  CHECK_THROWS_WITH_AS(nested<int>(vseg::index_l(xss, iss)),
                       doctest::Contains("index_l: index 5 at position 1 of segment 1"), std::out_of_range);
  CHECK_THROWS_AS(vseg::sum_s(vseg::index_l(xss, iss)), std::out_of_range);
  CHECK_THROWS_AS(vseg::append_l(xss, nested<int>::from({{1}})), std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::unconcat(xss, array<int>{1, 2}),
                       doctest::Contains("unconcat: the shape holds 3 elements but the flat array has 2"),
                       std::invalid_argument);
}
