// The descriptor value types (vseg/nested/ssegd.hpp, vseg/nested/vsegd.hpp),
// the checked ways to build a nested<T>, and the invariants the descriptors
// own: identity, culled, flat.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include <doctest/doctest.h>

#include "support.hpp"
#include "vseg/nested.hpp"

using vseg::array;
using vseg::nested;
using vseg::ssegd;
using vseg::vsegd;
using namespace vseg::test;

namespace {

using ref_t = std::vector<std::vector<std::int64_t>>;

const std::vector<std::int64_t> two_blocks{5, 3};  // block sizes for the ssegd tests

}  // namespace

TEST_CASE("ssegd: from_segd is contiguous, from_arrays is checked entry by entry") {
  const auto s = vseg::segd::from_lengths(array<std::int64_t>{2, 0, 3});
  const auto c = ssegd::from_segd(s);
  CHECK(c.contiguous());
  CHECK(c.segments() == 3);
  CHECK(vseg::to_vector(c.sources()) == std::vector<std::int64_t>{0, 0, 0});
  CHECK(vseg::to_vector(c.starts()) == std::vector<std::int64_t>{0, 2, 2});
  CHECK(c.packed_layout() == s);
  CHECK_NOTHROW(c.validate_full(std::vector<std::int64_t>{5}));
  // A block too short for the layout is caught.
  CHECK_THROWS_WITH_AS(c.validate_full(std::vector<std::int64_t>{4}),
                       doctest::Contains("physical segment 2 = [2, 2 + 3) lies outside its block of size 4"),
                       std::invalid_argument);

  const auto ok = ssegd::from_arrays(array<std::int64_t>{1, 0}, array<std::int64_t>{1, 3},
                                     array<std::int64_t>{2, 2}, two_blocks);
  CHECK_FALSE(ok.contiguous());
  // packed_layout: the segments end to end, as new data written in order.
  CHECK(vseg::to_vector(ok.packed_layout().starts()) == std::vector<std::int64_t>{0, 2});
  CHECK_THROWS_WITH_AS(ssegd::from_arrays(array<std::int64_t>{2}, array<std::int64_t>{0},
                                          array<std::int64_t>{1}, two_blocks),
                       doctest::Contains("ssegd::from_arrays: physical segment 0 names block 2 of 2"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(ssegd::from_arrays(array<std::int64_t>{0, 1}, array<std::int64_t>{0, 2},
                                          array<std::int64_t>{1, 2}, two_blocks),
                       doctest::Contains("physical segment 1 = [2, 2 + 2) lies outside its block of size 3"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(ssegd::from_arrays(array<std::int64_t>{0}, array<std::int64_t>{-1},
                                          array<std::int64_t>{1}, two_blocks),
                       doctest::Contains("physical segment 0 = [-1, -1 + 1)"), std::invalid_argument);
  // The O(1) tier: sizes only, even on the unchecked path.
  CHECK_THROWS_WITH_AS(ssegd::from_arrays_unchecked(array<std::int64_t>{0, 0}, array<std::int64_t>{0},
                                                    array<std::int64_t>{0, 0}),
                       doctest::Contains("sources has size 2 but starts has size 1"), std::invalid_argument);
  // pack and append
  const auto packed = ok.pack(array<bool>{false, true});
  CHECK(vseg::to_vector(packed.starts()) == std::vector<std::int64_t>{3});
  const auto joined = ssegd::append(ok, 2, c);
  CHECK(vseg::to_vector(joined.sources()) == std::vector<std::int64_t>{1, 0, 2, 2, 2});
  CHECK_NOTHROW(joined.validate_full(std::vector<std::int64_t>{5, 3, 5}));
}

TEST_CASE("vsegd: identity, culled and flat, and the checked vsegids") {
  const auto s = vseg::segd::from_lengths(array<std::int64_t>{2, 1, 3});
  const auto flat = vsegd::from_segd(s);
  CHECK(flat.identity());
  CHECK(flat.culled());
  CHECK(flat.flat());
  CHECK(flat.shape() == s);
  CHECK(flat.physical_segments() == 3);
  CHECK(vseg::to_vector(flat.vsegids()) == std::vector<std::int64_t>{0, 1, 2});
  CHECK_NOTHROW(flat.validate_full(std::vector<std::int64_t>{6}));

  // Explicit vsegids: checked, not culled until asked.
  CHECK_THROWS_WITH_AS(vsegd::from_vsegids(array<std::int64_t>{0, 3}, flat.scattered()),
                       doctest::Contains("vsegd::from_vsegids: vsegids[1] = 3 names no physical segment (there are 3)"),
                       std::out_of_range);
  const auto shared = vsegd::from_vsegids(array<std::int64_t>{2, 2, 0}, flat.scattered());
  CHECK_FALSE(shared.identity());
  CHECK_FALSE(shared.culled());
  CHECK_FALSE(shared.flat());
  CHECK(shared.physical_segments() == 2);
  CHECK(vseg::to_vector(shared.lengths()) == std::vector<std::int64_t>{3, 3, 2});
  CHECK(vseg::to_vector(shared.reachable()) == std::vector<bool>{true, false, true});
  const auto culled = shared.cull();
  CHECK(culled.culled());
  CHECK(culled.scattered().segments() == 2);
  CHECK(vseg::to_vector(culled.vsegids()) == std::vector<std::int64_t>{1, 1, 0});
  CHECK_NOTHROW(culled.validate_full(std::vector<std::int64_t>{6}));

  // The rebuild path: contiguous, culled, the virtual segments unchanged.
  const auto laid = shared.contiguous_layout();
  CHECK(laid.scattered().contiguous());
  CHECK(laid.culled());
  CHECK(vseg::to_vector(laid.lengths()) == std::vector<std::int64_t>{3, 3, 2});
  CHECK(vseg::to_vector(laid.scattered().starts()) == std::vector<std::int64_t>{0, 2});
  // A flat descriptor is its own layout; an identity one becomes flat.
  CHECK(flat.contiguous_layout().scattered().packed_layout().lengths().data() == s.lengths().data());
  const auto scattered_identity = vsegd::identity(
      ssegd::from_arrays(array<std::int64_t>{0, 0}, array<std::int64_t>{4, 1}, array<std::int64_t>{1, 2},
                         std::vector<std::int64_t>{6}));
  CHECK(scattered_identity.identity());
  CHECK_FALSE(scattered_identity.flat());
  CHECK(scattered_identity.contiguous_layout().flat());

  // The O(1) tier.
  CHECK_NOTHROW(shared.validate());
  CHECK_THROWS_WITH_AS(shared.validate_full(std::vector<std::int64_t>{2}),
                       doctest::Contains("lies outside its block of size 2"), std::invalid_argument);
}

TEST_CASE("nested: every public constructor is checked; the unchecked ones say so") {
  const std::vector<array<int>> one_block{array<int>{1, 2}};
  CHECK_THROWS_WITH_AS(nested<int>::from_descriptors(one_block, array<std::int64_t>{1}, array<std::int64_t>{0},
                                                     array<std::int64_t>{1}, array<std::int64_t>{0}),
                       doctest::Contains("nested::from_descriptors: physical segment 0 names block 1 of 1"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(nested<int>::from_descriptors(one_block, array<std::int64_t>{0}, array<std::int64_t>{0},
                                                     array<std::int64_t>{2}, array<std::int64_t>{0, 1}),
                       doctest::Contains("nested::from_descriptors: vsegids[1] = 1"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(nested<int>::from_physical(one_block, array<std::int64_t>{0}, array<std::int64_t>{1},
                                                  array<std::int64_t>{2}),
                       doctest::Contains("nested::from_physical: physical segment 0 = [1, 1 + 2)"),
                       std::invalid_argument);
  CHECK_THROWS_AS(nested<int>::from_descriptors({}, array<std::int64_t>{0}, array<std::int64_t>{},
                                                array<std::int64_t>{}, array<std::int64_t>{}),
                  std::invalid_argument);
  CHECK_THROWS_WITH_AS(nested<int>::from_vsegd({array<int>{1}},
                                               vsegd::from_segd(vseg::segd::from_lengths(array<std::int64_t>{2}))),
                       doctest::Contains("nested::from_vsegd: physical segment 0 = [0, 0 + 2)"),
                       std::invalid_argument);
  // The unchecked builders build; validate_full then names the bad entry.
  const auto bad_source = nested<int>::from_descriptors_unchecked(
      one_block, array<std::int64_t>{1}, array<std::int64_t>{0}, array<std::int64_t>{1}, array<std::int64_t>{0});
  CHECK_THROWS_WITH_AS(bad_source.validate_full(), doctest::Contains("names block 1 of 1"), std::invalid_argument);
  const auto bad_range = nested<int>::from_descriptors_unchecked(
      one_block, array<std::int64_t>{0}, array<std::int64_t>{1}, array<std::int64_t>{2}, array<std::int64_t>{0});
  CHECK_THROWS_WITH_AS(bad_range.validate_full(), doctest::Contains("outside its block of size 2"),
                       std::invalid_argument);
  const auto bad_vseg = nested<int>::from_descriptors_unchecked(
      one_block, array<std::int64_t>{0}, array<std::int64_t>{0}, array<std::int64_t>{2}, array<std::int64_t>{0, 1});
  CHECK_THROWS_WITH_AS(bad_vseg.validate_full(), doctest::Contains("vsegids[1] = 1"), std::invalid_argument);
  // The cheap tier still runs on the unchecked path.
  CHECK_THROWS_AS(nested<int>::from_descriptors_unchecked(one_block, array<std::int64_t>{0},
                                                          array<std::int64_t>{0, 1}, array<std::int64_t>{1},
                                                          array<std::int64_t>{0}),
                  std::invalid_argument);
}

TEST_CASE("nested: with_vsegids is checked (a frontier naming a missing segment throws, not crashes)") {
  const auto xss = nested<int>::from({{1, 2}, {3}, {4, 5, 6}});
  // The documented pattern: a frontier of segment ids, then concat.
  const auto frontier = xss.with_vsegids(array<std::int64_t>{2, 0, 2});
  CHECK(vseg::to_vector(vseg::concat(frontier)) == std::vector<int>{4, 5, 6, 1, 2, 4, 5, 6});
  CHECK_THROWS_WITH_AS(xss.with_vsegids(array<std::int64_t>{0, 7, 1}),
                       doctest::Contains("nested::with_vsegids: vsegids[1] = 7 names no physical segment (there are 3)"),
                       std::out_of_range);
  CHECK_THROWS_WITH_AS(xss.with_vsegids(array<std::int64_t>{-1}),
                       doctest::Contains("nested::with_vsegids: vsegids[0] = -1"), std::out_of_range);
  // Over an array with unreachable physical segments the ids name the descriptor's segments.
  const auto packed = vseg::pack(xss, array<bool>{false, false, true});
  CHECK(vseg::to_vectors(packed.with_vsegids(array<std::int64_t>{0, 1})) == std::vector<std::vector<int>>{{1, 2}, {3}});
}

TEST_CASE("nested: map and scan_s keep flat() and the implicit identity") {
  auto rng = seeded(31);
  for (std::int64_t n : {0, 1, 1000}) {
    INFO("n = " << n);
    ref_t ref;
    for (std::int64_t i = 0; i < n; ++i)
      ref.push_back(random_ints(rng, static_cast<std::int64_t>(rng() % 7), -50, 50));
    const auto xss = nested<std::int64_t>::from(ref);
    REQUIRE(xss.flat());
    REQUIRE(xss.identity_vsegids());
    const auto mapped = vseg::map([](std::int64_t x) { return 3 * x; }, xss);
    CHECK(mapped.flat());
    CHECK(mapped.identity_vsegids());
    CHECK(mapped.shape() == xss.shape());
    const auto scanned = vseg::scan_s(xss);
    CHECK(scanned.flat());
    CHECK(scanned.identity_vsegids());
    ref_t ref_map = ref, ref_scan = ref;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      std::int64_t acc = 0;
      for (std::size_t k = 0; k < ref[i].size(); ++k) {
        ref_map[i][k] = 3 * ref[i][k];
        ref_scan[i][k] = acc;
        acc += ref[i][k];
      }
    }
    CHECK(vseg::to_vectors(mapped) == ref_map);
    CHECK(vseg::to_vectors(scanned) == ref_scan);
  }
  // Identity over scattered segments (slice_l): the result is laid out anew, so flat.
  const auto xss = nested<std::int64_t>::from({{1, 2, 3}, {4, 5}, {6}});
  const auto sl = vseg::slice_l(xss, array<std::int64_t>{1, 0, 1}, array<std::int64_t>{2, 1, 0});
  REQUIRE(sl.identity_vsegids());
  REQUIRE_FALSE(sl.flat());
  const auto m = vseg::map([](std::int64_t x) { return x + 1; }, sl);
  CHECK(m.flat());
  CHECK(vseg::to_vectors(m) == ref_t{{3, 4}, {5}, {}});
  // Shared segments (expand) stay shared: not the identity, so not flat.
  const auto e = vseg::expand(array<std::int64_t>{2, 0, 1}, xss);
  const auto me = vseg::map([](std::int64_t x) { return -x; }, e);
  CHECK_FALSE(me.identity_vsegids());
  CHECK_FALSE(me.flat());
  CHECK(me.physical_segments() == 2);
  CHECK(vseg::to_vectors(me) == ref_t{{-1, -2, -3}, {-1, -2, -3}, {-6}});
  CHECK(vseg::to_vectors(vseg::scan_s(e)) == ref_t{{0, 1, 3}, {0, 1, 3}, {0}});
}

TEST_CASE("concat of a flat nested array shares its data; of any other, copies the virtual elements") {
  const auto xss = nested<std::int64_t>::from({{1, 2, 3}, {}, {4, 5}, {6}});
  REQUIRE(xss.flat());
  const auto all = vseg::concat(xss);
  CHECK(all == array<std::int64_t>{1, 2, 3, 4, 5, 6});
  CHECK(all.data() == xss[0].data());  // no element copied
  // A materialised expression is flat: concat of it is its one pass.
  const auto doubled = vseg::concat(vseg::zip_with(std::plus<>{}, xss, xss));
  CHECK(doubled == array<std::int64_t>{2, 4, 6, 8, 10, 12});
  // Not flat: scattered slices and shared segments are copied in order.
  const auto sl = vseg::slice_l(xss, array<std::int64_t>{1, 0, 1, 0}, array<std::int64_t>{2, 0, 1, 1});
  REQUIRE_FALSE(sl.flat());
  const auto cut = vseg::concat(sl);
  CHECK(cut == array<std::int64_t>{2, 3, 5, 6});
  CHECK(cut.data() != xss[0].data() + 1);
  const auto e = vseg::expand(array<std::int64_t>{2, 0, 0, 1}, xss);
  CHECK(vseg::concat(e) == array<std::int64_t>{1, 2, 3, 1, 2, 3, 6});
  // The empty array.
  CHECK(vseg::concat(nested<std::int64_t>::from(ref_t{})).size() == 0);
}

TEST_CASE("segments that are all empty over an empty data array: every whole-segment consumer") {
  // The data array has no storage (a null pointer): the consumers used to
  // take that for "not contiguous" and read a per-segment table never built.
  for (std::int64_t m : {1, 3}) {
    INFO("m = " << m);
    const auto xss = nested<double>::from_lengths(vseg::fill<std::int64_t>(m, 0), array<double>());
    CHECK(vseg::sum_s(xss) == vseg::fill<double>(m, 0.0));
    CHECK(vseg::fold_s(xss, vseg::maximum<double>{}) == vseg::fill<double>(m, vseg::maximum<double>::identity()));
    CHECK(vseg::to_vectors(vseg::scan_s(xss)) == std::vector<std::vector<double>>(static_cast<std::size_t>(m)));
    CHECK(vseg::to_vectors(vseg::map([](double x) { return x + 1; }, xss)) ==
          std::vector<std::vector<double>>(static_cast<std::size_t>(m)));
    CHECK(vseg::sum_s(vseg::zip_with(std::multiplies<>{}, xss, xss)) == vseg::fill<double>(m, 0.0));
    CHECK(vseg::concat(xss).size() == 0);
    CHECK(vseg::sum_s(vseg::expand(2, xss)) == vseg::fill<double>(2 * m, 0.0));
  }
}

TEST_CASE("nested: with_physical_data is the checked rebuild path") {
  const auto xss = nested<int>::from({{1, 2}, {3}});
  const auto d = xss.with_physical_data(array<double>{0.5, 1.5, 2.5});
  CHECK(d.flat());
  CHECK(vseg::to_vectors(d) == std::vector<std::vector<double>>{{0.5, 1.5}, {2.5}});
  CHECK_THROWS_WITH_AS(xss.with_physical_data(array<double>{1.0}),
                       doctest::Contains("nested::with_physical_data"), std::invalid_argument);
}

TEST_CASE("vsegd: a chain of expands by equal counts composes into one repeat (level fusion)") {
  const auto xss = nested<std::int64_t>::from({{1, 2, 3}, {4, 5}, {6}});
  // Level by level, the way expand worked before the fusion: the ids written
  // out at every level by the flat expand of the previous level's ids.
  array<std::int64_t> ref_ids = vseg::iota(3);
  ref_t ref = vseg::to_vectors(xss);
  auto e = xss;
  std::int64_t product = 1;
  for (std::int64_t each : {2, 3, 1, 2, 4}) {
    INFO("each = ", each);
    e = vseg::expand(vseg::fill<std::int64_t>(e.size(), each), e);
    ref_ids = vseg::expand(vseg::fill<std::int64_t>(ref_ids.size(), each), ref_ids);
    ref_t next;
    for (const auto& s : ref)
      for (std::int64_t c = 0; c < each; ++c) next.push_back(s);
    ref = next;
    product *= each;
    // Counting: no vsegid is stored at any level, only the factor.
    CHECK(e.descriptor().stored_vsegids() == 0);
    CHECK(e.descriptor().repeat() == product);
    CHECK(e.size() == 3 * product);
    CHECK(vseg::to_vector(e.vsegids()) == vseg::to_vector(ref_ids));
    CHECK(vseg::to_vector(e.lengths()) == vseg::to_vector(vseg::bpermute(xss.lengths(), ref_ids)));
    CHECK(vseg::to_vectors(e) == ref);
    CHECK_NOTHROW(e.validate_full());
  }
  CHECK_FALSE(e.identity_vsegids());
  CHECK_FALSE(e.flat());

  // 16 levels of expand by two: only the counts are read, no id is written.
  auto chain = xss;
  for (int level = 0; level < 16; ++level) chain = vseg::expand(vseg::fill<std::int64_t>(chain.size(), 2), chain);
  CHECK(chain.descriptor().stored_vsegids() == 0);
  CHECK(chain.descriptor().repeat() == 1 << 16);
  // 40 levels of the descriptor's composition (the counts alone would fill
  // the memory): 3 * 2^40 virtual segments, whose ids would take 26 TB; the
  // descriptor holds none, and virtual segment k is xss[k / 2^40].
  vsegd d = xss.descriptor();
  for (int level = 0; level < 40; ++level) d = d.repeated(2);
  const auto deep = nested<std::int64_t>::from_vsegd_unchecked({xss.blocks().begin(), xss.blocks().end()}, d);
  CHECK(deep.size() == (std::int64_t{3} << 40));
  CHECK(deep.descriptor().stored_vsegids() == 0);
  for (std::int64_t k : {std::int64_t{0}, (std::int64_t{1} << 40) - 1, std::int64_t{1} << 40,
                         (std::int64_t{3} << 40) - 1}) {
    CHECK(deep.descriptor().vsegid(k) == k >> 40);
    CHECK(deep[k].data() == xss[k >> 40].data());
  }
  // Past int64 the chain is refused; a repeat must be positive.
  CHECK_THROWS_WITH_AS(deep.descriptor().repeated(std::int64_t{1} << 22),
                       doctest::Contains("expand: the counts sum past int64"), std::overflow_error);
  CHECK_THROWS_WITH_AS(deep.descriptor().repeated(0), doctest::Contains("vsegd::repeated: repeat count 0"),
                       std::invalid_argument);
}

TEST_CASE("expand by one count equals expand by that count filled, reading and writing nothing") {
  const auto one = vseg::replicate(5, array<std::int64_t>{7, 8, 9});  // one physical segment
  const auto identity = nested<std::int64_t>::from({{1, 2, 3}, {4, 5}, {}, {6}});
  const auto stored = vseg::expand(array<std::int64_t>{2, 0, 1, 3}, identity);  // stored ids
  const nested<std::int64_t> empty = nested<std::int64_t>::from({});
  for (const auto* xss : {&one, &identity, &stored, &empty}) {
    for (std::int64_t each : {0, 1, 2, 5}) {
      INFO("segments = ", xss->size(), ", each = ", each);
      const auto by_scalar = vseg::expand(each, *xss);
      const auto by_array = vseg::expand(vseg::fill<std::int64_t>(xss->size(), each), *xss);
      CHECK(vseg::to_vectors(by_scalar) == vseg::to_vectors(by_array));
      CHECK(vseg::to_vector(by_scalar.vsegids()) == vseg::to_vector(by_array.vsegids()));
      CHECK(by_scalar.descriptor_segments() == xss->descriptor_segments());
      CHECK_NOTHROW(by_scalar.validate_full());
    }
  }
  // Counting: over identity ids only the repeat grows; no id is stored.
  auto chain = identity;
  for (int level = 0; level < 20; ++level) chain = vseg::expand(2, chain);
  CHECK(chain.descriptor().stored_vsegids() == 0);
  CHECK(chain.size() == 4 << 20);
  CHECK(chain[(4 << 20) - 1].data() == identity[3].data());
  CHECK_THROWS_WITH_AS(vseg::expand(-3, identity), doctest::Contains("expand: negative count -3"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::expand(std::int64_t{1} << 62, chain), doctest::Contains("expand: the counts sum past int64"),
                       std::overflow_error);
  CHECK_THROWS_AS(vseg::expand(std::int64_t{1} << 62, one), std::overflow_error);
}

TEST_CASE("vsegd: a repeated descriptor over stored ids, and every consumer of one") {
  const auto xss = nested<std::int64_t>::from({{1, 2, 3}, {4, 5}, {6}, {}, {7, 8, 9, 10}});
  // Varied counts store ids; equal counts after them repeat those ids.
  const auto base = vseg::expand(array<std::int64_t>{2, 0, 1, 1, 1}, xss);
  REQUIRE(base.descriptor().stored_vsegids() == 5);
  const auto e = vseg::expand(vseg::fill<std::int64_t>(15, 2), vseg::expand(vseg::fill<std::int64_t>(5, 3), base));
  CHECK(e.descriptor().stored_vsegids() == 5);
  CHECK(e.descriptor().repeat() == 6);
  CHECK_FALSE(e.descriptor().culled());
  // The same virtual segments with the ids written out: every consumer must agree.
  const auto m = e.with_vsegids(e.vsegids());
  REQUIRE(m.descriptor().repeat() == 1);
  const ref_t ref = vseg::to_vectors(m);
  CHECK(vseg::to_vectors(e) == ref);
  CHECK(vseg::to_vector(e.lengths()) == vseg::to_vector(m.lengths()));
  CHECK(e.physical_segments() == 4);
  CHECK(vseg::to_vectors(e.cull()) == ref);
  CHECK(e.cull().descriptor().repeat() == 6);
  CHECK(vseg::to_vectors(vseg::extract(e, 7, 11)) == vseg::to_vectors(vseg::extract(m, 7, 11)));
  const auto flags = vseg::tabulate(e.size(), [](std::int64_t i) { return i % 4 != 1; });
  CHECK(vseg::to_vectors(vseg::pack(e, flags)) == vseg::to_vectors(vseg::pack(m, flags)));
  CHECK(vseg::to_vector(vseg::sum_s(e)) == vseg::to_vector(vseg::sum_s(m)));
  CHECK(vseg::to_vectors(vseg::scan_s(e)) == vseg::to_vectors(vseg::scan_s(m)));
  CHECK(vseg::to_vectors(vseg::append(e, xss)) == vseg::to_vectors(vseg::append(m, xss)));
  const auto lengths = e.lengths();
  const auto halves = vseg::tabulate(e.size(), [&](std::int64_t k) { return lengths[k] / 2; });
  const auto sl = vseg::slice_l(e, halves, halves);
  CHECK(vseg::to_vectors(sl) == vseg::to_vectors(vseg::slice_l(m, halves, halves)));
  const auto zeros = vseg::fill<std::int64_t>(e.size(), 0);
  CHECK_THROWS_WITH_AS(vseg::slice_l(e, zeros, vseg::fill<std::int64_t>(e.size(), 3)),
                       doctest::Contains("slice_l: slice [0, 0 + 3) outside segment 12 of length 1"),
                       std::out_of_range);
  // index_l walks the ids of a repeated descriptor (no empty segment here).
  const auto small = nested<std::int64_t>::from({{1, 2}, {3}, {4, 5, 6}});
  const auto r = vseg::expand(vseg::fill<std::int64_t>(3, 4), small);
  const auto last = vseg::map([](std::int64_t n) { return n - 1; }, r.lengths());
  CHECK(vseg::to_vector(vseg::index_l(r, last)) ==
        std::vector<std::int64_t>{2, 2, 2, 2, 3, 3, 3, 3, 6, 6, 6, 6});
  CHECK_THROWS_WITH_AS(vseg::index_l(r, vseg::fill<std::int64_t>(12, 1)),
                       doctest::Contains("index_l: index 1 outside segment 4 of length 1"), std::out_of_range);
  CHECK_NOTHROW(e.validate_full());
}
