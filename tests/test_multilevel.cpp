// multilevel<T>: nesting deeper than one level, with virtual segments at
// every level; descriptor-only operations, and replication 64 levels deep.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <doctest/doctest.h>

#include "support.hpp"
#include "vseg/multilevel.hpp"

using vseg::array;
using vseg::multilevel;
using vseg::nested;

namespace {

using seg = std::vector<std::int64_t>;
using ref2 = std::vector<std::vector<seg>>;

// A depth-2 multilevel array as vectors, read through its descriptors.
ref2 to_ref(const multilevel<std::int64_t>& m) {
  REQUIRE(m.depth() == 2);
  const auto& top = m.levels().front();
  ref2 out;
  for (std::int64_t k = 0; k < top.vsegids.size(); ++k) {
    const std::int64_t p = top.vsegids[k];
    out.emplace_back();
    for (std::int64_t i = 0; i < top.lengths[p]; ++i) {
      auto s = m.bottom()[top.starts[p] + i];
      out.back().emplace_back(s.begin(), s.end());
    }
  }
  return out;
}

}  // namespace

TEST_CASE("multilevel: operations at the outer and the inner level match the reference") {
  const std::vector<seg> base{{1, 2}, {}, {3}, {4, 5, 6}};
  multilevel<std::int64_t> m(nested<std::int64_t>::from(base));
  CHECK(m.depth() == 1);
  CHECK(vseg::virtual_elements(m) == 6);

  auto r = replicate(3, m);  // [base, base, base]
  CHECK(r.depth() == 2);
  CHECK(to_ref(r) == ref2{base, base, base});
  CHECK(vseg::virtual_elements(r) == 18);

  auto e = expand(array<std::int64_t>{0, 2, 1}, r);
  CHECK(to_ref(e) == ref2{base, base, base});
  auto p = pack(e, array<bool>{true, false, true});
  CHECK(to_ref(p) == ref2{base, base});

  // inner level: each innermost segment i repeated counts[i] times
  auto ei = expand_inner(array<std::int64_t>{2, 1, 0, 1}, r);
  const std::vector<seg> base_e{{1, 2}, {1, 2}, {}, {4, 5, 6}};
  CHECK(to_ref(ei) == ref2{base_e, base_e, base_e});
  auto pi = pack_inner(r, array<bool>{false, true, true, false});
  const std::vector<seg> base_p{{}, {3}};
  CHECK(to_ref(pi) == ref2{base_p, base_p, base_p});

  // concat of the outer level: the level below, with 12 virtual segments
  auto c = concat_outer(r);
  CHECK(c.depth() == 1);
  std::vector<seg> flat3;
  for (int i = 0; i < 3; ++i) flat3.insert(flat3.end(), base.begin(), base.end());
  CHECK(vseg::to_vectors(c.bottom()) == flat3);
  CHECK(c.bottom().physical_segments() == 4);  // still the original 4 physical segments

  // depth 3: replicate twice, concat twice
  auto r3 = replicate(2, replicate(3, m));
  CHECK(r3.depth() == 3);
  CHECK(vseg::virtual_elements(r3) == 36);
  auto c3 = concat_outer(concat_outer(r3));
  std::vector<seg> flat6;
  for (int i = 0; i < 6; ++i) flat6.insert(flat6.end(), base.begin(), base.end());
  CHECK(vseg::to_vectors(c3.bottom()) == flat6);
  // pack at the outermost of depth 3, then concat once: depth 2
  auto p3 = concat_outer(pack(r3, array<bool>{false, true}));
  CHECK(to_ref(p3) == ref2{base, base, base});

  CHECK_THROWS_WITH_AS(concat_outer(m), doctest::Contains("concat_outer"), std::invalid_argument);
  CHECK_THROWS_AS(expand_inner(array<std::int64_t>{1}, r), std::invalid_argument);
  CHECK_THROWS_AS(pack(r, array<bool>{true}), std::invalid_argument);
  CHECK_THROWS_WITH_AS(replicate(-1, m), doctest::Contains("negative count -1"), std::invalid_argument);
}

TEST_CASE("multilevel: 64 levels of treeLookup-style replication stay linear and overflow cleanly") {
  multilevel<std::int64_t> m(nested<std::int64_t>::from({{1, 2, 3}}));
  std::vector<std::int64_t> sizes;
  for (int level = 1; level <= 64; ++level) {
    m = replicate(2, m);
    sizes.push_back(m.descriptor_size());
    if (level == 60) {
      // 3 * 2^60 elements: still representable, and computed exactly.
      CHECK(vseg::virtual_elements(m) == 3 * (std::int64_t{1} << 60));
    }
  }
  CHECK(m.depth() == 65);
  // Memory and index work grow by a constant per level: linear in depth.
  for (std::size_t i = 1; i < sizes.size(); ++i) CHECK(sizes[i] - sizes[i - 1] == sizes[1] - sizes[0]);
  CHECK(m.descriptor_size() < 65 * 8);
  // 3 * 2^64 elements: more than 2^64, so virtual_elements must throw.
  CHECK_THROWS_WITH_AS(vseg::virtual_elements(m), doctest::Contains("more than 2^63-1"),
                       std::overflow_error);
  // Concatenating outer levels only rewrites descriptors: the outermost
  // level doubles its virtual segments each time (that is the result's
  // size), the single physical segment of data is untouched, and the
  // element count is unchanged (so it still overflows).
  for (int i = 0; i < 10; ++i) m = concat_outer(m);
  CHECK(m.depth() == 55);
  CHECK(m.size() == (std::int64_t{1} << 11));
  CHECK(m.bottom().physical_segments() == 1);
  CHECK_THROWS_AS(vseg::virtual_elements(m), std::overflow_error);
}

TEST_CASE("nested: virtual_elements counts replication far beyond memory") {
  // 2^24 copies of a 2^20-element array: 2^44 virtual elements over 8 MiB.
  auto xs = vseg::replicate(std::int64_t{1} << 24, vseg::iota(1 << 20));
  CHECK(vseg::virtual_elements(xs) == std::int64_t{1} << 44);
  CHECK(xs.physical_segments() == 1);
  // The same through a multilevel array: one more doubling level each time.
  multilevel<std::int64_t> m(xs);
  CHECK(vseg::virtual_elements(replicate(std::int64_t{1} << 18, m)) == std::int64_t{1} << 62);
  // 2^63 elements is one more than int64 holds: an overflow, not a wrap.
  CHECK_THROWS_AS(vseg::virtual_elements(replicate(std::int64_t{1} << 19, m)), std::overflow_error);
}
