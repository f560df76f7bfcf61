// Bad input fails collectively: for each case, every rank throws the same
// exception (same class, same message naming the operation, the rank and the
// value), including when only one rank's input is bad; no rank hangs.
#include <doctest/doctest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "helpers.hpp"
#include "vseg/dist/mesh.hpp"

using namespace vseg::dist;
using namespace vseg::dist::testing;

namespace {

struct outcome {
  std::string kind;  // "none", "invalid_argument", "out_of_range", "other"
  std::string message;
};

template <class F>
outcome run(F&& f) {
  try {
    f();
  } catch (const std::out_of_range& e) {
    return {"out_of_range", e.what()};
  } catch (const std::invalid_argument& e) {
    return {"invalid_argument", e.what()};
  } catch (const std::exception& e) {
    return {"other", e.what()};
  }
  return {"none", ""};
}

// Checks that f throws `kind` on every rank with the same message, which
// contains every fragment in `mentions`.
template <class F>
void check_collective_failure(const std::string& kind, std::vector<std::string> mentions, F&& f) {
  outcome o = run(f);
  INFO("rank " << rank() << " got " << o.kind << ": " << o.message);
  CHECK(o.kind == kind);
  for (const auto& m : mentions) CHECK(o.message.find(m) != std::string::npos);
  // Every rank compares its message with rank 0's.
  std::vector<char> text(o.message.begin(), o.message.end());
  auto all = allgather(text);
  for (const auto& other : all) CHECK(std::string(other.begin(), other.end()) == o.message);
  // And the communicator is still usable: a barrier completes.
  CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
}

int last() { return nranks() - 1; }

}  // namespace

TEST_CASE("distributions: wrong size, not starting at 0, decreasing, differing between ranks") {
  const std::size_t p1 = static_cast<std::size_t>(nranks()) + 1;
  check_collective_failure("invalid_argument", {"from_offsets", "rank 0", "size 1"}, [&] {
    std::vector<std::int64_t> offsets(p1, 0);
    if (rank() == 0) offsets.resize(1);
    distribution::from_offsets(offsets, MPI_COMM_WORLD);
  });
  check_collective_failure("invalid_argument", {"from_offsets", "offsets[0] is 3"}, [&] {
    std::vector<std::int64_t> offsets(p1, 3);
    distribution::from_offsets(offsets, MPI_COMM_WORLD);
  });
  check_collective_failure("invalid_argument", {"from_offsets", "decrease", "rank " + std::to_string(last())}, [&] {
    std::vector<std::int64_t> offsets(p1, 5);
    offsets[0] = 0;
    if (rank() == last()) offsets.back() = -1;
    distribution::from_offsets(offsets, MPI_COMM_WORLD);
  });
  if (nranks() > 1) {
    check_collective_failure("invalid_argument", {"from_offsets", "ranks disagree on offsets[", "rank 1 has 11"}, [&] {
      std::vector<std::int64_t> offsets(p1, 10);
      offsets[0] = 0;
      if (rank() == 1) offsets.back() = 11;
      distribution::from_offsets(offsets, MPI_COMM_WORLD);
    });
    check_collective_failure("invalid_argument", {"uniform", "ranks disagree on n_global", "rank 1 has 7"}, [&] {
      distribution::uniform(rank() == 1 ? 7 : 8, MPI_COMM_WORLD);
    });
  }
  check_collective_failure("invalid_argument", {"from_local_size", "-2", "rank " + std::to_string(last())}, [&] {
    distribution::from_local_size(rank() == last() ? -2 : 1, MPI_COMM_WORLD);
  });
  check_collective_failure("invalid_argument", {"uniform", "-1"}, [&] { distribution::uniform(-1, MPI_COMM_WORLD); });
}

TEST_CASE("indexer: out-of-range and negative indices, on one rank or several") {
  auto d = distribution::uniform(10, MPI_COMM_WORLD);
  check_collective_failure("out_of_range", {"global_indexer", "rank " + std::to_string(last()), "index 10"}, [&] {
    std::vector<std::int64_t> indices = {1, 2};
    if (rank() == last()) indices.push_back(10);
    global_indexer gi(d, indices, MPI_COMM_WORLD);
  });
  // The lowest failing rank's message is the one every rank throws.
  check_collective_failure("out_of_range", {"global_indexer", "rank 0", "index -1"}, [&] {
    std::vector<std::int64_t> indices = {rank() == 0 ? -1 : 100};
    global_indexer gi(d, indices, MPI_COMM_WORLD);
  });
  auto empty = distribution::uniform(0, MPI_COMM_WORLD);
  check_collective_failure("out_of_range", {"global_indexer", "index 0", "[0, 0)"}, [&] {
    std::vector<std::int64_t> indices = {0};
    global_indexer gi(empty, indices, MPI_COMM_WORLD);
  });
  if (nranks() > 1) {
    check_collective_failure("invalid_argument", {"global_indexer", "communicator"}, [&] {
      auto self = distribution::uniform(4, MPI_COMM_SELF);
      global_indexer gi(self, std::vector<std::int64_t>{}, MPI_COMM_WORLD);
    });
  }
}

TEST_CASE("take and put: count < 1, count differing, sizes that do not match, unsupported reduce_op") {
  auto d = distribution::uniform(9, MPI_COMM_WORLD);
  std::vector<std::int64_t> indices = {0, 8, 4};
  global_indexer gi(d, indices, MPI_COMM_WORLD);
  std::vector<double> local(static_cast<std::size_t>(d.local_size()), 1.0);
  std::vector<double> part(indices.size(), 2.0);

  check_collective_failure("invalid_argument", {"take", "count is 0"}, [&] { gi.take(local, 0); });
  check_collective_failure("invalid_argument", {"put", "count is -3"}, [&] { gi.put(part, local, -3); });
  if (nranks() > 1) {
    check_collective_failure("invalid_argument", {"take", "ranks disagree on count", "rank 1 has 2"}, [&] {
      // Sizes match each rank's own count, so only the agreement catches it.
      int count = rank() == 1 ? 2 : 1;
      std::vector<double> data(static_cast<std::size_t>(d.local_size() * count), 1.0);
      gi.take(data, count);
    });
  }
  check_collective_failure("invalid_argument", {"take", "rank " + std::to_string(last()), "dist_data has size"}, [&] {
    auto data = local;
    if (rank() == last()) data.push_back(0.0);
    gi.take(data);
  });
  check_collective_failure("invalid_argument", {"put", "rank 0", "part_data has size 2"}, [&] {
    auto values = part;
    if (rank() == 0) values.pop_back();
    auto target = local;
    gi.put(values, target);
  });
  check_collective_failure("invalid_argument", {"put", "dist_data has size"}, [&] {
    std::vector<double> target(static_cast<std::size_t>(d.local_size()) + (rank() == 0 ? 1 : 0));
    gi.put(part, target);
  });
  check_collective_failure("invalid_argument", {"put", "band"}, [&] { gi.put(part, 1, reduce_op::band); });
  check_collective_failure("invalid_argument", {"take", "out has size"}, [&] {
    std::vector<double> out(rank() == last() ? 1 : indices.size());
    gi.take(local, out);
  });
}

TEST_CASE("take_v and put_v: counts that do not add up, negative counts, bad initial content") {
  auto d = distribution::uniform(6, MPI_COMM_WORLD);
  std::vector<std::int64_t> indices = {5, 0};
  global_indexer gi(d, indices, MPI_COMM_WORLD);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(d.local_size()), 2);
  std::vector<int> data(counts.size() * 2, 7);

  check_collective_failure("invalid_argument", {"take_v", "rank 0", "add up to"}, [&] {
    auto bad = data;
    if (rank() == 0) bad.push_back(1);
    gi.take_v(counts, bad);
  });
  check_collective_failure("invalid_argument", {"take_v", "dist_counts has size"}, [&] {
    auto bad = counts;
    if (rank() == last()) bad.push_back(0);
    gi.take_v(bad, data);
  });
  check_collective_failure("invalid_argument", {"put_v", "part_counts[1] is -1"}, [&] {
    std::vector<std::int64_t> part_counts = {2, rank() == last() ? -1 : 0};
    std::vector<int> part_data(2, 1);
    gi.put_v(part_counts, part_data);
  });
  check_collective_failure("invalid_argument", {"put_v", "initial.counts"}, [&] {
    std::vector<std::int64_t> part_counts = {1, 1};
    std::vector<int> part_data = {1, 2};
    variable<int> initial{counts, data};
    if (rank() == 0) initial.data.pop_back();
    gi.put_v(part_counts, part_data, initial, put_mode::extend);
  });
  if (nranks() > 1) {
    check_collective_failure("invalid_argument",
                             {"put_v", "ranks disagree on put_mode", "rank 1 has put_mode::extend"}, [&] {
      std::vector<std::int64_t> part_counts = {1, 1};
      std::vector<int> part_data = {1, 2};
      gi.put_v(part_counts, part_data, rank() == 1 ? put_mode::extend : put_mode::replace);
    });
  }
}

TEST_CASE("multi_indexer and nested: parts that do not match the lists, bad segments and vsegids") {
  auto d = distribution::uniform(8, MPI_COMM_WORLD);
  std::vector<std::vector<std::int64_t>> lists = {{1, 2}, {}, {7}};
  multi_indexer mi(d, lists, MPI_COMM_WORLD);
  check_collective_failure("invalid_argument", {"multi_indexer::put", "parts[2]"}, [&] {
    std::vector<std::vector<int>> parts = {{1, 2}, {}, {}};
    if (rank() != 0) parts[2].push_back(3);
    mi.put(parts);
  });
  check_collective_failure("invalid_argument", {"multi_indexer::put", "2 lists"}, [&] {
    std::vector<std::vector<int>> parts = {{1, 2}, {}, {3}};
    if (rank() == last()) parts.pop_back();
    mi.put(parts);
  });
  check_collective_failure("invalid_argument", {"nested", "add up to"}, [&] {
    variable<int> segments{{1, 2}, {1, 2, 3}};
    if (rank() == last()) segments.data.push_back(4);
    nested<int>::from_segments(segments, MPI_COMM_WORLD);
  });
  check_collective_failure("out_of_range", {"nested", "vsegids[0]"}, [&] {
    variable<int> segments{{1}, {5}};
    std::vector<std::int64_t> vsegids = {rank() == 0 ? nranks() : 0};
    nested<int> n(segments, vsegids, MPI_COMM_WORLD);
  });
}

TEST_CASE("process mesh: bad dimensions, one rank's different mesh, a mesh block of the wrong row count") {
  const int p = nranks();
  const std::string too_big = "mesh{" + std::to_string(p + 1) + "x1}";
  check_collective_failure("invalid_argument", {"dist::process_mesh", too_big, "ranks but the communicator has"}, [&] {
    process_mesh mesh(sharding::mesh(p + 1, 1), MPI_COMM_WORLD);
  });
  check_collective_failure("invalid_argument", {"dist::process_mesh", "negative"}, [&] {
    process_mesh mesh(sharding::mesh(-1, 0), MPI_COMM_WORLD);
  });
  check_collective_failure("invalid_argument", {"dist::process_mesh", "needs a mesh spec", "block"}, [&] {
    process_mesh mesh(sharding::block(), MPI_COMM_WORLD);
  });
  if (p > 1) {
    // Only the last rank asks for one process row: every rank fails the same way.
    check_collective_failure("invalid_argument", {"dist::process_mesh", "the mesh rows"}, [&] {
      process_mesh mesh(rank() == last() ? sharding::mesh(1, 0) : sharding::mesh(0, 1), MPI_COMM_WORLD);
    });
    // One process row, so every rank must hold the same rows; the last holds one more.
    auto mesh = std::make_shared<const process_mesh>(sharding::mesh(1, p), MPI_COMM_WORLD);
    check_collective_failure("invalid_argument", {"dist::mesh_block", "rows but rank"}, [&] {
      const std::int64_t rows = rank() == last() ? 4 : 3;
      (void)mesh_block(vseg::nested<double>::from_lengths(vseg::array<std::int64_t>(std::vector<std::int64_t>(
                                                              static_cast<std::size_t>(rows), 1)),
                                                          vseg::array<double>(std::vector<double>(
                                                              static_cast<std::size_t>(rows), 1.0))),
                       mesh);
    });
  }
  // A mesh is no layout of segments: reshard refuses it on every rank.
  check_collective_failure("invalid_argument", {"dist::reshard", "mesh{1x"}, [&] {
    auto xs = nested<double>::from_local(
        vseg::nested<double>::from_lengths(vseg::array<std::int64_t>{2}, vseg::array<double>{1.0, 2.0}),
        MPI_COMM_WORLD);
    (void)xs.reshard(sharding::mesh(1, p));
  });
}
