// A distribution of n global items over the ranks of a communicator: an
// offsets array of size nranks+1, identical on every rank; rank r owns the
// global items [offsets[r], offsets[r+1]).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace vseg::dist {

class distribution {
 public:
  // Collective: takes the offsets as given, after checking on every rank that
  // they have size nranks+1, start at 0, never decrease, and are the same on
  // all ranks. Cost: O(nranks) work; one MPI_Allreduce of 2*nranks+4 integers.
  static distribution from_offsets(std::vector<std::int64_t> offsets, MPI_Comm comm);

  // Collective: rank r owns the next n_local items after ranks 0..r-1. Throws
  // std::invalid_argument on every rank if a rank's n_local is negative, and
  // std::overflow_error if the sum passes 2^63-1. Cost: O(nranks), one
  // MPI_Allgather of one integer.
  static distribution from_local_size(std::int64_t n_local, MPI_Comm comm);

  // Collective: n_global items in blocks as equal as possible, the first
  // n_global % nranks ranks owning one more; n_global must be the same on
  // every rank. Cost: O(nranks), one MPI_Allreduce of 4 integers.
  static distribution uniform(std::int64_t n_global, MPI_Comm comm);

  // Local: takes offsets that every rank computed from the same agreed data
  // (a layout), without checking or communicating. O(1).
  static distribution from_agreed_offsets(std::vector<std::int64_t> offsets, int rank) {
    return distribution(std::move(offsets), rank);
  }

  // No items on one rank (a placeholder until assigned); O(1).
  distribution() : offsets_{0, 0} {}

  // The offsets array, size nranks+1; O(1).
  std::span<const std::int64_t> offsets() const { return offsets_; }
  // Total number of items; O(1).
  std::int64_t global_size() const { return offsets_.back(); }
  // Number of items this rank owns; O(1).
  std::int64_t local_size() const { return offsets_[rank_ + 1] - offsets_[rank_]; }
  // First global item this rank owns; O(1).
  std::int64_t local_begin() const { return offsets_[rank_]; }
  // One past the last global item this rank owns; O(1).
  std::int64_t local_end() const { return offsets_[rank_ + 1]; }
  // Number of items rank r owns; O(1).
  std::int64_t size_of(int r) const { return offsets_[r + 1] - offsets_[r]; }
  // This rank and the number of ranks the distribution was built for; O(1).
  int rank() const { return rank_; }
  int nranks() const { return static_cast<int>(offsets_.size()) - 1; }

  // The rank that owns global item i (0 <= i < global_size()); O(log nranks).
  // With empty ranks, the owner is the unique r with offsets[r] <= i < offsets[r+1].
  int owner(std::int64_t i) const;

  friend bool operator==(const distribution&, const distribution&) = default;

 private:
  distribution(std::vector<std::int64_t> offsets, int rank) : offsets_(std::move(offsets)), rank_(rank) {}

  std::vector<std::int64_t> offsets_;
  int rank_ = 0;
};

}  // namespace vseg::dist
