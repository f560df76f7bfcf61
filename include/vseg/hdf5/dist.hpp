// vseg::hdf5 on MPI: a distributed nested array (vseg::dist::nested<T>)
// written to and read from ONE HDF5 file in the layout of vseg/hdf5/file.hpp
// (notes/hdf5.md), so the serial reader, h5py and dask read what many ranks
// wrote, and any number of ranks read what one wrote.
//
// Writing is collective parallel HDF5 (the MPI-IO driver, collective
// transfers): every rank writes its own physical segments (its shard) as one
// hyperslab of the values and of offsets_0. The file is written under a
// temporary name, closed collectively, and rank 0 fsyncs and renames it, so a
// crash leaves the old file or the new one.
//
// Reading gives each rank its shard under a sharding spec: every rank opens
// the file with the checking reader and reads only its own range of offsets
// and values (independent reads through the reader's checked direct chunk
// path; see notes/hdf5.md for why not collective reads).
//
// Errors are collective: a missing, foreign, truncated or corrupt file, a
// wrong element type, or shards that do not tile the array throw the same
// hdf5::error on every rank; specs that differ between ranks or do not fit
// the file throw the same std::invalid_argument on every rank. No rank is
// left waiting in a collective call the others have left.
//
// Built as the library vseg-hdf5-mpi (it links the parallel libhdf5, which
// defines the same symbols as the serial one: a program links vseg-hdf5 or
// vseg-hdf5-mpi, not both).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "vseg/detail/error.hpp"
#include "vseg/dist/detail/collective_check.hpp"
#include "vseg/dist/nested.hpp"
#include "vseg/dist/sharding.hpp"
#include "vseg/hdf5/file.hpp"

namespace vseg::hdf5 {

namespace detail {

// One rank's part of a depth-1 array with one field "values": the offsets_0
// entries it writes (at [first_offset, first_offset + offsets.size())) and
// its elements (at [first_element, first_element + count)).
struct shard {
  std::int64_t segments = 0;  // M, global
  std::int64_t elements = 0;  // N, global
  std::int64_t first_offset = 0;
  std::span<const std::int64_t> offsets;
  std::int64_t first_element = 0;
  const void* data = nullptr;
  std::int64_t count = 0;
};

// Collective: writes every rank's shard into one new file at `path`
// (temporary file, collective close, rename by rank 0). First checks on
// gathered sizes that the shards tile offsets_0 and the values and that the
// offsets do not decrease; throws the same hdf5::error on every rank
// otherwise, or on any failure. O(local offsets + count); one MPI_Allgather.
void write_shard(const std::string& path, MPI_Comm comm, const element_type& type, const shard& mine);

// Collective: throws hdf5::error on every rank with the message of the
// lowest rank whose `failure` is set; returns if none is. One MPI_Allreduce
// (and two broadcasts on failure).
void agree_on_failure(MPI_Comm comm, const std::optional<std::string>& failure);

// Collective: throws std::invalid_argument on every rank unless every rank
// passed the same spec. One MPI_Allreduce.
inline void agree_on_spec(const char* operation, const vseg::dist::sharding& spec, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  vseg::dist::detail::error_collector errs(operation, rank);
  std::uint64_t h = 1469598103934665603ULL;
  for (auto v : spec.explicit_offsets()) h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ULL;
  vseg::dist::detail::agree(comm, errs, 0,
                            {{"the sharding kind", static_cast<std::int64_t>(spec.type())},
                             {"the hash of the offsets", static_cast<std::int64_t>(h >> 1)}});
}

}  // namespace detail

// Collective: saves xs's physical segments, in global order, to path (depth
// 1: offsets_0 and values), atomically replacing any file there; each rank
// writes its own shard. A replicated array is written from its block
// resharding; a cyclic one is refused (reshard it first). The virtual
// segments (replicate/expand) are not stored: the file holds the physical
// segments. O(local elements + local segments) per rank. Throws hdf5::error
// or std::invalid_argument, the same on every rank.
template <class T>
  requires std::is_trivially_copyable_v<T>
void save(const std::string& path, const vseg::dist::nested<T>& xs) {
  using vseg::dist::sharding;
  if (xs.spec().type() == sharding::kind::cyclic)
    vseg::detail::throw_invalid("vseg::hdf5::save(dist::nested)", "file '", path,
                                "': needs a contiguous sharding, not ", xs.spec(), " (reshard to block first)");
  if (xs.spec().type() == sharding::kind::replicated) return save(path, xs.reshard(sharding::block()));
  using access = vseg::dist::detail::nested_access;
  const auto& where = *access::where(xs);
  const auto [lengths, data] = access::contiguous(xs);
  const auto r = static_cast<std::size_t>(where.rank);
  // Rank r finishes the segments [J_r, J_{r+1}): it writes their ends, the
  // offsets_0 entries J_r + 1 .. J_{r+1}; rank 0 also the leading 0.
  std::vector<std::int64_t> ends;
  if (where.rank == 0) ends.push_back(0);
  for (std::int64_t k = 0; k < lengths.size(); ++k)
    if (k + 1 < lengths.size() || where.last_is_end) ends.push_back(where.starts[k] + lengths[k]);
  detail::shard mine;
  mine.segments = where.where.segments;
  mine.elements = where.where.elements;
  mine.first_offset = where.rank == 0 ? 0 : where.where.first_segment[r] + 1;
  mine.offsets = ends;
  mine.first_element = where.where.first_element[r];
  mine.data = data.data();
  mine.count = data.size();
  detail::write_shard(path, where.comm, element_type_of<T>(), mine);
}

// Collective: loads the depth-1 array of T at path, each rank reading its
// own shard under `spec` (block, balanced and offsets{...} read their shard
// directly; split, cyclic and replicated read as block, then reshard). Any
// number of ranks reads a file written by any number (or by the serial
// writer). O(local elements + local segments + segments / ranks) per rank.
// Throws hdf5::error (the file) or std::invalid_argument (the spec), the
// same on every rank.
template <class T>
  requires std::is_trivially_copyable_v<T>
vseg::dist::nested<T> load_dist_nested(const std::string& path, const vseg::dist::sharding& spec, MPI_Comm comm) {
  using vseg::dist::sharding;
  detail::agree_on_spec("vseg::hdf5::load_dist_nested", spec, comm);
  if (spec.type() != sharding::kind::block && spec.type() != sharding::kind::balanced &&
      spec.type() != sharding::kind::offsets)
    return load_dist_nested<T>(path, sharding::block(), comm).reshard(spec);
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);

  // 1. Open and check the file on every rank; read an even slice of
  // offsets_0 to describe the file's shape to plan_layout.
  std::optional<reader> file;
  std::optional<std::string> failure;
  std::size_t field = 0;
  std::int64_t m = 0, n = 0, a = 0, b = 0;
  std::vector<std::int64_t> slice;
  try {
    file.emplace(path);
    if (file->depth() != 1)
      throw error("vseg::hdf5::load_dist_nested: file '" + path + "': depth " + std::to_string(file->depth()) +
                  ", not 1");
    field = file->field_index("values", element_type_of<T>());
    m = file->segments(0);
    n = file->elements();
    a = m / p * rank + std::min<std::int64_t>(rank, m % p);
    b = m / p * (rank + 1) + std::min<std::int64_t>(rank + 1, m % p);
    slice.resize(static_cast<std::size_t>(b - a + 1));
    file->read_offsets(0, a, b + 1, slice.data());
  } catch (const error& e) {
    failure = e.what();
  }
  detail::agree_on_failure(comm, failure);

  // 2. The layout of `spec` over the file's shape (the same plan as reshard's).
  std::vector<std::int64_t> ids(static_cast<std::size_t>(b - a));
  for (std::size_t k = 0; k < ids.size(); ++k) ids[k] = a + static_cast<std::int64_t>(k);
  vseg::dist::detail::local_shape shape{m, n, ids, std::span(slice).first(ids.size()), std::span(slice).subspan(1),
                                        true, true};
  const vseg::dist::shard_layout layout = vseg::dist::detail::plan_layout(spec, shape, comm);

  // 3. This rank's offsets and values.
  const auto r = static_cast<std::size_t>(rank);
  const std::int64_t j0 = layout.first_segment[r], j1 = layout.first_segment[r + 1];
  const std::int64_t e0 = layout.first_element[r], e1 = layout.first_element[r + 1];
  vseg::dist::variable<T> local;
  try {
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(j1 - j0 + 1));
    file->read_offsets(0, j0, j1 + 1, offsets.data());
    if (offsets.front() != e0 || offsets.back() != e1)
      throw error("vseg::hdf5::load_dist_nested: file '" + path + "', dataset 'offsets_0': changed while reading");
    local.counts.resize(static_cast<std::size_t>(j1 - j0));
    for (std::size_t k = 0; k < local.counts.size(); ++k) local.counts[k] = offsets[k + 1] - offsets[k];
    local.data.resize(static_cast<std::size_t>(e1 - e0));
    file->read_values(field, e0, e1, local.data.data());
  } catch (const error& e) {
    failure = e.what();
  }
  detail::agree_on_failure(comm, failure);

  // 4. The array on those pieces, its placement labelled with `spec`.
  auto xs = vseg::dist::nested<T>::from_segments(std::move(local), comm);
  using access = vseg::dist::detail::nested_access;
  auto where = std::make_shared<vseg::dist::detail::placement>(*access::where(xs));
  where->where.spec = spec;
  return access::make(std::shared_ptr<const vseg::dist::detail::placement>(std::move(where)), xs.pieces(), xs);
}

}  // namespace vseg::hdf5
