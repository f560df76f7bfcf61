// A distributed nested array. Its physical segments are block-distributed:
// rank r holds the segments with global ids [physical().offsets()[r],
// physical().offsets()[r+1]), as lengths plus one flat data block. Its virtual
// segments are a per-rank list of global physical ids (vsegids), so the i-th
// virtual segment of rank r may name a segment held anywhere, any number of
// times. replicate and expand rewrite only the local vsegids; moving virtual
// segments between ranks is a take_v over the physical segments they name.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <numeric>
#include <span>
#include <stdexcept>
#include <vector>

#include "vseg/detail/error.hpp"
#include "vseg/dist/global_indexer.hpp"

namespace vseg::dist {

template <mpi_item T>
class nested {
 public:
  // Collective: this rank's physical segments and its virtual segments (global
  // physical ids). Throws on every rank if a rank's counts do not add up to its
  // data or a vsegid is out of range. Cost: O(local segments + vsegids); one
  // MPI_Allgather and one MPI_Allreduce.
  nested(variable<T> local_segments, std::vector<std::int64_t> vsegids, MPI_Comm comm)
      : comm_(comm),
        physical_(distribution::from_local_size(checked_segment_count(local_segments, comm), comm)),
        segments_(std::make_shared<const variable<T>>(std::move(local_segments))),
        vsegids_(std::move(vsegids)) {
    detail::error_collector errs("dist::nested", physical_.rank());
    for (std::size_t k = 0; k < vsegids_.size(); ++k)
      if (vsegids_[k] < 0 || vsegids_[k] >= physical_.global_size()) {
        errs.out_of_range("vsegids[", k, "] is ", vsegids_[k], ", outside [0, ", physical_.global_size(), ")");
        break;
      }
    detail::agree(comm_, errs);
  }

  // Collective: every physical segment is one virtual segment, on its own rank.
  // Cost: as the constructor.
  static nested from_segments(variable<T> local_segments, MPI_Comm comm) {
    const auto n = static_cast<std::int64_t>(local_segments.counts.size());
    std::int64_t first = 0;
    detail::check_mpi(MPI_Exscan(&n, &first, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Exscan");
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) first = 0;  // MPI_Exscan leaves rank 0's result undefined
    std::vector<std::int64_t> vsegids(static_cast<std::size_t>(n));
    std::iota(vsegids.begin(), vsegids.end(), first);
    return nested(std::move(local_segments), std::move(vsegids), comm);
  }

  // The distribution of physical segments over ranks; O(1).
  const distribution& physical() const { return physical_; }
  // This rank's physical segments: lengths and data; O(1).
  const variable<T>& local_segments() const { return *segments_; }
  // This rank's virtual segments, as global physical ids; O(1).
  std::span<const std::int64_t> vsegids() const { return vsegids_; }
  // Number of virtual segments on this rank; O(1).
  std::int64_t local_virtual_size() const { return static_cast<std::int64_t>(vsegids_.size()); }
  MPI_Comm comm() const { return comm_; }

  // Local: every virtual segment repeated n times in place ([a b] -> [a a b b]
  // for n = 2); no element moves, no communication. O(n * virtual segments).
  nested replicate(std::int64_t n) const {
    if (n < 0) vseg::detail::throw_invalid("dist::nested::replicate", "n is ", n, ", negative");
    return with_vsegids(repeat(std::vector<std::int64_t>(vsegids_.size(), n), "dist::nested::replicate"));
  }

  // Local: virtual segment k repeated counts[k] times (lifted replicate); no
  // element moves, no communication. O(virtual segments + result segments).
  nested expand(std::span<const std::int64_t> counts) const {
    if (counts.size() != vsegids_.size())
      vseg::detail::throw_invalid("dist::nested::expand", "counts has size ", counts.size(), " but there are ",
                                  vsegids_.size(), " virtual segments");
    for (std::size_t k = 0; k < counts.size(); ++k)
      if (counts[k] < 0) vseg::detail::throw_invalid("dist::nested::expand", "counts[", k, "] is ", counts[k]);
    return with_vsegids(repeat(std::vector<std::int64_t>(counts.begin(), counts.end()), "dist::nested::expand"));
  }

  // Collective: the distribution of virtual segments (rank r's list comes
  // after those of ranks 0..r-1); one MPI_Allgather.
  distribution virtual_distribution() const {
    return distribution::from_local_size(local_virtual_size(), comm_);
  }

  // Collective: the data of the physical segments with the given global ids,
  // in the given order. Cost: one global_indexer build and one take_v.
  variable<T> take_physical(std::span<const std::int64_t> physical_ids) const {
    global_indexer plan(physical_, physical_ids, comm_);
    return plan.take_v(std::span<const std::int64_t>(segments_->counts), std::span<const T>(segments_->data));
  }

  // Collective: the data of the virtual segments with the given global virtual
  // ids (over virtual_distribution()), in the given order: their physical ids
  // are fetched first, then the segments. Cost: two indexer builds, one take
  // of ids and one take_v of the segments.
  variable<T> take_v(std::span<const std::int64_t> virtual_ids) const {
    global_indexer names(virtual_distribution(), virtual_ids, comm_);
    std::vector<std::int64_t> physical_ids = names.take(vsegids_);
    return take_physical(physical_ids);
  }

  // Local: the sum of every physical segment this rank owns, with no
  // communication. O(local elements + local segments).
  std::vector<T> sum_local_segments() const
    requires(supports<T>(reduce_op::sum))
  {
    std::vector<T> sums(segments_->counts.size(), T{});
    const T* at = segments_->data.data();
    for (std::size_t s = 0; s < sums.size(); ++s) {
      for (std::int64_t e = 0; e < segments_->counts[s]; ++e) sums[s] = sums[s] + at[e];
      at += segments_->counts[s];
    }
    return sums;
  }

  // Collective: the sum of each of this rank's virtual segments. Each physical
  // segment is summed once by its owner, then the sums are gathered through the
  // vsegids (one take of one value per virtual segment); the gather plan is
  // built on the first call and reused. O(local elements + virtual segments).
  std::vector<T> sum_virtual() const
    requires(supports<T>(reduce_op::sum))
  {
    if (!vsegid_plan_) vsegid_plan_ = std::make_shared<global_indexer>(physical_, vsegids_, comm_);
    return vsegid_plan_->take(sum_local_segments());
  }

 private:
  static std::int64_t checked_segment_count(const variable<T>& segments, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    detail::error_collector errs("dist::nested", rank);
    std::int64_t total = 0;
    for (std::size_t s = 0; s < segments.counts.size(); ++s) {
      if (segments.counts[s] < 0) {
        errs.invalid("segment length ", s, " is ", segments.counts[s], ", negative");
        break;
      }
      if (!detail::add_checked(total, segments.counts[s], total)) {
        errs.overflow("segment lengths add up to more than 2^63-1 at segment ", s, " (length ", segments.counts[s],
                      ")");
        break;
      }
    }
    if (!errs.failed() && total != static_cast<std::int64_t>(segments.data.size()))
      errs.invalid("segment lengths add up to ", total, " but the data has ", segments.data.size(), " elements");
    detail::agree(comm, errs);
    return static_cast<std::int64_t>(segments.counts.size());
  }

  // Virtual segment k repeated times[k] times; throws std::overflow_error if
  // the number of results passes 2^63-1 (checked before any allocation).
  std::vector<std::int64_t> repeat(const std::vector<std::int64_t>& times, const char* operation) const {
    std::int64_t total = 0;
    for (std::size_t k = 0; k < times.size(); ++k)
      if (!detail::add_checked(total, times[k], total))
        vseg::detail::throw_overflow(operation, "the result has more than 2^63-1 virtual segments (at segment ", k,
                                     ", repeated ", times[k], " times)");
    std::vector<std::int64_t> result;
    result.reserve(static_cast<std::size_t>(total));
    for (std::size_t k = 0; k < vsegids_.size(); ++k) result.insert(result.end(), times[k], vsegids_[k]);
    return result;
  }

  // Shares the physical segments (no copy); only the descriptor changes.
  nested with_vsegids(std::vector<std::int64_t> vsegids) const {
    nested result(*this);
    result.vsegids_ = std::move(vsegids);
    result.vsegid_plan_.reset();
    return result;
  }

  MPI_Comm comm_;
  distribution physical_;
  // Shared between a nested array and its replicated or expanded views.
  std::shared_ptr<const variable<T>> segments_;
  std::vector<std::int64_t> vsegids_;
  mutable std::shared_ptr<global_indexer> vsegid_plan_;
};

}  // namespace vseg::dist
