// vseg::hdf5 on MPI (vseg/hdf5/dist.hpp): distributed arrays written
// collectively into one file of the serial layout and read back under a
// sharding spec, on 1-4 ranks; the serial reader reads what the ranks wrote,
// other rank counts read it, and bad files and specs fail the same way on
// every rank.
#include <hdf5.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "vseg/hdf5/dist.hpp"
#include "vseg/hdf5/nested.hpp"

namespace fs = std::filesystem;
using vseg::dist::sharding;

namespace {

int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}
int size_of(MPI_Comm comm) {
  int p = 1;
  MPI_Comm_size(comm, &p);
  return p;
}

// The global array of every test: segment j has a hashed length in [0, 40]
// (a ninth of them empty) and elements j * 1000003 + k; enough segments for
// a little over two chunks of elements (2^17 each), so shards share chunks
// and the last, short chunk lies on the last rank.
struct sample {
  std::vector<std::int64_t> lengths, starts;
  std::int64_t elements = 0;
  sample() {
    for (std::uint64_t j = 0; elements < (std::int64_t{1} << 18) + 5000; ++j) {
      std::uint64_t h = (j + 1) * 0x9e3779b97f4a7c15ULL;
      h ^= h >> 31;
      const auto n = static_cast<std::int64_t>(h % 9 == 0 ? 0 : h % 41);
      starts.push_back(elements);
      lengths.push_back(n);
      elements += n;
    }
  }
  std::int64_t segments() const { return static_cast<std::int64_t>(lengths.size()); }
  static std::int64_t value(std::int64_t j, std::int64_t k) { return j * 1000003 + k; }
  // Segments [first, last) as a variable (lengths and data).
  vseg::dist::variable<std::int64_t> part(std::int64_t first, std::int64_t last) const {
    vseg::dist::variable<std::int64_t> v;
    for (std::int64_t j = first; j < last; ++j) {
      v.counts.push_back(lengths[static_cast<std::size_t>(j)]);
      for (std::int64_t k = 0; k < lengths[static_cast<std::size_t>(j)]; ++k) v.data.push_back(value(j, k));
    }
    return v;
  }
};

const sample& the_sample() {
  static const sample s;
  return s;
}

// The array on comm with rank r holding the segments [cut(r), cut(r + 1)).
vseg::dist::nested<std::int64_t> make_array(MPI_Comm comm, const std::function<std::int64_t(int)>& cut) {
  const int r = rank_of(comm);
  return vseg::dist::nested<std::int64_t>::from_segments(the_sample().part(cut(r), cut(r + 1)), comm);
}

// A path every rank of comm agrees on, in a directory rank 0 owns.
std::string shared_path(MPI_Comm comm, const std::string& name) {
  long long pid = getpid();
  MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, comm);
  const fs::path dir = fs::temp_directory_path() / ("vseg-hdf5-dist-" + std::to_string(pid));
  if (rank_of(comm) == 0) fs::create_directories(dir);
  MPI_Barrier(comm);
  return (dir / name).string();
}

// Checks that xs's pieces on this rank are the sample's segments it should
// hold under its placement, and that placement's segment and element counts.
void check_shard(const vseg::dist::nested<std::int64_t>& xs) {
  const sample& s = the_sample();
  REQUIRE(xs.global_segments() == s.segments());
  REQUIRE(xs.global_elements() == s.elements);
  const auto& pieces = xs.pieces();
  std::vector<std::int64_t> got, expected;
  for (std::int64_t k = 0; k < pieces.size(); ++k) {
    // A piece is a whole segment, or (split) part of one from its element `within`.
    const std::int64_t j = xs.piece_ids()[k];
    const std::int64_t within = xs.piece_starts()[k] - s.starts[static_cast<std::size_t>(j)];
    REQUIRE(within >= 0);
    REQUIRE(within + pieces.length(k) <= s.lengths[static_cast<std::size_t>(j)]);
    if (!xs.spec().splits_segments()) REQUIRE(pieces.length(k) == s.lengths[static_cast<std::size_t>(j)]);
    for (std::int64_t i = 0; i < pieces.length(k); ++i) {
      got.push_back(pieces[k][i]);
      expected.push_back(sample::value(j, within + i));
    }
  }
  CHECK(got == expected);
}

// The message of the exception of type E that body throws on this rank, or
// "" if none; and whether every rank of comm got the same message.
template <class E, class Body>
std::string collective_error(MPI_Comm comm, Body&& body) {
  std::string message;
  try {
    body();
  } catch (const E& e) {
    message = e.what();
  }
  std::uint64_t h = std::hash<std::string>{}(message), lo = 0, hi = 0;
  MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, comm);
  INFO("rank ", rank_of(comm), ": ", message);
  CHECK(lo == hi);
  return message;
}

}  // namespace

TEST_CASE("written on every rank, read back under block, balanced, offsets and split") {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int p = size_of(comm);
  const std::int64_t m = the_sample().segments();
  // Uneven shards written: rank r holds a share growing with r (rank 0 none when p > 1).
  const auto xs = make_array(comm, [&](int r) { return m * r * r / (p * p); });
  const std::string path = shared_path(comm, "roundtrip.h5");
  vseg::hdf5::save(path, xs);
  for (const auto& entry : fs::directory_iterator(fs::path(path).parent_path()))
    CHECK(entry.path().string().find(".tmp-") == std::string::npos);  // the temporary file was renamed

  for (const sharding& spec : {sharding::block(), sharding::balanced(), sharding::split(), sharding::cyclic()}) {
    INFO("spec ", spec);
    const auto ys = vseg::hdf5::load_dist_nested<std::int64_t>(path, spec, comm);
    CHECK(ys.spec() == spec);
    check_shard(ys);
    // The same shard as resharding the written array in memory.
    const auto expected = xs.reshard(spec);
    CHECK(ys.placement() == expected.placement());
    CHECK(ys.pieces().physical_lengths().size() == expected.pieces().physical_lengths().size());
  }
  std::vector<std::int64_t> cuts(static_cast<std::size_t>(p) + 1, m);
  for (int r = 0; r < p; ++r) cuts[static_cast<std::size_t>(r)] = m * r / (2 * p);
  const auto zs = vseg::hdf5::load_dist_nested<std::int64_t>(path, sharding::offsets(cuts), comm);
  check_shard(zs);
  CHECK(zs.placement().first_segment == cuts);

  // A replicated array is written once (from its block resharding).
  const std::string copies = shared_path(comm, "replicated.h5");
  vseg::hdf5::save(copies, xs.reshard(sharding::replicated()));
  check_shard(vseg::hdf5::load_dist_nested<std::int64_t>(copies, sharding::block(), comm));

  // The serial reader sees one ordinary array.
  if (rank_of(comm) == 0) {
    const auto all = vseg::hdf5::load_nested<std::int64_t>(path);
    REQUIRE(all.size() == m);
    for (std::int64_t j = 0; j < m; j += 97) {
      REQUIRE(all.length(j) == the_sample().lengths[static_cast<std::size_t>(j)]);
      for (std::int64_t k = 0; k < all.length(j); ++k) REQUIRE(all[j][k] == sample::value(j, k));
    }
  }
  MPI_Barrier(comm);
}

TEST_CASE("a file written on fewer ranks (or serially) is read on all of them") {
  const MPI_Comm world = MPI_COMM_WORLD;
  const int p = size_of(world);
  const std::int64_t m = the_sample().segments();
  const std::string by_two = shared_path(world, "by-two.h5"), serial = shared_path(world, "serial.h5");
  // The first two ranks (one when alone) write; everyone reads.
  MPI_Comm writers = MPI_COMM_NULL;
  MPI_Comm_split(world, rank_of(world) < 2 ? 0 : MPI_UNDEFINED, rank_of(world), &writers);
  if (writers != MPI_COMM_NULL) {
    const int q = size_of(writers);
    vseg::hdf5::save(by_two, make_array(writers, [&](int r) { return m * r / q; }));
    MPI_Comm_free(&writers);
  }
  if (rank_of(world) == 0) {
    std::vector<std::vector<std::int64_t>> segments;
    const auto v = the_sample().part(0, m);
    for (std::int64_t j = 0, at = 0; j < m; at += v.counts[static_cast<std::size_t>(j)], ++j)
      segments.emplace_back(v.data.begin() + at, v.data.begin() + at + v.counts[static_cast<std::size_t>(j)]);
    vseg::hdf5::save(serial, vseg::nested<std::int64_t>::from(segments));
  }
  MPI_Barrier(world);
  for (const std::string& path : {by_two, serial}) {
    INFO("file ", path, " on ", p, " ranks");
    const auto ys = vseg::hdf5::load_dist_nested<std::int64_t>(path, sharding::block(), world);
    check_shard(ys);
    const std::int64_t r = rank_of(world);
    CHECK(ys.placement().first_segment[static_cast<std::size_t>(r)] == m / p * r + std::min<std::int64_t>(r, m % p));
  }
}

TEST_CASE("bad files and specs fail the same way on every rank") {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int p = size_of(comm), r = rank_of(comm);
  const std::int64_t m = the_sample().segments();
  const std::string good = shared_path(comm, "good.h5");
  vseg::hdf5::save(good, make_array(comm, [&](int q) { return m * q / p; }));
  auto load = [&](const std::string& path, const sharding& spec) {
    return [path, spec, comm] { (void)vseg::hdf5::load_dist_nested<std::int64_t>(path, spec, comm); };
  };

  SUBCASE("a missing file and a foreign one") {
    const std::string text = shared_path(comm, "text.h5");
    if (r == 0) std::ofstream(text) << "not an HDF5 file\n";
    MPI_Barrier(comm);
    CHECK(collective_error<vseg::hdf5::error>(comm, load(text, sharding::block())).find("text.h5") !=
          std::string::npos);
    CHECK(collective_error<vseg::hdf5::error>(comm, load(text + ".missing", sharding::block())).find("cannot open") !=
          std::string::npos);
  }
  SUBCASE("another element type") {
    const std::string message = collective_error<vseg::hdf5::error>(
        comm, [&] { (void)vseg::hdf5::load_dist_nested<double>(good, sharding::block(), comm); });
    CHECK(message.find("int64") != std::string::npos);
  }
  SUBCASE("a flipped byte in the last chunk, which only the last rank reads") {
    const std::string bad = shared_path(comm, "flipped.h5");
    int chunks = 0;
    if (r == 0) {
      fs::copy_file(good, bad, fs::copy_options::overwrite_existing);
      // The last chunk of the values, found through HDF5's chunk index.
      const hid_t file = H5Fopen(bad.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
      const hid_t values = H5Dopen2(file, "values", H5P_DEFAULT);
      const hid_t space = H5Dget_space(values);
      hsize_t count = 0, size = 0, offset = 0;
      haddr_t address = 0;
      unsigned mask = 0;
      H5Dget_num_chunks(values, space, &count);
      if (count > 0) H5Dget_chunk_info(values, space, count - 1, &offset, &mask, &address, &size);
      H5Sclose(space);
      H5Dclose(values);
      H5Fclose(file);
      chunks = static_cast<int>(count);
      std::fstream f(bad, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(address + 8));
      f.put('\x5a').put('\xa5');
    }
    MPI_Bcast(&chunks, 1, MPI_INT, 0, comm);
    REQUIRE(chunks == 3);  // the last chunk holds only elements of the last rank
    MPI_Barrier(comm);
    const std::string message = collective_error<vseg::hdf5::error>(comm, load(bad, sharding::block()));
    CHECK(message.find("flipped.h5") != std::string::npos);
    CHECK(message.find("values") != std::string::npos);
    if (p > 1) CHECK(message.find("on rank " + std::to_string(p - 1)) != std::string::npos);
  }
  SUBCASE("offsets that do not fit, and ranks asking for different specs") {
    std::vector<std::int64_t> wrong(static_cast<std::size_t>(p) + 1, m + 1);
    wrong[0] = 0;
    CHECK(collective_error<std::invalid_argument>(comm, load(good, sharding::offsets(wrong))).find("offsets") !=
          std::string::npos);
    if (p > 1) {
      const sharding mine = r == 0 ? sharding::balanced() : sharding::block();
      CHECK(collective_error<std::invalid_argument>(comm, load(good, mine)).find("sharding kind") !=
            std::string::npos);
    }
  }
  SUBCASE("writing into a missing directory leaves nothing behind") {
    const std::string nowhere = shared_path(comm, "no-such-dir/out.h5");
    const auto xs = make_array(comm, [&](int q) { return m * q / p; });
    CHECK(collective_error<vseg::hdf5::error>(comm, [&] { vseg::hdf5::save(nowhere, xs); }).find("out.h5") !=
          std::string::npos);
    CHECK_FALSE(fs::exists(fs::path(nowhere).parent_path()));
  }
  SUBCASE("a cyclic array is refused") {
    const auto xs = make_array(comm, [&](int q) { return m * q / p; }).reshard(sharding::cyclic());
    CHECK(collective_error<std::invalid_argument>(comm, [&] { vseg::hdf5::save(good, xs); }).find("cyclic") !=
          std::string::npos);
  }
  MPI_Barrier(comm);
  if (r == 0) fs::remove_all(fs::path(good).parent_path());
  MPI_Barrier(comm);
}
