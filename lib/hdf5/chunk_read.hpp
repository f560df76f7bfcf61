// Internal to vseg-hdf5: reading whole checksummed chunks without HDF5's
// filter pipeline (lib/hdf5/chunk_read.cpp).
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>

namespace vseg::hdf5::detail {

// HDF5's Fletcher-32 of len bytes (H5_checksum_fletcher32, bit for bit). O(len).
std::uint32_t fletcher32(const unsigned char* data, std::size_t len);

// Whether a dataset can be read by read_chunks_direct: chunked, 1-D, its
// only filter Fletcher-32, stored in the machine's byte order. O(1).
bool direct_readable(hid_t dataset, hid_t file_type);

// Elements [begin, end) of a direct-readable dataset with chunks of `chunk`
// elements of `size` bytes into out: every whole chunk read with
// H5Dread_chunk straight into place and its checksum verified here (HDF5's
// pipeline verifies at a fraction of the disk's rate and copies twice).
// Returns false, having written nothing it vouches for, when any chunk is
// not as expected (a checksum mismatch, a filter skipped, an error): the
// caller then reads through HDF5, which reports the problem. O(end - begin).
bool read_chunks_direct(hid_t dataset, std::uint64_t chunk, std::size_t size, std::int64_t begin,
                        std::int64_t end, void* out);

}  // namespace vseg::hdf5::detail
