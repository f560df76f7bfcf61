// Blocked arrays (vseg/ooc/blocked.hpp): every operation against the
// in-memory one, from a file and from memory, under budgets from one block
// to all of them, on the flow graph and serially.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "../support.hpp"
#include "vseg/hdf5/nested.hpp"
#include "vseg/ooc/blocked.hpp"
#include "vseg/ooc/blocked_run.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using vseg::array;
using vseg::nested;
namespace ooc = vseg::ooc;

namespace {

std::string temp_path(const std::string& name) {
  return vseg::test::temp_file("vseg-blocked-test", name);
}

// Schedules from one block in flight to everything, on both runners.
std::vector<ooc::schedule> schedules() {
  using r = ooc::schedule::runner;
  return {{1, r::flow_graph}, {1, r::serial}, {100'000, r::flow_graph}, {std::int64_t{1} << 40, r::flow_graph}};
}

// Small mixes (the tests run under sanitizers too).
std::vector<std::vector<std::int64_t>> mixes(std::mt19937_64& rng) {
  return {{}, std::vector<std::int64_t>(3000, 0), std::vector<std::int64_t>(2000, 1), vseg::test::random_ints(rng, 2000, 0, 30),
          {9000}, {0, 5000, 0, 0, 3, 7000, 0}};
}

template <class T, class Make>
nested<T> make(const std::vector<std::int64_t>& lengths, Make&& value) {
  std::vector<std::vector<T>> xss;
  std::int64_t k = 0;
  for (std::int64_t n : lengths) {
    xss.emplace_back();
    for (std::int64_t i = 0; i < n; ++i) xss.back().push_back(value(k++));
  }
  return nested<T>::from(xss);
}

}  // namespace

TEST_CASE("plan_blocks: whole segments up to a block, pieces for longer ones") {
  const std::vector<std::int64_t> offsets{0, 2, 2, 12, 13, 14};
  auto read = [&](std::int64_t lo, std::int64_t hi, std::int64_t* out) {
    for (std::int64_t i = lo; i < hi; ++i) out[i - lo] = offsets[static_cast<std::size_t>(i)];
  };
  const auto plan = ooc::plan_blocks(5, read, 4);
  // [2 elements + 0] fit (2+1 + 0+1 = 4 work items); segment 2 has 10: pieces of 4, 4, 2.
  const std::vector<ooc::block_range> expected{
      {0, 2, 0, 2, -1}, {2, 1, 2, 4, 0}, {2, 1, 6, 4, 1}, {2, 1, 10, 2, 2}, {3, 2, 12, 2, -1}};
  CHECK(plan == expected);
  CHECK_THROWS_AS(ooc::plan_blocks(5, read, 0), std::invalid_argument);
}

TEST_CASE("sum_s, from a file and from memory, equals the in-memory sum_s under every schedule") {
  const std::uint64_t seed = 1616;
  INFO("seed " << seed);
  auto rng = vseg::test::seeded(seed);
  const std::string path = temp_path("sum.h5");
  for (const auto& lengths : mixes(rng)) {
    INFO(lengths.size() << " segments");
    const auto ints = make<std::int64_t>(lengths, [&](std::int64_t) { return static_cast<std::int64_t>(rng() % 1000) - 500; });
    vseg::hdf5::save(path, ints);
    auto file = std::make_shared<const vseg::hdf5::reader>(path);
    const auto expected = vseg::sum_s(ints);
    for (std::int64_t block : {std::int64_t{5}, std::int64_t{1000}, std::int64_t{1} << 20}) {
      INFO("block_elements " << block);
      for (const auto& s : schedules()) {
        CHECK(ooc::sum_s(ooc::from_file<std::int64_t>(file, block), s) == expected);
        CHECK(ooc::sum_s(ooc::from_nested(ints, block), s) == expected);
      }
    }
  }
}

TEST_CASE("floating-point sums: the same bits under every budget, thread count and runner") {
  auto rng = vseg::test::seeded(17);
  const auto lengths = vseg::test::random_ints(rng, 3000, 0, 40);
  const auto values = vseg::test::random_doubles(rng, 200'000);
  const auto xss = make<double>(lengths, [&](std::int64_t k) { return values[static_cast<std::size_t>(k)]; });
  const std::string path = temp_path("doubles.h5");
  vseg::hdf5::save(path, xss);
  auto file = std::make_shared<const vseg::hdf5::reader>(path);
  const array<double> reference = ooc::sum_s(ooc::from_nested(xss, 2000), {1, ooc::schedule::runner::serial});
  std::vector<double> ref(reference.begin(), reference.end());
  vseg::test::for_each_thread_count([&](int) {
    for (const auto& s : schedules()) {
      const array<double> got = ooc::sum_s(ooc::from_file<double>(file, 2000), s);
      CHECK(vseg::test::same_bits(std::vector<double>(got.begin(), got.end()), ref));
    }
  });
  // One block holding everything is the in-memory run itself, bit for bit.
  const array<double> whole = ooc::sum_s(ooc::from_file<double>(file, std::int64_t{1} << 30));
  const array<double> in_memory = vseg::sum_s(xss);
  CHECK(vseg::test::same_bits(std::vector<double>(whole.begin(), whole.end()),
                              std::vector<double>(in_memory.begin(), in_memory.end())));
}

TEST_CASE("map, zip_with, index_l, pack and scan_s equal their in-memory versions") {
  auto rng = vseg::test::seeded(18);
  const std::string path = temp_path("ops.h5");
  for (const auto& lengths : mixes(rng)) {
    INFO(lengths.size() << " segments");
    const auto xs = make<std::int64_t>(lengths, [&](std::int64_t k) { return k % 97; });
    vseg::hdf5::save(path, xs);
    auto file = std::make_shared<const vseg::hdf5::reader>(path);
    const array<std::int64_t> table = vseg::iota<std::int64_t>(97, 1000);
    const array<bool> flags{vseg::test::random_flags_vector(rng, xs.size(), 0.5)};
    for (std::int64_t block : {std::int64_t{61}, std::int64_t{3000}}) {
      INFO("block_elements " << block);
      const auto bx = ooc::from_file<std::int64_t>(file, block);
      auto twice = [](std::int64_t v) { return 2 * v; };
      auto sub = [](std::int64_t a, std::int64_t b) { return a - b; };
      const auto expr = ooc::zip_with(sub, ooc::map(twice, bx), ooc::index_l(table, bx));
      const nested<std::int64_t> mem = vseg::zip_with(sub, vseg::map(twice, xs), vseg::index_l(vseg::replicate(xs.size(), table), xs));
      CHECK(vseg::to_vectors(ooc::collect(expr)) == vseg::to_vectors(mem));
      CHECK(ooc::sum_s(expr) == vseg::sum_s(mem));
      CHECK(vseg::to_vectors(ooc::collect(ooc::pack(expr, flags))) == vseg::to_vectors(vseg::pack(mem, flags)));
      CHECK(ooc::sum_s(ooc::pack(expr, flags)) == vseg::sum_s(vseg::pack(mem, flags)));
      CHECK(vseg::to_vectors(ooc::collect(ooc::scan_s(expr, vseg::plus<std::int64_t>{}))) ==
            vseg::to_vectors(vseg::scan_s(mem)));
    }
  }
}

TEST_CASE("the task graph is data: one load per block and input, printable as DOT") {
  const auto xs = nested<std::int64_t>::from({{1, 2, 3}, {4}, {}, {5, 6, 7, 8, 9, 10}});
  const auto bx = ooc::from_nested(xs, 4);
  const auto e = ooc::zip_with([](std::int64_t a, std::int64_t b) { return a * b; }, bx,
                               ooc::map([](std::int64_t a) { return a + 1; }, bx));
  const auto g = ooc::graph(e, "sum_s");
  const auto blocks = static_cast<std::int64_t>(bx.blocks().size());
  CHECK(blocks == 4);  // [1 2 3], [4] [], two pieces of the 6-element segment
  CHECK(g.count("load memory") == 2 * blocks);
  CHECK(g.count("map") == blocks);
  CHECK(g.count("zip_with") == blocks);
  CHECK(g.count("sum_s") == blocks);
  CHECK(g.count("combine sum_s") == 1);
  for (const auto& t : g.tasks)
    for (std::int64_t i : t.inputs) CHECK(i < t.id);
  CHECK(g.tasks.back().inputs.size() == static_cast<std::size_t>(blocks));
  const std::string dot = g.to_dot();
  CHECK(dot.find("digraph") == 0);
  CHECK(dot.find("\"zip_with [3]\"") != std::string::npos);
  CHECK(dot.find(" -> t" + std::to_string(g.tasks.back().id)) != std::string::npos);
}

TEST_CASE("errors: other blocks, a bad index, a packed array packed again, a bad file") {
  const auto xs = nested<std::int64_t>::from({{1, 2}, {3}});
  CHECK_THROWS_AS(ooc::zip_with([](std::int64_t a, std::int64_t b) { return a + b; }, ooc::from_nested(xs, 2),
                                ooc::from_nested(xs, 100)),
                  std::invalid_argument);
  const auto bad = ooc::index_l(array<std::int64_t>{10, 20, 30}, ooc::from_nested(xs, 2));
  CHECK_THROWS_AS(ooc::sum_s(bad), std::out_of_range);
  const array<bool> flags{true, false};
  CHECK_THROWS_WITH_AS(ooc::pack(ooc::pack(ooc::from_nested(xs, 2), flags), flags), doctest::Contains("already packed"),
                       std::invalid_argument);
  const std::string path = temp_path("depth2.h5");
  vseg::hdf5::save(path, vseg::replicate(2, vseg::multilevel<std::int64_t>(xs)));
  CHECK_THROWS_WITH_AS(ooc::from_file<std::int64_t>(std::make_shared<const vseg::hdf5::reader>(path), 10),
                       doctest::Contains("depth 2"), vseg::hdf5::error);
}
