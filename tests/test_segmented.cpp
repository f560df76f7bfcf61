// Segmented primitives against sequential references on the standard segment
// mixes (all empty, all length 1, random, one giant, Zipf, giants among
// empties), under a sweep of thread counts.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <cstring>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "support.hpp"
#include "vseg/flat.hpp"
#include "vseg/segmented.hpp"

using vseg::array;
using vseg::segd;
using namespace vseg::test;

namespace {

using nested_ref = std::vector<std::vector<std::int64_t>>;

nested_ref split(const std::vector<std::int64_t>& lengths, const std::vector<std::int64_t>& data) {
  nested_ref out;
  std::size_t k = 0;
  for (auto len : lengths) {
    out.emplace_back(data.begin() + static_cast<std::ptrdiff_t>(k),
                     data.begin() + static_cast<std::ptrdiff_t>(k + static_cast<std::size_t>(len)));
    k += static_cast<std::size_t>(len);
  }
  return out;
}

std::vector<std::int64_t> flatten(const nested_ref& xss) {
  std::vector<std::int64_t> out;
  for (auto& xs : xss) out.insert(out.end(), xs.begin(), xs.end());
  return out;
}

std::int64_t total(const std::vector<std::int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), std::int64_t{0});
}

}  // namespace

TEST_CASE("fold_s, sum_s, scan_s match the reference on every segment mix") {
  for (auto& mix : standard_mixes(1234)) {
    INFO("mix = " << mix.name);
    auto rng = seeded(99);
    auto data = random_ints(rng, total(mix.lengths), -100, 100);
    auto ref = split(mix.lengths, data);
    auto s = segd::from_lengths(array<std::int64_t>(mix.lengths));
    array<std::int64_t> xs(data);
    std::vector<std::int64_t> ref_sum, ref_max, ref_scan, ref_scan_in;
    for (auto& seg : ref) {
      ref_sum.push_back(total(seg));
      ref_max.push_back(seg.empty() ? std::numeric_limits<std::int64_t>::lowest()
                                    : *std::max_element(seg.begin(), seg.end()));
      std::int64_t acc = 0;
      for (auto x : seg) {
        ref_scan.push_back(acc);
        acc += x;
        ref_scan_in.push_back(acc);
      }
    }
    for_each_thread_count([&](int) {
      CHECK(vseg::to_vector(vseg::sum_s(s, xs)) == ref_sum);
      CHECK(vseg::to_vector(vseg::fold_s(s, xs, vseg::maximum<std::int64_t>{})) == ref_max);
      CHECK(vseg::to_vector(vseg::scan_s(s, xs, vseg::plus<std::int64_t>{})) == ref_scan);
      CHECK(vseg::to_vector(vseg::scan_s_inclusive(s, xs, vseg::plus<std::int64_t>{})) ==
            ref_scan_in);
    });
    CHECK(vseg::to_vector(vseg::fold_s_serial<std::int64_t>(s, xs, vseg::plus<std::int64_t>{})) ==
          ref_sum);
  }
}

TEST_CASE("segmented folds and scans keep the order of a non-commutative monoid") {
  // Concatenation of (first, last) pairs: keeps the first and last element.
  auto m = ends_monoid();
  for (auto& mix : standard_mixes(77)) {
    INFO("mix = " << mix.name);
    auto s = segd::from_lengths(array<std::int64_t>(mix.lengths));
    auto xs = vseg::tabulate(s.elements(), [](std::int64_t i) { return ends_pair{i, i}; });
    std::vector<ends_pair> ref;
    for (std::int64_t j = 0; j < s.segments(); ++j)
      ref.push_back(s.length(j) ? ends_pair{s.start(j), s.end(j) - 1} : ends_pair{-1, -1});
    for_each_thread_count([&](int) { CHECK(vseg::to_vector(vseg::fold_s(s, xs, m)) == ref); });
  }
}

TEST_CASE("tabulate_s and tabulate_fold_s match segment ids, positions and the ordered fold") {
  // The same non-commutative (first, last) monoid: a fold out of order or a
  // piece folded twice shows.
  auto m = ends_monoid();
  for (auto& mix : standard_mixes(79)) {
    INFO("mix = " << mix.name);
    auto rng = seeded(80);
    auto s = segd::from_lengths(array<std::int64_t>(mix.lengths));
    const auto weights = random_ints(rng, s.segments(), 0, 1000);
    std::vector<std::int64_t> ref_tab;
    std::vector<std::uint8_t> ref_bytes;  // bytes take tabulate_s's staged path
    std::vector<ends_pair> ref_fold;
    for (std::int64_t j = 0; j < s.segments(); ++j) {
      for (std::int64_t i = s.start(j); i < s.end(j); ++i) {
        ref_tab.push_back(weights[static_cast<std::size_t>(j)] * 7 + i);
        ref_bytes.push_back(static_cast<std::uint8_t>((j * 31 + i) % 251));
      }
      ref_fold.push_back(s.length(j) ? ends_pair{s.start(j) + j, s.end(j) - 1 + j} : ends_pair{-1, -1});
    }
    for_each_thread_count([&](int) {
      CHECK(vseg::to_vector(vseg::tabulate_s(s, [&](std::int64_t j, std::int64_t i) {
              return weights[static_cast<std::size_t>(j)] * 7 + i;
            })) == ref_tab);
      CHECK(vseg::to_vector(vseg::tabulate_s(s, [](std::int64_t j, std::int64_t i) {
              return static_cast<std::uint8_t>((j * 31 + i) % 251);
            })) == ref_bytes);
      CHECK(vseg::to_vector(vseg::tabulate_fold_s(s, [](std::int64_t j, std::int64_t i) { return ends_pair{i + j, i + j}; },
                                                  m)) == ref_fold);
    });
  }
}

TEST_CASE("segmented floating-point sums are bitwise identical on every thread count") {
  for (auto& mix : standard_mixes(5)) {
    INFO("mix = " << mix.name);
    auto rng = seeded(6);
    auto s = segd::from_lengths(array<std::int64_t>(mix.lengths));
    array<double> xs(random_doubles(rng, s.elements()));
    std::vector<std::vector<double>> sums, scans;
    for_each_thread_count([&](int) {
      sums.push_back(vseg::to_vector(vseg::sum_s(s, xs)));
      scans.push_back(vseg::to_vector(vseg::scan_s(s, xs, vseg::plus<double>{})));
    });
    for (std::size_t i = 1; i < sums.size(); ++i) {
      CHECK(same_bits(sums[i], sums[0]));
      CHECK(same_bits(scans[i], scans[0]));
    }
  }
}

TEST_CASE("sum_s over short segments of varied length is the left-to-right loop bit for bit") {
  // Segments of 0-4 elements take sum_short (a double sum: the elements
  // past the end masked to +0.0) with no branch on the length; the last ones
  // sit at the end of the data, where it may not read ahead, and the loop
  // takes them. The values are small integers, signed
  // zeros, +infinity and a NaN: every association of their sum gives the
  // same bits (a segment cut by a merge block is summed in two pieces), and
  // a discarded combine past a segment's end would show.
  // Lengths up to 69 take sum_range (groups of 4, the masked tail).
  auto rng = seeded(19);
  for (const auto& [n, max_len] : {std::pair<std::int64_t, std::uint64_t>{40, 5}, {50000, 5}, {50000, 70}}) {
    INFO("elements = " << n << ", lengths below " << max_len);
    std::vector<std::int64_t> lengths;
    for (std::int64_t covered = 0; covered < n;) {
      const std::int64_t len = std::min<std::int64_t>(static_cast<std::int64_t>(rng() % max_len), n - covered);
      lengths.push_back(len);
      covered += len;
    }
    std::vector<double> values(static_cast<std::size_t>(n));
    for (auto& v : values) v = static_cast<double>(static_cast<std::int64_t>(rng() % 2001) - 1000);
    const double specials[] = {-0.0, 0.0, std::numeric_limits<double>::infinity(),
                               std::numeric_limits<double>::quiet_NaN()};
    for (std::size_t i = 0; i < values.size(); i += 7) values[i] = specials[(i / 7) % 4];
    auto s = segd::from_lengths(array<std::int64_t>(lengths));
    std::vector<double> expected;
    for (std::int64_t j = 0; j < s.segments(); ++j) {
      double acc = 0.0;
      for (std::int64_t k = s.start(j); k < s.end(j); ++k) acc += values[static_cast<std::size_t>(k)];
      expected.push_back(acc);
    }
    array<double> xs(values);
    for_each_thread_count([&](int) { CHECK(same_bits(vseg::to_vector(vseg::sum_s(s, xs)), expected)); });
    CHECK(same_bits(vseg::to_vector(vseg::fold_s_serial(s, std::span<const double>(xs.data(), xs.size()),
                                                        vseg::plus<double>{})),
                    expected));
  }
}

TEST_CASE("replicate_s, indices_s, segment_ids match the reference") {
  for (auto& mix : standard_mixes(8)) {
    INFO("mix = " << mix.name);
    auto rng = seeded(9);
    auto s = segd::from_lengths(array<std::int64_t>(mix.lengths));
    auto values = random_ints(rng, s.segments(), 0, 1000);
    std::vector<std::int64_t> ref_rep, ref_idx, ref_ids;
    for (std::int64_t j = 0; j < s.segments(); ++j)
      for (std::int64_t k = 0; k < s.length(j); ++k) {
        ref_rep.push_back(values[static_cast<std::size_t>(j)]);
        ref_idx.push_back(k);
        ref_ids.push_back(j);
      }
    for_each_thread_count([&](int) {
      CHECK(vseg::to_vector(vseg::replicate_s(s, array<std::int64_t>(values))) == ref_rep);
      CHECK(vseg::to_vector(vseg::indices_s(s)) == ref_idx);
      CHECK(vseg::to_vector(vseg::segment_ids(s)) == ref_ids);
    });
  }
  CHECK_THROWS_WITH_AS(vseg::replicate_s(segd::single(3), array<int>{1, 2}),
                       doctest::Contains("replicate_s: segments has size 1 but values has size 2"),
                       std::invalid_argument);
}

TEST_CASE("pack_s, append_s, extract_s, bpermute_s match the reference") {
  for (auto& mix : standard_mixes(10)) {
    INFO("mix = " << mix.name);
    auto rng = seeded(12);
    auto s = segd::from_lengths(array<std::int64_t>(mix.lengths));
    auto data = random_ints(rng, s.elements(), -5, 5);
    auto flags = random_flags_vector(rng, s.elements(), 0.5);
    auto ref = split(mix.lengths, data);
    // pack_s
    nested_ref ref_pack;
    {
      std::size_t k = 0;
      for (auto& seg : ref) {
        ref_pack.emplace_back();
        for (auto x : seg)
          if (flags[k++]) ref_pack.back().push_back(x);
      }
    }
    // append_s with a second array of other lengths
    auto other_lengths = random_ints(rng, s.segments(), 0, 3);
    auto other_data = random_ints(rng, total(other_lengths), 100, 200);
    auto other = split(other_lengths, other_data);
    nested_ref ref_append = ref;
    for (std::size_t j = 0; j < ref.size(); ++j)
      ref_append[j].insert(ref_append[j].end(), other[j].begin(), other[j].end());
    // extract_s from the non-empty segments
    std::vector<std::int64_t> ext_idx, ref_ext;
    for (auto& seg : ref) {
      std::int64_t i = seg.empty() ? 0 : static_cast<std::int64_t>(rng() % seg.size());
      ext_idx.push_back(i);
      ref_ext.push_back(seg.empty() ? 0 : seg[static_cast<std::size_t>(i)]);
    }
    // bpermute_s: each segment gathers 2 random indices of its own (none if empty)
    std::vector<std::int64_t> bp_lengths, bp_idx;
    nested_ref ref_bp;
    for (auto& seg : ref) {
      ref_bp.emplace_back();
      const std::int64_t c = seg.empty() ? 0 : 2;
      bp_lengths.push_back(c);
      for (std::int64_t q = 0; q < c; ++q) {
        auto i = static_cast<std::int64_t>(rng() % seg.size());
        bp_idx.push_back(i);
        ref_bp.back().push_back(seg[static_cast<std::size_t>(i)]);
      }
    }
    auto os = segd::from_lengths(array<std::int64_t>(other_lengths));
    auto bs = segd::from_lengths(array<std::int64_t>(bp_lengths));
    for_each_thread_count([&](int) {
      auto p = vseg::pack_s(s, array<std::int64_t>(data), array<bool>(flags));
      CHECK(split(vseg::to_vector(p.descriptor.lengths()), vseg::to_vector(p.data)) == ref_pack);
      auto a = vseg::append_s(s, array<std::int64_t>(data), os, array<std::int64_t>(other_data));
      CHECK(split(vseg::to_vector(a.descriptor.lengths()), vseg::to_vector(a.data)) == ref_append);
      CHECK(vseg::to_vector(a.data) == flatten(ref_append));
      auto b = vseg::bpermute_s(s, array<std::int64_t>(data), bs, array<std::int64_t>(bp_idx));
      CHECK(split(vseg::to_vector(b.descriptor.lengths()), vseg::to_vector(b.data)) == ref_bp);
      bool all_nonempty = std::all_of(ref.begin(), ref.end(), [](auto& x) { return !x.empty(); });
      if (all_nonempty) {
        CHECK(vseg::to_vector(vseg::extract_s(s, array<std::int64_t>(data),
                                              array<std::int64_t>(ext_idx))) == ref_ext);
      } else if (s.segments() > 0) {
        CHECK_THROWS_WITH_AS(vseg::extract_s(s, array<std::int64_t>(data), array<std::int64_t>(ext_idx)),
                             doctest::Contains("of length 0"), std::out_of_range);
      }
    });
  }
}

TEST_CASE("pack_plan: one plan packs several arrays as pack_s does each") {
  for (auto& mix : standard_mixes(11)) {
    INFO("mix = " << mix.name);
    auto rng = seeded(13);
    const auto s = segd::from_lengths(array<std::int64_t>(mix.lengths));
    const auto ints = array<std::int64_t>(random_ints(rng, s.elements(), -5, 5));
    std::vector<double> ds(static_cast<std::size_t>(s.elements()));
    for (auto& d : ds) d = static_cast<double>(rng() % 1000) / 8.0;
    const auto doubles = array<double>(ds);
    for (double p : {0.0, 0.3, 1.0}) {
      INFO("p = " << p);
      const auto flags = array<bool>(random_flags_vector(rng, s.elements(), p));
      for_each_thread_count([&](int) {
        const vseg::pack_plan plan(s, flags);
        const auto a = vseg::pack_s(s, ints, flags);
        const auto b = vseg::pack_s(s, doubles, flags);
        CHECK(plan.descriptor() == a.descriptor);
        CHECK(plan.kept() == a.data.size());
        CHECK(vseg::to_vector(plan.apply(ints)) == vseg::to_vector(a.data));
        CHECK(vseg::to_vector(plan.apply(doubles)) == vseg::to_vector(b.data));
        CHECK(plan.made_for(s));
        CHECK(plan.made_for(segd(s)));  // a copy shares the lengths
      });
    }
  }
}

TEST_CASE("pack_plan: made_for tells descriptors of the same size apart; bad sizes are named") {
  const auto s = segd::from_lengths(array<std::int64_t>{3, 3});  // uniform
  const auto t = segd::from_lengths(array<std::int64_t>{2, 4});
  const auto u = segd::from_lengths(array<std::int64_t>{2, 4});  // equal to t, its own array
  const array<bool> flags{true, false, true, true, false, true};
  const vseg::pack_plan by_s(s, flags), by_t(t, flags);
  CHECK(by_s.made_for(s));
  CHECK_FALSE(by_s.made_for(t));
  CHECK_FALSE(by_t.made_for(s));
  CHECK_FALSE(by_s.made_for(segd::uniform(3, 2)));
  CHECK(by_s.made_for(segd::uniform(2, 3)));  // uniform: the length says it all
  CHECK_FALSE(by_t.made_for(u));               // equal, but O(1) cannot tell
  CHECK(by_t.made_for(t));
  CHECK(vseg::to_vector(by_s.descriptor().lengths()) == std::vector<std::int64_t>{2, 2});
  CHECK(vseg::to_vector(by_t.descriptor().lengths()) == std::vector<std::int64_t>{1, 3});
  CHECK(vseg::to_vector(by_t.apply(array<int>{1, 2, 3, 4, 5, 6})) == std::vector<int>{1, 3, 4, 6});
  CHECK_THROWS_WITH_AS(vseg::pack_plan(s, array<bool>{true}),
                       doctest::Contains("pack_plan: the segment descriptor covers 6 elements but the flags have 1"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(by_s.apply(array<int>{1, 2, 3}),
                       doctest::Contains("pack_plan::apply: the segment descriptor covers 6 elements but the data has 3"),
                       std::invalid_argument);
}

TEST_CASE("segmented primitives reject descriptors that do not cover their data") {
  auto s = segd::from_lengths(array<std::int64_t>{2, 1});
  array<int> three{1, 2, 3}, two{1, 2};
  CHECK_THROWS_WITH_AS(vseg::sum_s(s, two),
                       doctest::Contains("vseg::sum_s: the segment descriptor covers 3 elements but the data has 2"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::fold_s(s, two, vseg::maximum<int>{}),
                       doctest::Contains("vseg::fold_s: the segment descriptor covers 3 elements"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::scan_s(s, two, vseg::plus<int>{}), doctest::Contains("vseg::scan_s: the segment"),
                       std::invalid_argument);
  // The flags are named, not "the data".
  CHECK_THROWS_WITH_AS(vseg::pack_s(s, three, array<bool>{true}),
                       doctest::Contains("pack_s: the segment descriptor covers 3 elements but the flags have 1"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::bpermute_s(s, three, s, array<std::int64_t>{0, 0}),
                       doctest::Contains("bpermute_s: the segment descriptor covers 3 elements but the indices have 2"),
                       std::invalid_argument);
  CHECK_THROWS_AS(vseg::append_s(s, three, segd::single(2), two), std::invalid_argument);
  CHECK_THROWS_WITH_AS(vseg::extract_s(s, three, array<std::int64_t>{0, 1}),
                       doctest::Contains("extract_s: index 1 outside segment 1 of length 1"),
                       std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::bpermute_s(s, three, s, array<std::int64_t>{0, 2, 0}),
                       doctest::Contains("bpermute_s: index 2 at position 1"), std::out_of_range);
}

// Whether fold_s and scan_s accept a monoid of type M over ints. They are
// constrained by vseg::monoid_for, so an operation without an identity is
// rejected at the call (a short concept error), not deep inside the kernel.
template <class M>
concept folds_with = requires(const segd& s, const array<int>& xs, const M& m) { vseg::fold_s(s, xs, m); };
template <class M>
concept scans_with = requires(const segd& s, const array<int>& xs, const M& m) {
  vseg::scan_s(s, xs, m);
  vseg::scan_s_inclusive(s, xs, m);
};

TEST_CASE("fold_s and scan_s take monoids only") {
  static_assert(folds_with<vseg::plus<int>> && scans_with<vseg::maximum<int>>);
  static_assert(!folds_with<std::plus<>>, "fold_s(s, xs, std::plus<>{}) must not compile");
  static_assert(!scans_with<std::plus<>>, "scan_s(s, xs, std::plus<>{}) must not compile");
  auto s = segd::from_lengths(array<std::int64_t>{2, 0, 1});
  CHECK(vseg::to_vector(vseg::fold_s(s, array<int>{4, 5, 6}, vseg::plus<int>{})) == std::vector<int>{9, 0, 6});
}

TEST_CASE("extract_s and replace_s on equal segments check 32- and 64-bit indices at the bounds") {
  // 20000 segments of 4: the uniform layout, in chunks over several threads.
  const std::int64_t segments = 20000, each = 4;
  auto s = segd::from_lengths(vseg::fill<std::int64_t>(segments, each));
  REQUIRE(s.uniform_length() == each);
  std::vector<int> data(static_cast<std::size_t>(segments * each));
  std::iota(data.begin(), data.end(), 0);
  const array<int> xs(data);
  std::vector<std::int32_t> idx(static_cast<std::size_t>(segments));
  for (std::int64_t j = 0; j < segments; ++j) idx[static_cast<std::size_t>(j)] = static_cast<std::int32_t>(j % each);
  for_each_thread_count([&](int) {
    auto got = vseg::to_vector(vseg::extract_s(s, xs, array<std::int32_t>(idx)));
    for (std::int64_t j = 0; j < segments; ++j) CHECK(got[static_cast<std::size_t>(j)] == j * each + j % each);
    for (std::int64_t bad : {std::int64_t{-1}, each, std::int64_t{INT32_MIN}, std::int64_t{INT32_MAX}}) {
      INFO("bad index " << bad);
      auto wrong = idx;
      wrong[15000] = static_cast<std::int32_t>(bad);
      wrong[19000] = static_cast<std::int32_t>(bad);  // the first bad one is named
      const std::string message = "index " + std::to_string(bad) + " outside segment 15000 of length 4";
      CHECK_THROWS_WITH_AS(vseg::extract_s(s, xs, array<std::int32_t>(wrong)), doctest::Contains(message.c_str()),
                           std::out_of_range);
      CHECK_THROWS_WITH_AS(vseg::replace_s(s, xs, array<std::int32_t>(wrong), array<int>(idx)),
                           doctest::Contains(message.c_str()), std::out_of_range);
      std::vector<std::int64_t> wide(wrong.begin(), wrong.end());
      wide[15000] = bad - (std::int64_t{1} << 32);  // same low 32 bits, still bad
      CHECK_THROWS_AS(vseg::extract_s(s, xs, array<std::int64_t>(wide)), std::out_of_range);
    }
  });
}

TEST_CASE("extract_s and replace_s_into with one index k for every segment match the array of k's") {
  for (auto& mix : standard_mixes(11)) {
    INFO("mix = " << mix.name);
    auto rng = seeded(13);
    auto s = segd::from_lengths(array<std::int64_t>(mix.lengths));
    auto data = random_ints(rng, s.elements(), -50, 50);
    const std::int64_t shortest =
        mix.lengths.empty() ? 0 : *std::min_element(mix.lengths.begin(), mix.lengths.end());
    auto values = random_ints(rng, s.segments(), 100, 200);
    for_each_thread_count([&](int) {
      // Every k the shortest segment has, and the first it has not.
      for (std::int64_t k : {std::int64_t{0}, shortest - 1, shortest, std::int64_t{-1}}) {
        INFO("k = " << k);
        const array<std::int64_t> ks(std::vector<std::int64_t>(static_cast<std::size_t>(s.segments()), k));
        if (s.segments() == 0 || (k >= 0 && k < shortest)) {
          CHECK(vseg::extract_s(s, array<std::int64_t>(data), k) == vseg::extract_s(s, array<std::int64_t>(data), ks));
          std::vector<std::int64_t> by_k = data, by_ks = data;
          vseg::replace_s_into(s, std::span<std::int64_t>(by_k), k, array<std::int64_t>(values));
          vseg::replace_s_into(s, std::span<std::int64_t>(by_ks), ks, array<std::int64_t>(values));
          CHECK(by_k == by_ks);
          if (s.segments() > 0) CHECK(by_k != data);
        } else {
          // Named like the array form: the first segment without element k.
          std::string message;
          try {
            vseg::extract_s(s, array<std::int64_t>(data), ks);
          } catch (const std::out_of_range& e) {
            message = e.what();
          }
          REQUIRE(!message.empty());
          CHECK_THROWS_WITH_AS(vseg::extract_s(s, array<std::int64_t>(data), k), message.c_str(), std::out_of_range);
          std::vector<std::int64_t> unchanged = data;
          CHECK_THROWS_AS(vseg::replace_s_into(s, std::span<std::int64_t>(unchanged), k, array<std::int64_t>(values)),
                          std::out_of_range);
          CHECK(unchanged == data);
        }
      }
    });
  }
  auto s = segd::from_lengths(array<std::int64_t>{2, 1});
  std::vector<int> three{1, 2, 3};
  CHECK_THROWS_WITH_AS(vseg::extract_s(s, array<int>(three), std::int64_t{1}),
                       doctest::Contains("extract_s: index 1 outside segment 1 of length 1"), std::out_of_range);
  CHECK_THROWS_WITH_AS(vseg::replace_s_into(s, std::span<int>(three), std::int64_t{2}, array<int>{7, 8}),
                       doctest::Contains("replace_s: index 2 outside segment 0 of length 2"), std::out_of_range);
  CHECK_THROWS_AS(vseg::replace_s_into(s, std::span<int>(three), std::int64_t{0}, array<int>{7}), std::invalid_argument);
  vseg::replace_s_into(s, std::span<int>(three), std::int64_t{0}, array<int>{7, 8});
  CHECK(three == std::vector<int>{7, 2, 8});
}

TEST_CASE("extract_s and replace_s over thousands of long segments split by the strided grain and match a serial loop") {
  // 3,000 segments of 16-40 ints (listed) and of 24 (uniform): a line or
  // more per segment, so the loops run in chunks of the strided grain.
  auto rng = seeded(14);
  const std::int64_t segments = 3000;
  for (const bool uniform : {false, true}) {
    INFO("uniform = " << uniform);
    auto lengths = uniform ? std::vector<std::int64_t>(segments, 24) : random_ints(rng, segments, 16, 40);
    auto s = segd::from_lengths(array<std::int64_t>(lengths));
    REQUIRE((s.uniform_length() >= 0) == uniform);
    REQUIRE(vseg::detail::one_per_segment_grain(s, sizeof(int)) == vseg::tuning::one_per_segment_strided_grain);
    REQUIRE(vseg::tuning::one_per_segment_strided_grain < segments);
    // Segments of one element, or bytes, are not strided.
    CHECK(vseg::detail::one_per_segment_grain(segd::from_lengths(vseg::fill<std::int64_t>(segments, 1)), sizeof(int)) ==
          vseg::tuning::elementwise_grain);
    CHECK(vseg::detail::one_per_segment_grain(s, sizeof(bool)) == vseg::tuning::elementwise_grain);
    std::vector<int> data(static_cast<std::size_t>(s.elements()));
    std::iota(data.begin(), data.end(), 0);
    std::vector<std::int32_t> idx(static_cast<std::size_t>(segments));
    std::vector<int> values(static_cast<std::size_t>(segments));
    std::vector<int> want_extract(static_cast<std::size_t>(segments));
    std::vector<int> want_replace = data;
    std::int64_t start = 0;
    for (std::int64_t j = 0; j < segments; ++j) {
      const auto u = static_cast<std::size_t>(j);
      idx[u] = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(lengths[u]));
      values[u] = -1 - static_cast<int>(j);
      want_extract[u] = data[static_cast<std::size_t>(start + idx[u])];
      want_replace[static_cast<std::size_t>(start + idx[u])] = values[u];
      start += lengths[u];
    }
    const array<int> xs(data);
    for_each_thread_count([&](int) {
      CHECK(vseg::to_vector(vseg::extract_s(s, xs, array<std::int32_t>(idx))) == want_extract);
      CHECK(vseg::to_vector(vseg::replace_s(s, xs, array<std::int32_t>(idx), array<int>(values))) == want_replace);
      // One k for every segment: element 15 of each.
      auto by_k = vseg::to_vector(vseg::extract_s(s, xs, std::int64_t{15}));
      std::vector<int> in_place = data;
      vseg::replace_s_into(s, std::span<int>(in_place), std::int64_t{15}, array<int>(values));
      for (std::int64_t j = 0; j < segments; ++j) {
        const auto at = static_cast<std::size_t>(s.start(j) + 15);
        CHECK(by_k[static_cast<std::size_t>(j)] == data[at]);
        CHECK(in_place[at] == values[static_cast<std::size_t>(j)]);
      }
      // Bad indices in two chunks: the first is named, and the data is unchanged.
      auto wrong = idx;
      wrong[2500] = static_cast<std::int32_t>(lengths[2500]);
      wrong[2900] = -1;
      const std::string message = "index " + std::to_string(lengths[2500]) + " outside segment 2500 of length " +
                                  std::to_string(lengths[2500]);
      CHECK_THROWS_WITH_AS(vseg::extract_s(s, xs, array<std::int32_t>(wrong)), doctest::Contains(message.c_str()),
                           std::out_of_range);
      std::vector<int> unchanged = data;
      CHECK_THROWS_WITH_AS(vseg::replace_s_into(s, std::span<int>(unchanged), array<std::int32_t>(wrong), array<int>(values)),
                           doctest::Contains(message.c_str()), std::out_of_range);
      CHECK(unchanged == data);
    });
  }
}

TEST_CASE("all_in_range compares at the index's width without wrapping") {
  const std::vector<std::int32_t> narrow{0, 5, INT32_MAX};
  CHECK(vseg::detail::all_in_range(narrow.data(), 0, 3, std::int64_t{1} << 40));  // bound beyond int32
  CHECK_FALSE(vseg::detail::all_in_range(narrow.data(), 0, 3, INT32_MAX));
  CHECK(vseg::detail::all_in_range(narrow.data(), 0, 2, 6));
  const std::vector<std::int32_t> negative{0, -1};
  CHECK_FALSE(vseg::detail::all_in_range(negative.data(), 0, 2, std::int64_t{1} << 40));
  const std::vector<std::uint32_t> positive{0, UINT32_MAX};
  CHECK(vseg::detail::all_in_range(positive.data(), 0, 2, std::int64_t{1} << 40));
  CHECK_FALSE(vseg::detail::all_in_range(positive.data(), 0, 2, UINT32_MAX));
  const std::vector<std::int64_t> wide{0, -1};
  CHECK_FALSE(vseg::detail::all_in_range(wide.data(), 0, 2, INT64_MAX));
  CHECK(vseg::detail::all_in_range(wide.data(), 0, 1, 1));
  CHECK_FALSE(vseg::detail::all_in_range(wide.data(), 0, 1, 0));
  CHECK(vseg::detail::all_in_range(wide.data(), 1, 1, 0));  // an empty range
}
