// The umbrella header reaches every public operation: this file includes
// vseg/vseg.hpp and nothing else of vseg, and calls each operation of array,
// flat, segd, segmented, monoid, matrix_market, nested, multilevel and
// algorithm once on a small input, checking its result. A header left out of the umbrella (or
// an operation moved to a header it does not include) fails to compile here.
#include "vseg/vseg.hpp"

#include <cstdint>
#include <functional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <doctest/doctest.h>

using vseg::array;
using vseg::segd;
using ints = std::vector<std::int64_t>;
using nested_ints = std::vector<ints>;

TEST_CASE("umbrella: array and buffer") {
  auto b = vseg::buffer<std::int64_t>::for_overwrite(3);
  for (std::int64_t i = 0; i < 3; ++i) b[i] = 10 * i;
  const array<std::int64_t> xs = std::move(b).freeze();
  CHECK(vseg::to_vector(xs) == ints{0, 10, 20});
  CHECK(vseg::to_vector(vseg::buffer<int>::filled(2, 7).freeze()) == std::vector<int>{7, 7});
  CHECK(vseg::to_vector(xs.slice(1, 2)) == ints{10, 20});
  CHECK(xs.slice(1, 2).shares_buffer_with(xs));
  CHECK(xs.at(2) == 20);
  CHECK_THROWS_AS(xs.at(3), std::out_of_range);
  CHECK(xs == array<std::int64_t>{0, 10, 20});
}

TEST_CASE("umbrella: monoids") {
  CHECK(vseg::plus<int>{}(2, 3) == 5);
  CHECK(vseg::multiplies<int>{}(2, 3) == 6);
  CHECK(vseg::minimum<int>{}(2, 3) == 2);
  CHECK(vseg::maximum<int>{}(2, 3) == 3);
  CHECK(vseg::logical_and{}(true, false) == false);
  CHECK(vseg::logical_or{}(true, false) == true);
  CHECK(vseg::logical_xor{}(true, true) == false);
  CHECK(vseg::bit_and<unsigned>{}(6u, 3u) == 2u);
  CHECK(vseg::bit_or<unsigned>{}(6u, 3u) == 7u);
  CHECK(vseg::bit_xor<unsigned>{}(6u, 3u) == 5u);
  const auto last = vseg::make_monoid([](int, int b) { return b; }, -1);
  CHECK(last.identity() == -1);
  static_assert(vseg::monoid_for<vseg::plus<int>, int> && !vseg::monoid_for<std::plus<>, int>);
}

TEST_CASE("umbrella: flat primitives") {
  const array<std::int64_t> xs{5, 1, 4};
  CHECK(vseg::to_vector(vseg::tabulate(3, [](std::int64_t i) { return i * i; })) == ints{0, 1, 4});
  CHECK(vseg::to_vector(vseg::iota<std::int64_t>(3, 2, 3)) == ints{2, 5, 8});
  CHECK(vseg::to_vector(vseg::fill<std::int64_t>(2, 9)) == ints{9, 9});
  CHECK(vseg::to_vector(vseg::map([](std::int64_t x) { return x + 1; }, xs)) == ints{6, 2, 5});
  CHECK(vseg::to_vector(vseg::zip_with(std::plus<>{}, xs, xs)) == ints{10, 2, 8});
  std::vector<std::int64_t> out(3);
  vseg::map_into([](std::int64_t x) { return -x; }, xs, std::span<std::int64_t>(out));
  CHECK(out == ints{-5, -1, -4});
  vseg::zip_with_into(std::minus<>{}, xs, xs, std::span<std::int64_t>(out));
  CHECK(out == ints{0, 0, 0});
  CHECK(vseg::reduce(xs, vseg::maximum<std::int64_t>{}) == 5);
  CHECK(vseg::reduce_serial<std::int64_t>(xs.span(), vseg::plus<std::int64_t>{}) == 10);
  CHECK(vseg::sum(xs) == 10);
  CHECK(vseg::to_vector(vseg::scan(xs, vseg::plus<std::int64_t>{})) == ints{0, 5, 6});
  CHECK(vseg::to_vector(vseg::scan_inclusive(xs, vseg::plus<std::int64_t>{})) == ints{5, 6, 10});
  const auto with_total = vseg::scan_with_total(xs, vseg::plus<std::int64_t>{});
  CHECK((vseg::to_vector(with_total.prefixes) == ints{0, 5, 6} && with_total.total == 10));
  CHECK(vseg::scan_serial<std::int64_t>(xs.span(), out.data(), 0, vseg::plus<std::int64_t>{}) == 10);
  CHECK(out == ints{0, 5, 6});
  CHECK(vseg::scan_inclusive_serial<std::int64_t>(xs.span(), out.data(), 0, vseg::plus<std::int64_t>{}) == 10);
  CHECK(out == ints{5, 6, 10});
  const array<bool> flags{true, false, true};
  CHECK(vseg::to_vector(vseg::pack(xs, flags)) == ints{5, 4});
  CHECK(vseg::to_vector(vseg::pack_serial<std::int64_t>(xs.span(), flags.span())) == ints{5, 4});
  CHECK(vseg::to_vector(vseg::pack_index(flags)) == ints{0, 2});
  CHECK(vseg::count_true(flags) == 2);
  const array<std::int64_t> perm{2, 0, 1};
  CHECK(vseg::to_vector(vseg::bpermute(xs, perm)) == ints{4, 5, 1});
  CHECK(vseg::to_vector(vseg::bpermute_unchecked(xs, perm)) == ints{4, 5, 1});
  CHECK(vseg::to_vector(vseg::permute(xs, perm)) == ints{1, 4, 5});
  CHECK(vseg::to_vector(vseg::permute_unchecked(xs, perm)) == ints{1, 4, 5});
  CHECK(vseg::to_vector(vseg::inverse_permutation(perm)) == ints{1, 2, 0});
  CHECK(vseg::to_vector(vseg::inverse_permutation_unchecked(perm)) == ints{1, 2, 0});
  CHECK(vseg::to_vector(vseg::permute_default(array<std::int64_t>{7, 8}, array<std::int64_t>{3, 1},
                                              array<std::int64_t>{0, 0, 0, 0})) == ints{0, 8, 0, 7});
  CHECK(vseg::to_vector(vseg::combine2(flags, array<std::int64_t>{9}, array<std::int64_t>{1, 2})) == ints{1, 9, 2});
  CHECK(vseg::to_vector(vseg::expand(array<std::int64_t>{2, 0, 1}, xs)) == ints{5, 5, 4});
  CHECK(vseg::to_vector(vseg::append(xs, array<std::int64_t>{6})) == ints{5, 1, 4, 6});
}

TEST_CASE("umbrella: segment descriptors") {
  const segd s = segd::from_lengths(array<std::int64_t>{2, 0, 3});
  CHECK((s.segments() == 3 && s.elements() == 5));
  CHECK(vseg::to_vector(s.lengths()) == ints{2, 0, 3});
  CHECK(vseg::to_vector(s.starts()) == ints{0, 2, 2});
  CHECK((s.length(2) == 3 && s.start(2) == 2 && s.end(2) == 5 && s.uniform_length() == -1));
  const std::vector<std::int32_t> narrow{2, 0, 3};
  CHECK(segd::from_int32_lengths(narrow) == s);
  CHECK(segd::single(4).uniform_length() == 4);
  CHECK(segd::uniform(3, 2).elements() == 6);
  CHECK_THROWS_AS(vseg::check_covers("umbrella", s, 4), std::invalid_argument);
}

TEST_CASE("umbrella: segmented primitives") {
  const segd s = segd::from_lengths(array<std::int64_t>{2, 0, 3});
  const array<std::int64_t> xs{1, 2, 3, 4, 5};
  CHECK(vseg::to_vector(vseg::fold_s(s, xs, vseg::maximum<std::int64_t>{})) ==
        ints{2, vseg::maximum<std::int64_t>::identity(), 5});
  CHECK(vseg::to_vector(vseg::fold_s_serial<std::int64_t>(s, xs.span(), vseg::plus<std::int64_t>{})) == ints{3, 0, 12});
  CHECK(vseg::to_vector(vseg::sum_s(s, xs)) == ints{3, 0, 12});
  CHECK(vseg::to_vector(vseg::scan_s(s, xs, vseg::plus<std::int64_t>{})) == ints{0, 1, 0, 3, 7});
  CHECK(vseg::to_vector(vseg::scan_s_serial<std::int64_t>(s, xs.span(), vseg::plus<std::int64_t>{})) ==
        ints{0, 1, 0, 3, 7});
  CHECK(vseg::to_vector(vseg::scan_s_inclusive(s, xs, vseg::plus<std::int64_t>{})) == ints{1, 3, 3, 7, 12});
  CHECK(vseg::to_vector(vseg::replicate_s(s, array<std::int64_t>{7, 8, 9})) == ints{7, 7, 9, 9, 9});
  CHECK(vseg::to_vector(vseg::indices_s(s)) == ints{0, 1, 0, 1, 2});
  CHECK(vseg::to_vector(vseg::segment_ids(s)) == ints{0, 0, 2, 2, 2});
  CHECK(vseg::to_vector(vseg::segment_ids(array<std::int64_t>{1, 2})) == ints{0, 1, 1});
  const auto packed = vseg::pack_s(s, xs, array<bool>{true, false, false, true, true});
  CHECK((vseg::to_vector(packed.descriptor.lengths()) == ints{1, 0, 2} && vseg::to_vector(packed.data) == ints{1, 4, 5}));
  const auto appended = vseg::append_s(s, xs, segd::uniform(3, 1), array<std::int64_t>{6, 7, 8});
  CHECK(vseg::to_vector(appended.data) == ints{1, 2, 6, 7, 3, 4, 5, 8});
  const segd full = segd::from_lengths(array<std::int64_t>{2, 3});
  const array<std::int64_t> ys{1, 2, 3, 4, 5};
  CHECK(vseg::to_vector(vseg::extract_s(full, ys, array<std::int64_t>{1, 2})) == ints{2, 5});
  CHECK(vseg::to_vector(vseg::extract_s(full, ys, std::int64_t{0})) == ints{1, 3});
  CHECK(vseg::to_vector(vseg::bpermute_s(full, ys, full, array<std::int64_t>{1, 1, 2, 0, 0}).data) ==
        ints{2, 2, 5, 3, 3});
  CHECK(vseg::to_vector(vseg::bpermute_flagged_s(full, ys, full, array<std::int64_t>{1, 0, 2, 0, 0},
                                                 array<bool>{true, false, true, false, true}, -1)) ==
        ints{2, -1, 5, -1, 3});
  CHECK(vseg::to_vector(vseg::permute_s(full, ys, array<std::int64_t>{1, 0, 2, 0, 1})) == ints{2, 1, 4, 5, 3});
  CHECK(vseg::to_vector(vseg::permute_default_s(full, ys, array<std::int64_t>{0, 0, 1, 1, 1}, segd::uniform(2, 2),
                                                array<std::int64_t>{0, 0, 0, 0})) == ints{2, 0, 0, 5});
  CHECK(vseg::to_vector(vseg::replace_s(full, ys, array<std::int64_t>{0, 1}, array<std::int64_t>{8, 9})) ==
        ints{8, 2, 3, 9, 5});
  std::vector<std::int64_t> in_place{1, 2, 3, 4, 5};
  vseg::replace_s_into(full, std::span<std::int64_t>(in_place), array<std::int64_t>{1, 0}, array<std::int64_t>{8, 9});
  CHECK(in_place == ints{1, 8, 9, 4, 5});
  vseg::replace_s_into(full, std::span<std::int64_t>(in_place), std::int64_t{1}, array<std::int64_t>{6, 7});
  CHECK(in_place == ints{1, 6, 9, 7, 5});
  CHECK(vseg::to_vector(vseg::iota_s(full, array<std::int64_t>{10, 20}, array<std::int64_t>{1, -2})) ==
        ints{10, 11, 20, 18, 16});
  const array<std::int64_t> keys{5, 1, 3, 3, 2};
  CHECK(vseg::to_vector(vseg::rank_s(full, keys, vseg::rank_order::up)) == ints{1, 0, 1, 2, 0});
  CHECK(vseg::to_vector(vseg::rank_s_as<std::int32_t>(full, keys, vseg::rank_order::down)) ==
        std::vector<std::int32_t>{0, 1, 0, 1, 2});
}

TEST_CASE("umbrella: sorting, keys and duplicates") {
  const array<std::int64_t> xs{3, -1, 3, 2, -1};
  CHECK(vseg::to_vector(vseg::sort(xs)) == ints{-1, -1, 2, 3, 3});
  CHECK(vseg::to_vector(vseg::sort(xs, std::greater<>{})) == ints{3, 3, 2, -1, -1});
  const auto [sk, sv] = vseg::sort_by_key(xs, array<int>{0, 1, 2, 3, 4});
  CHECK((vseg::to_vector(sk) == ints{-1, -1, 2, 3, 3} && vseg::to_vector(sv) == std::vector<int>{1, 4, 3, 0, 2}));
  const segd s = segd::from_lengths(array<std::int64_t>{3, 0, 2});
  CHECK(vseg::to_vector(vseg::sort_s(s, xs)) == ints{-1, 3, 3, -1, 2});
  const auto sorted_nested = vseg::sort_s(vseg::nested<std::int64_t>::from({{2, 1}, {}, {5, 4, 3}}));
  CHECK(vseg::to_vectors(sorted_nested) == nested_ints{{1, 2}, {}, {3, 4, 5}});
  CHECK(vseg::to_vector(vseg::remove_duplicates(xs)) == ints{3, -1, 2});
  CHECK(vseg::to_vector(vseg::unique(array<int>{1, 1, 2, 1, 1})) == std::vector<int>{1, 2, 1});
  const auto u = vseg::unique_s(segd::from_lengths(array<std::int64_t>{2, 3}), array<int>{1, 1, 1, 2, 2});
  CHECK((vseg::to_vector(u.descriptor.lengths()) == ints{1, 2} && vseg::to_vector(u.data) == std::vector<int>{1, 1, 2}));
  const auto [rk, rv] = vseg::reduce_by_key(xs, array<std::int64_t>{1, 2, 3, 4, 5}, vseg::plus<std::int64_t>{});
  CHECK((vseg::to_vector(rk) == ints{-1, 2, 3} && vseg::to_vector(rv) == ints{7, 4, 4}));
  const auto [gk, gv] = vseg::group_by_key(xs, array<std::int64_t>{1, 2, 3, 4, 5});
  CHECK((vseg::to_vector(gk) == ints{-1, 2, 3} && vseg::to_vectors(gv) == nested_ints{{2, 5}, {4}, {1, 3}}));
  const auto [hk, hc] = vseg::histogram_by_key(xs);
  CHECK((vseg::to_vector(hk) == ints{-1, 2, 3} && vseg::to_vector(hc) == ints{2, 1, 2}));
  CHECK(vseg::to_vector(vseg::histogram(array<int>{0, 2, 2, 0, 2}, 4)) == ints{2, 0, 3, 0});
  CHECK_THROWS_AS(vseg::histogram(array<int>{0, 4}, 4), std::out_of_range);
}

TEST_CASE("umbrella: matrix market") {
  std::istringstream in(
      "%%MatrixMarket matrix coordinate real general\n"
      "2 2 2\n"
      "1 1 3.5\n"
      "2 1 -1\n");
  const vseg::csr_matrix m = vseg::read_matrix_market(in, "umbrella");
  CHECK((m.rows == 2 && m.cols == 2 && m.nnz() == 2));
  CHECK(vseg::to_vector(m.row_lengths) == ints{1, 1});
  std::istringstream bad("not a banner\n");
  CHECK_THROWS_AS(vseg::read_matrix_market(bad, "bad"), vseg::parse_error);
  CHECK(vseg::stencil_7(2).nnz() == 8 + 8 * 3);
  CHECK(vseg::stencil_27(2).nnz() == 64);
  CHECK(vseg::random_matrix(5, 5, 2.0, 1).rows == 5);
}

TEST_CASE("umbrella: nested operations") {
  using nested = vseg::nested<std::int64_t>;
  const nested xss = nested::from(nested_ints{{1, 2}, {}, {3, 4, 5}});
  CHECK(vseg::to_vectors(nested::from_lengths(array<std::int64_t>{1, 2}, array<std::int64_t>{7, 8, 9})) ==
        nested_ints{{7}, {8, 9}});
  CHECK(vseg::to_vectors(vseg::replicate(2, array<std::int64_t>{1, 2})) == nested_ints{{1, 2}, {1, 2}});
  CHECK(vseg::to_vectors(vseg::expand(array<std::int64_t>{0, 1, 2}, xss)) == nested_ints{{}, {3, 4, 5}, {3, 4, 5}});
  CHECK(vseg::to_vectors(vseg::pack(xss, array<bool>{true, false, true})) == nested_ints{{1, 2}, {3, 4, 5}});
  const nested yss = nested::from(nested_ints{{6}});
  CHECK(vseg::to_vectors(vseg::combine2(array<bool>{false, true, false, false}, xss, yss)) ==
        nested_ints{{1, 2}, {6}, {}, {3, 4, 5}});
  CHECK(vseg::to_vectors(vseg::append(xss, yss)) == nested_ints{{1, 2}, {}, {3, 4, 5}, {6}});
  CHECK(vseg::to_vectors(vseg::extract(xss, 1, 2)) == nested_ints{{}, {3, 4, 5}});
  CHECK(vseg::to_vectors(vseg::slice_l(xss, array<std::int64_t>{1, 0, 1}, array<std::int64_t>{1, 0, 2})) ==
        nested_ints{{2}, {}, {4, 5}});
  const nested full = nested::from(nested_ints{{1, 2}, {3, 4, 5}});
  CHECK(vseg::to_vector(vseg::index_l(full, array<std::int64_t>{1, 2})) == ints{2, 5});
  CHECK(vseg::to_vectors(vseg::index_l(full, nested::from(nested_ints{{0, 0}, {2}}))) == nested_ints{{1, 1}, {5}});
  CHECK(vseg::to_vectors(vseg::zip_with(std::plus<>{}, full, full)) == nested_ints{{2, 4}, {6, 8, 10}});
  CHECK(vseg::to_vector(vseg::fold_s(xss, vseg::plus<std::int64_t>{})) == ints{3, 0, 12});
  CHECK(vseg::to_vector(vseg::sum_s(xss)) == ints{3, 0, 12});
  CHECK(vseg::to_vectors(vseg::scan_s(xss, vseg::plus<std::int64_t>{})) == nested_ints{{0, 1}, {}, {0, 3, 7}});
  CHECK(vseg::to_vectors(vseg::map([](std::int64_t x) { return 2 * x; }, xss)) == nested_ints{{2, 4}, {}, {6, 8, 10}});
  CHECK(vseg::to_vector(vseg::concat(xss)) == ints{1, 2, 3, 4, 5});
  CHECK(vseg::to_vectors(vseg::unconcat(xss, array<std::int64_t>{9, 8, 7, 6, 5})) == nested_ints{{9, 8}, {}, {7, 6, 5}});
  CHECK(vseg::to_vectors(vseg::append_l(full, full)) == nested_ints{{1, 2, 1, 2}, {3, 4, 5, 3, 4, 5}});
  CHECK(vseg::virtual_elements(vseg::replicate(4, array<std::int64_t>{1, 2, 3})) == 12);
}

TEST_CASE("umbrella: multilevel operations") {
  using nested = vseg::nested<std::int64_t>;
  const vseg::multilevel<std::int64_t> m(nested::from(nested_ints{{1, 2}, {3}}));
  const auto r = vseg::replicate(3, m);
  CHECK((r.depth() == 2 && r.size() == 3));
  CHECK(vseg::virtual_elements(r) == 9);
  CHECK(vseg::expand(array<std::int64_t>{2, 0, 1}, r).size() == 3);
  CHECK(vseg::pack(r, array<bool>{true, false, true}).size() == 2);
  CHECK(vseg::concat_outer(r).size() == 6);
  // The inner operations take one count or flag per segment of the bottom.
  CHECK(vseg::virtual_elements(vseg::expand_inner(array<std::int64_t>{2, 1}, r)) == 3 * (2 + 2 + 1));
  CHECK(vseg::virtual_elements(vseg::pack_inner(r, array<bool>{false, true})) == 3 * 1);
}

TEST_CASE("umbrella: segment algorithms (gather, scatter, split, partition, interleave, counts)") {
  using nested = vseg::nested<std::int64_t>;
  const nested xss = nested::from(nested_ints{{1, 2}, {}, {3, 4, 5}});
  CHECK(vseg::to_vectors(vseg::gather(xss, array<std::int64_t>{2, 0, 2})) == nested_ints{{3, 4, 5}, {1, 2}, {3, 4, 5}});
  CHECK(vseg::to_vector(vseg::gather(array<std::int64_t>{5, 6, 7}, array<int>{2, 2, 0})) == ints{7, 7, 5});
  CHECK(vseg::to_vectors(vseg::filter_segments(xss, array<bool>{true, false, true})) == nested_ints{{1, 2}, {3, 4, 5}});
  CHECK(vseg::to_vectors(vseg::filter_segments(xss, [](std::int64_t, std::int64_t len) { return len > 2; })) ==
        nested_ints{{3, 4, 5}});
  const array<std::int64_t> dest{0, 0, 0}, ids{1, 2, 1}, vals{4, 5, 6};
  CHECK(vseg::to_vector(vseg::scatter(dest, ids, vals)) == ints{0, 6, 5});
  CHECK(vseg::to_vector(vseg::scatter(dest, ids, vals, vseg::last_wins{})) == ints{0, 6, 5});
  CHECK(vseg::to_vector(vseg::scatter(dest, ids, vals, vseg::first_wins{})) == ints{0, 4, 5});
  CHECK(vseg::to_vector(vseg::scatter(dest, ids, vals, vseg::plus<std::int64_t>{})) == ints{0, 10, 5});
  CHECK(vseg::to_vector(vseg::scatter(dest, ids, vals, vseg::minimum<std::int64_t>{})) == ints{0, 0, 0});
  std::vector<std::int64_t> into{1, 1, 1};
  vseg::scatter_into(into, ids, vals, vseg::maximum<std::int64_t>{});
  CHECK(into == ints{1, 6, 5});
  const auto halves = vseg::split(array<std::int64_t>{5, 1, 3, 9, 3}, std::int64_t{3});
  CHECK(vseg::to_vector(halves.descriptor.lengths()) == ints{1, 2, 2});
  CHECK(vseg::to_vector(halves.data) == ints{1, 3, 3, 5, 9});
  const auto parts = vseg::split_s(segd::from_lengths(array<std::int64_t>{3, 2}), array<std::int64_t>{2, 1, 3, 7, 7},
                                   array<std::int64_t>{2, 8});
  CHECK(vseg::to_vector(parts.descriptor.lengths()) == ints{1, 1, 1, 2, 0, 0});
  CHECK(vseg::to_vector(parts.data) == ints{1, 2, 3, 7, 7});
  const auto by = vseg::partition(array<std::int64_t>{10, 11, 12, 13}, array<int>{1, 0, 1, 0}, 2);
  CHECK(vseg::to_vector(by.descriptor.lengths()) == ints{2, 2});
  CHECK(vseg::to_vector(by.data) == ints{11, 13, 10, 12});
  const auto by_s = vseg::partition_s(segd::from_lengths(array<std::int64_t>{3, 1}), array<std::int64_t>{10, 11, 12, 13},
                                      array<int>{1, 0, 1, 1}, 2);
  CHECK(vseg::to_vector(by_s.descriptor.lengths()) == ints{1, 2, 0, 1});
  CHECK(vseg::to_vector(by_s.data) == ints{11, 10, 12, 13});
  CHECK(vseg::to_vector(vseg::interleave(array<std::int64_t>{1, 2}, array<std::int64_t>{8, 9})) == ints{1, 8, 2, 9});
  const std::vector<array<std::int64_t>> three{array<std::int64_t>{1, 2}, array<std::int64_t>{3, 4}, array<std::int64_t>{5, 6}};
  CHECK(vseg::to_vector(vseg::interleave(std::span<const array<std::int64_t>>(three))) == ints{1, 3, 5, 2, 4, 6});
  const segd heads = segd::from_head_flags(array<bool>{true, false, true, true, false, false});
  CHECK(vseg::to_vector(heads.lengths()) == ints{2, 1, 3});
  CHECK(vseg::segd_from_flags(array<bool>{true, true}).segments() == 2);
  CHECK(vseg::to_vector(vseg::count_s(heads, array<bool>{true, true, false, true, false, true})) == ints{2, 0, 2});
  auto odd = [](std::int64_t x) { return x % 2 != 0; };
  CHECK(vseg::to_vector(vseg::count_if_s(heads, array<std::int64_t>{1, 3, 4, 5, 7, 8}, odd)) == ints{2, 0, 2});
  CHECK(vseg::to_vector(vseg::count_if_s(xss, odd)) == ints{1, 0, 2});
  const vseg::csr_matrix m = vseg::stencil_2d(2, 2, 5);
  CHECK(vseg::to_vector(m.row_lengths) == ints{3, 3, 3, 3});
  CHECK(vseg::to_vector(m.col_indices.slice(0, 3)) == ints{0, 1, 2});
  CHECK(vseg::to_vector(m.values.slice(0, 3)) == std::vector<double>{4, -1, -1});
  CHECK(vseg::stencil_2d(3, 3, 9).nnz() == 4 * 4 + 4 * 6 + 9);
  // segmented_array <-> nested, sharing the data.
  const auto as_nested = vseg::to_nested(halves);
  CHECK(vseg::to_vectors(as_nested) == nested_ints{{1}, {3, 3}, {5, 9}});
  CHECK(vseg::to_vectors(nested::from_segmented(halves)) == nested_ints{{1}, {3, 3}, {5, 9}});
  CHECK(vseg::to_segmented(as_nested).data.shares_buffer_with(halves.data));
  CHECK(vseg::to_vector(vseg::to_segmented(vseg::gather(as_nested, array<int>{2, 2})).data) == ints{5, 9, 5, 9});
}
