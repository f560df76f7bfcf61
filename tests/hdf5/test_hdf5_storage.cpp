// vseg::hdf5 storage: round trips of nested and multilevel arrays, safe
// writes, and a clear error for every kind of bad file.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "../support.hpp"
#include "vseg/hdf5/nested.hpp"
// Internal to vseg-hdf5, tested here: the checksum of the direct chunk reads.
#include "../../lib/hdf5/chunk_read.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using vseg::array;
using vseg::nested;

namespace {

// A fresh path in a per-process temporary directory.
std::string temp_path(const std::string& name) {
  return vseg::test::temp_file("vseg-hdf5-test", name);
}

struct point {
  std::int32_t x;
  float y;
  bool operator==(const point&) const = default;
};

// The message of the hdf5::error that body throws ("" if none).
template <class Body>
std::string error_of(Body&& body) {
  try {
    body();
  } catch (const vseg::hdf5::error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("nested arrays of every standard segment mix round-trip through a file") {
  const std::uint64_t seed = 16;
  INFO("seed " << seed);
  auto rng = vseg::test::seeded(seed);
  const std::string path = temp_path("mix.h5");
  for (const auto& mix : vseg::test::standard_mixes(seed)) {
    INFO(mix.name);
    std::vector<std::vector<double>> ref;
    for (std::int64_t n : mix.lengths) ref.push_back(vseg::test::random_doubles(rng, n));
    const auto xss = nested<double>::from(ref);
    vseg::hdf5::save(path, xss);
    const auto back = vseg::hdf5::load_nested<double>(path);
    CHECK(vseg::to_vectors(back) == ref);
  }
}

TEST_CASE("virtual segments are written in their virtual view; structs are opaque elements") {
  const std::string path = temp_path("virtual.h5");
  const auto base = nested<point>::from({{{1, 1.5f}, {2, 2.5f}}, {}, {{3, 3.5f}}});
  const auto xss = vseg::expand(array<std::int64_t>{2, 0, 3}, base);
  vseg::hdf5::save(path, xss);
  CHECK(vseg::to_vectors(vseg::hdf5::load_nested<point>(path)) == vseg::to_vectors(xss));
  // The same file asked for as another type names the dataset and both types.
  const std::string e = error_of([&] { (void)vseg::hdf5::load_nested<double>(path); });
  CHECK(contains(e, path));
  CHECK(contains(e, "'values'"));
  CHECK(contains(e, "opaque8"));
  CHECK(contains(e, "float64"));
}

TEST_CASE("multilevel arrays of depth 1 to 4 round-trip, replication materialised") {
  const std::string path = temp_path("multilevel.h5");
  auto bottom = nested<std::int64_t>::from({{1, 2}, {3}, {}, {4, 5, 6}});
  vseg::multilevel<std::int64_t> m(bottom);
  std::vector<vseg::multilevel<std::int64_t>> cases{m};
  for (int d = 0; d < 3; ++d) {
    m = vseg::replicate(2 + d, m);
    cases.push_back(m);
  }
  for (const auto& xs : cases) {
    INFO("depth " << xs.depth());
    vseg::hdf5::save(path, xs);
    const auto back = vseg::hdf5::load_multilevel<std::int64_t>(path);
    REQUIRE(back.depth() == xs.depth());
    CHECK(vseg::virtual_elements(back) == vseg::virtual_elements(xs));
    // Flattening every level away gives the same elements in the same segments.
    auto flat_a = xs, flat_b = back;
    while (flat_a.depth() > 1) {
      flat_a = vseg::concat_outer(flat_a);
      flat_b = vseg::concat_outer(flat_b);
    }
    CHECK(vseg::to_vectors(flat_a.bottom()) == vseg::to_vectors(flat_b.bottom()));
    // And the file stores no virtual segment: the levels are contiguous.
    for (const auto& l : back.levels()) CHECK(l.vsegids.size() == l.starts.size());
  }
}

TEST_CASE("a failed write leaves the old file, and no temporary file behind") {
  const std::string path = temp_path("safe.h5");
  const auto old = nested<std::int32_t>::from({{1, 2, 3}});
  vseg::hdf5::save(path, old);
  {
    vseg::hdf5::writer w(path, 1, {{"values", vseg::hdf5::element_type_of<std::int32_t>()}});
    const std::int64_t offsets[] = {0, 5};
    w.append_offsets(0, offsets);
    // Only 2 of the 5 elements: commit refuses, naming the dataset.
    const std::int32_t two[] = {7, 8};
    w.append_values(0, two, 2);
    const std::string e = error_of([&] { w.commit(); });
    CHECK(contains(e, "offsets_0"));
  }
  CHECK(vseg::to_vectors(vseg::hdf5::load_nested<std::int32_t>(path)) == vseg::to_vectors(old));
  for (const auto& entry : fs::directory_iterator(fs::path(path).parent_path()))
    CHECK_MESSAGE(!contains(entry.path().string(), ".tmp-"), entry.path().string());
}

TEST_CASE("truncated, corrupt and foreign files give an error naming the file") {
  const std::string good = temp_path("good.h5");
  std::vector<std::vector<double>> ref(300, std::vector<double>(1000, 0.25));
  vseg::hdf5::save(good, nested<double>::from(ref));
  const auto bytes = fs::file_size(good);
  auto copy_with = [&](const std::string& name, auto&& change) {
    const std::string p = temp_path(name);
    fs::copy_file(good, p, fs::copy_options::overwrite_existing);
    change(p);
    return p;
  };
  auto load = [](const std::string& p) { return [p] { (void)vseg::hdf5::load_nested<double>(p); }; };

  SUBCASE("truncated") {
    for (auto keep : {bytes / 2, bytes - 100, std::uintmax_t{100}}) {
      INFO("kept " << keep << " of " << bytes << " bytes");
      const auto p = copy_with("truncated.h5", [&](const std::string& q) { fs::resize_file(q, keep); });
      const std::string e = error_of(load(p));
      CHECK(contains(e, p));
    }
  }
  SUBCASE("bytes flipped in the values") {
    // The values are the bulk of the file: flip a run in its middle.
    const auto p = copy_with("flipped.h5", [&](const std::string& q) {
      std::fstream f(q, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(bytes / 2));
      const char junk[8] = {'\x55', '\x13', '\x7f', '\x01', '\x55', '\x13', '\x7f', '\x01'};
      f.write(junk, sizeof junk);
    });
    const std::string e = error_of(load(p));
    CHECK(contains(e, p));
    CHECK(contains(e, "dataset 'values'"));
  }
  SUBCASE("not an HDF5 file") {
    const std::string p = temp_path("text.h5");
    std::ofstream(p) << "row,col,value\n1,2,3\n";
    const std::string e = error_of(load(p));
    CHECK(contains(e, p));
    CHECK(contains(e, "not an HDF5 file"));
  }
  SUBCASE("missing file") {
    CHECK(contains(error_of(load(temp_path("absent.h5"))), "cannot open"));
  }
  SUBCASE("another layout: a depth-2 file asked for as depth 1, a wrong offsets type") {
    const std::string p = temp_path("depth2.h5");
    vseg::hdf5::save(p, vseg::replicate(2, vseg::multilevel<double>(nested<double>::from(ref))));
    CHECK(contains(error_of(load(p)), "depth 2"));
    vseg::hdf5::writer w(p, 1, {{"values", vseg::hdf5::element_type_of<double>()}});
    CHECK(contains(error_of([&] { w.commit(); }), "offsets_0"));
  }
}

// HDF5's Fletcher-32 as its H5checksum.c writes it: the reference for the
// closed-form version the direct chunk reads check with.
static std::uint32_t reference_fletcher32(const unsigned char* data, std::size_t len) {
  std::size_t words = len / 2;
  std::uint32_t sum1 = 0, sum2 = 0;
  while (words) {
    std::size_t n = words > 360 ? 360 : words;
    words -= n;
    do {
      sum1 += static_cast<std::uint32_t>((data[0] << 8) | data[1]);
      data += 2;
      sum2 += sum1;
    } while (--n);
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  if (len % 2) {
    sum1 += static_cast<std::uint32_t>(*data << 8);
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  return (sum2 << 16) | sum1;
}

TEST_CASE("the direct reads' Fletcher-32 is HDF5's, bit for bit") {
  auto rng = vseg::test::seeded(32);
  for (std::size_t len : {0, 1, 2, 719, 720, 721, 4096, 100'001}) {
    INFO("length " << len);
    for (int fill : {-1, 0, 255}) {
      std::vector<unsigned char> bytes(len);
      for (auto& b : bytes) b = static_cast<unsigned char>(fill < 0 ? rng() : static_cast<std::uint64_t>(fill));
      CHECK(vseg::hdf5::detail::fletcher32(bytes.data(), len) == reference_fletcher32(bytes.data(), len));
    }
  }
}
