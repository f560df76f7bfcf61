// Out-of-core sparse matrix-vector multiply on a matrix stored in HDF5
// (a depth-1 nested array with fields "columns" int32 and "values" float64,
// notes/hdf5.md), streamed in blocks of whole rows through the scheduler of
// vseg/ooc/scheduler.hpp; and the deterministic R-MAT-like matrices that
// examples/ooc_gen writes.
//
// Every row is summed by detail::fold_range_by, the body vseg's in-memory
// fused sum_s(zip_with(*, vals, index_l(replicate(n, x), cols))) uses for a
// row it does not split: the result of a row depends on nothing but the row,
// so it is the same under every memory budget and block size, and equal bit
// for bit to the in-memory SpMV wherever that one keeps rows whole (always
// below tuning::serial_cutoff work items).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vseg::ooc {

// Entry j of row r of the R-MAT-like matrix with n rows: its column (bits
// chosen level by level, 1 with probability 1/4, so a few columns are hit
// by many rows) and value in (0, 1), both from a hash of (r, j). O(log n).
std::pair<std::int32_t, double> rmat_entry(std::int64_t n, std::int64_t r, std::int64_t j);

// Writes the n x n R-MAT-like matrix with k entries a row (columns sorted
// within a row) to path, block by block (memory O(block), not O(file)),
// atomically. O(n k log n). Throws std::invalid_argument for n outside
// [1, 2^31) or k < 0, hdf5::error when the file cannot be written.
void generate_rmat(const std::string& path, std::int64_t n, std::int64_t k);

// What pagerank_spmv is asked to do.
struct spmv_options {
  std::int64_t memory_budget = std::int64_t{256} << 20;  // bytes of matrix blocks in memory at once
  std::int64_t iterations = 1;
  bool drop_cache = true;  // posix_fadvise(DONTNEED) on the file before each pass
};

// What it did.
struct spmv_result {
  std::vector<double> x;            // the final vector
  double seconds = 0;               // the iterations, without the cache drops
  double cpu_seconds = 0;           // the CPU time of all threads in them
  std::int64_t bytes_per_pass = 0;  // matrix bytes read per iteration
  std::int64_t blocks = 0, in_flight = 0, block_bytes = 0;
  std::int64_t mapped_bytes = 0;    // matrix bytes read in place from mapped chunks, all iterations
};

// I iterations of x <- A x / |A x|_1 from x = 1/n, the matrix at path read
// in blocks of whole rows of at most memory_budget / in_flight bytes, at most
// in_flight blocks in memory. O(I (nnz + n)) work, O(memory_budget + n) memory.
// Throws std::invalid_argument for a budget below one row's bytes or a
// non-square matrix, hdf5::error for a bad file or a column out of range.
spmv_result pagerank_spmv(const std::string& path, const spmv_options& options);

// The bits of x folded by FNV-1a: one number that differs when any bit does. O(n).
std::uint64_t checksum(const std::vector<double>& x);

// The file's sequential read rate in bytes per second, read cold (the page
// cache dropped first with posix_fadvise) in 4 MiB reads. O(file).
double sequential_read_rate(const std::string& path);

// Drops the file's pages from the page cache (posix_fadvise DONTNEED). O(file pages).
void drop_cached_pages(const std::string& path);

}  // namespace vseg::ooc
