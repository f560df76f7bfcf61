// Internal to vseg-hdf5: reading whole checksummed chunks without HDF5's
// filter pipeline (lib/hdf5/chunk_read.cpp).
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "vseg/hdf5/file.hpp"

namespace vseg::hdf5::detail {

// HDF5's Fletcher-32 of len bytes (H5_checksum_fletcher32, bit for bit). O(len).
std::uint32_t fletcher32(const unsigned char* data, std::size_t len);

// The same, copying the first copy_len <= len bytes to dst as it goes: each
// run of 720 bytes is summed, then copied while it is in L1, so checking and
// copying read the source once. O(len).
std::uint32_t fletcher32_copy(const unsigned char* data, std::size_t len, unsigned char* dst, std::size_t copy_len);

// Whether a dataset can be read by read_chunks_direct: chunked, 1-D, its
// only filter Fletcher-32, stored in the machine's byte order. O(1).
bool direct_readable(hid_t dataset, hid_t file_type);

// The last few partial chunks a dataset's direct reads verified, by chunk
// index. Blocks rarely start or end on a chunk boundary, so the chunk a
// block ends in is the one the next block starts in; and the offsets a plan
// reads in windows are read again block by block. Kept, such a chunk is
// neither read nor checked twice.
struct chunk_cache {
  static constexpr std::size_t slots = 3;
  std::vector<unsigned char> bytes[slots];
  std::int64_t chunk[slots] = {-1, -1, -1};  // -1: empty or not verified
  std::uint64_t used[slots] = {0, 0, 0};     // last use, for least-recently-used replacement
  std::uint64_t clock = 0;
  std::mutex mutex;  // one read at a time through a cache
};

// Elements [begin, end) of a direct-readable dataset with chunks of `chunk`
// elements of `size` bytes into out: every whole chunk read with
// H5Dread_chunk straight into place and its checksum verified here (HDF5's
// pipeline verifies at a fraction of the disk's rate and copies twice), the
// partial ones through `cache`. Returns false, having written nothing it
// vouches for, when any chunk is not as expected (a checksum mismatch, a
// filter skipped, an error): the caller then reads through HDF5, which
// reports the problem. O(end - begin + chunk).
// With fd >= 0 (the file's descriptor, HDF5 addresses being file offsets,
// file_size its size) the whole chunks are mapped instead (map_chunks_direct)
// and each checked and copied in one pass.
bool read_chunks_direct(hid_t dataset, std::uint64_t chunk, std::size_t size, std::int64_t begin,
                        std::int64_t end, void* out, chunk_cache& cache, int fd = -1, std::uint64_t file_size = 0);

// The whole chunks of a direct-readable dataset of `elements` elements
// within [begin, end), mapped read-only (MAP_POPULATE) from descriptor fd of
// a file of file_size bytes whose HDF5 addresses are file offsets (no user
// block): one mapping per run of chunks adjacent in the file, appended to
// maps; one piece per chunk, appended to pieces, each chunk verified
// against its Fletcher-32 checksum (unless !verify: the caller then checks
// each piece, whose checksum is the 4 bytes after its chunk). Returns
// false, having unmapped what it mapped and appended nothing, when any
// chunk is not as expected (the caller then reads through
// read_chunks_direct or HDF5, which reports it).
// O(end - begin).
bool map_chunks_direct(hid_t dataset, int fd, std::uint64_t file_size, std::uint64_t chunk, std::size_t size,
                       std::int64_t elements, std::int64_t begin, std::int64_t end,
                       std::vector<mapped_chunks::piece>& pieces, std::vector<std::pair<void*, std::size_t>>& maps,
                       bool verify = true);

}  // namespace vseg::hdf5::detail
