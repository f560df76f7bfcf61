// The parallel writer of vseg/hdf5/dist.hpp: every rank's shard written
// collectively (MPI-IO driver, collective transfers) into one file of the
// serial layout, with the serial writer's chunks, filters and attributes
// (common.hpp). Only in vseg-hdf5-mpi, which links the parallel libhdf5.
//
// The rule that keeps every rank in step: everything that can be checked is
// checked before the first collective HDF5 call, on data every rank holds
// (one MPI_Allgather), so the ranks fail together with the same message;
// after that, each HDF5 failure is recorded and the ranks agree on it at the
// next check point instead of one rank throwing out of a collective call.
#include "vseg/hdf5/dist.hpp"

#include "common.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <sstream>

namespace vseg::hdf5::detail {

namespace {

// The lowest failing rank's message on every rank, or nothing.
std::optional<std::string> first_failure(MPI_Comm comm, const std::optional<std::string>& mine) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const int here = mine ? rank : p;
  int lowest = p;
  MPI_Allreduce(&here, &lowest, 1, MPI_INT, MPI_MIN, comm);
  if (lowest == p) return std::nullopt;
  std::string message = rank == lowest ? *mine : std::string();
  long long size = static_cast<long long>(message.size());
  MPI_Bcast(&size, 1, MPI_LONG_LONG, lowest, comm);
  message.resize(static_cast<std::size_t>(size));
  MPI_Bcast(message.data(), static_cast<int>(size), MPI_CHAR, lowest, comm);
  if (p > 1) message += " (on rank " + std::to_string(lowest) + " of " + std::to_string(p) + ")";
  return message;
}

// What every rank must know of every other's shard to check the tiling.
struct shard_summary {
  std::int64_t segments, elements, type_kind, type_size;
  std::int64_t first_offset, offsets, first_entry, last_entry, first_element, count, decreases;
};

// The error of the first rank whose shard does not fit, the same text on
// every rank (computed from the gathered summaries), or nothing.
std::optional<std::string> check_tiling(const std::string& path, const std::vector<shard_summary>& all) {
  const std::string prefix = "vseg::hdf5::write: file '" + path + "'";
  const shard_summary& first = all.front();
  std::int64_t next_offset = 0, next_element = 0, last_entry = 0;
  for (std::size_t r = 0; r < all.size(); ++r) {
    const shard_summary& s = all[r];
    std::ostringstream bad;
    bad << prefix;
    if (s.segments != first.segments || s.elements != first.elements)
      bad << ": rank " << r << " has " << s.segments << " segments and " << s.elements << " elements, but rank 0 has "
          << first.segments << " and " << first.elements;
    else if (s.type_kind != first.type_kind || s.type_size != first.type_size)
      bad << ": rank " << r << " writes another element type than rank 0";
    else if (s.first_offset != next_offset)
      bad << ", dataset 'offsets_0': rank " << r << " writes from entry " << s.first_offset << ", expected "
          << next_offset;
    else if (s.first_element != next_element)
      bad << ", dataset 'values': rank " << r << " writes from element " << s.first_element << ", expected "
          << next_element;
    else if (s.decreases >= 0 || (s.offsets > 0 && s.first_entry < last_entry))
      bad << ", dataset 'offsets_0': entry " << (s.decreases >= 0 ? s.decreases : s.first_offset) << " (rank " << r
          << ") is below the one before it (offsets may not decrease)";
    else if (r == 0 && s.offsets > 0 && s.first_entry != 0)
      bad << ", dataset 'offsets_0': entry 0 is " << s.first_entry << " (the first offset must be 0)";
    else {
      next_offset += s.offsets;
      next_element += s.count;
      if (s.offsets > 0) last_entry = s.last_entry;
      continue;
    }
    return bad.str();
  }
  if (next_offset != first.segments + 1)
    return prefix + ", dataset 'offsets_0': the ranks write " + std::to_string(next_offset) + " entries, not " +
           std::to_string(first.segments + 1);
  if (next_element != first.elements)
    return prefix + ", dataset 'values': the ranks write " + std::to_string(next_element) + " elements, not " +
           std::to_string(first.elements);
  if (last_entry != first.elements)
    return prefix + ", dataset 'offsets_0': ends at " + std::to_string(last_entry) + " but there are " +
           std::to_string(first.elements) + " elements";
  return std::nullopt;
}

// Writes count elements at `at` of a dataset collectively (a rank with
// nothing to write selects nothing, but still takes part).
bool write_collective(hid_t dataset, hid_t mem_type, hid_t dxpl, std::int64_t at, std::int64_t count,
                      const void* data) {
  handle fspace(H5Dget_space(dataset), H5Sclose);
  const hsize_t start = static_cast<hsize_t>(at), n = static_cast<hsize_t>(count > 0 ? count : 1);
  handle mspace(H5Screate_simple(1, &n, nullptr), H5Sclose);
  static const std::int64_t nothing = 0;
  if (count > 0) {
    H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &start, nullptr, &n, nullptr);
  } else {
    H5Sselect_none(fspace.get());
    H5Sselect_none(mspace.get());
    data = &nothing;
  }
  return H5Dwrite(dataset, mem_type, mspace.get(), fspace.get(), dxpl, data) >= 0;
}

}  // namespace

void agree_on_failure(MPI_Comm comm, const std::optional<std::string>& failure) {
  if (auto message = first_failure(comm, failure)) throw error(*message);
}

void write_shard(const std::string& path, MPI_Comm comm, const element_type& type, const shard& mine) {
  silence();
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);

  // 1. Every rank's shard, on every rank: the tiling is checked before any
  // collective HDF5 call, identically everywhere.
  std::int64_t decreases = -1;
  for (std::size_t i = 1; i < mine.offsets.size() && decreases < 0; ++i)
    if (mine.offsets[i] < mine.offsets[i - 1]) decreases = mine.first_offset + static_cast<std::int64_t>(i);
  const auto entries = static_cast<std::int64_t>(mine.offsets.size());
  const shard_summary summary{mine.segments, mine.elements, static_cast<std::int64_t>(type.k),
                              static_cast<std::int64_t>(type.size), mine.first_offset, entries,
                              entries > 0 ? mine.offsets.front() : 0, entries > 0 ? mine.offsets.back() : 0,
                              mine.first_element, mine.count, decreases};
  std::vector<shard_summary> all(static_cast<std::size_t>(p));
  constexpr int words = sizeof(shard_summary) / sizeof(std::int64_t);
  MPI_Allgather(&summary, words, MPI_INT64_T, all.data(), words, MPI_INT64_T, comm);
  if (auto message = check_tiling(path, all)) throw error(*message);

  // 2. One temporary name, rank 0's, beside the target (rename is atomic there).
  static std::atomic<int> counter{0};
  std::string temporary = path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  long long size = static_cast<long long>(temporary.size());
  MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, comm);
  temporary.resize(static_cast<std::size_t>(size));
  MPI_Bcast(temporary.data(), static_cast<int>(size), MPI_CHAR, 0, comm);

  // 3. The collective writes; failures are recorded, then agreed.
  std::optional<std::string> failure;
  auto record = [&](const std::string& dataset, const std::string& what) {
    if (failure) return;
    std::ostringstream out;
    out << "vseg::hdf5::write: file '" << path << "'";
    if (!dataset.empty()) out << ", dataset '" << dataset << "'";
    out << ": " << what << ": " << hdf5_detail();
    failure = out.str();
  };
  {
    handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL);
    H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);  // checksummed metadata
    handle file(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose);
    if (!file.valid()) record("", "cannot create " + temporary);
    // H5Fcreate is collective and fails on every rank alike; agree anyway
    // before any dataset call.
    if (auto message = first_failure(comm, failure)) {
      if (rank == 0) std::remove(temporary.c_str());
      throw error(*message);
    }

    handle dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE);  // filtered datasets need collective writes
    handle dcpl = layout_dataset_properties();
    auto create = [&](const char* name, hid_t file_type, std::int64_t length) {
      const hsize_t n = static_cast<hsize_t>(length), unlimited = H5S_UNLIMITED;
      handle space(H5Screate_simple(1, &n, &unlimited), H5Sclose);
      handle d(H5Dcreate2(file.get(), name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose);
      if (!d.valid()) record(name, "cannot create the dataset");
      return d;
    };
    const handle file_type = type_of(type, true), mem_type = type_of(type, false);
    handle offsets = create("offsets_0", H5T_STD_I64LE, mine.segments + 1);
    std::vector<handle> values;
    values.push_back(create("values", file_type.get(), mine.elements));
    if (offsets.valid() && values[0].valid()) {
      if (!write_collective(offsets.get(), H5T_NATIVE_INT64, dxpl.get(), mine.first_offset, entries,
                            mine.offsets.data()))
        record("offsets_0", "cannot write " + std::to_string(entries) + " entries");
      if (!write_collective(values[0].get(), mem_type.get(), dxpl.get(), mine.first_element, mine.count, mine.data))
        record("values", "cannot write " + std::to_string(mine.count) + " elements");
      try {
        write_layout_attributes(file.get(), 1, {field{"values", type}}, values);
      } catch (const error& e) {
        if (!failure) failure = "vseg::hdf5::write: file '" + path + "': " + e.what();
      }
    }
    values.clear();
    offsets.close();
    if (!file.close()) record("", "cannot flush " + temporary);
  }
  std::optional<std::string> agreed = first_failure(comm, failure);

  // 4. Rank 0 makes the closed file the target, or removes it.
  if (rank == 0) {
    if (agreed) {
      std::remove(temporary.c_str());
    } else {
      try {
        publish(temporary, path);
      } catch (const error& e) {
        failure = e.what();
        std::remove(temporary.c_str());
      }
    }
  }
  if (agreed) throw error(*agreed);
  agree_on_failure(comm, failure);
}

}  // namespace vseg::hdf5::detail
