// A distributed nested array on the core types. Each rank holds its pieces
// (whole segments, or under `split` parts of segments) as a vseg::nested<T>
// (data blocks plus vsegd/ssegd); the placement (vseg/dist/sharding.hpp)
// says which global segments and elements they are. Converting to and from
// vseg::nested copies no element: from_local() keeps the blocks and the
// descriptor, local() and pieces() hand them back.
//
// Virtual segments are a per-rank list of global physical ids (vsegids), so
// the i-th virtual segment of rank r may name a segment held anywhere, any
// number of times. replicate and expand rewrite only the local vsegids (no
// element moves, no message); take_v moves virtual segments between ranks.
// The operations on virtual segments (take_physical, take_v, sum_virtual)
// need whole segments in contiguous blocks (every spec but cyclic, split and
// replicated). Lifted operations are in vseg/dist/lifted.hpp.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <stdexcept>
#include <utility>
#include <vector>

#include "vseg/detail/error.hpp"
#include "vseg/dist/detail/placement.hpp"
#include "vseg/dist/global_indexer.hpp"
#include "vseg/dist/sharding.hpp"
#include "vseg/nested/nested.hpp"

namespace vseg::dist {

template <mpi_item T>
class nested;

namespace detail {
template <class T>
struct reshard_plan;
template <class T>
nested<T> reshard_impl(const nested<T>& xs, const sharding& spec);
struct nested_access;
}  // namespace detail

template <mpi_item T>
class nested {
 public:
  using value_type = T;

  // Collective: this rank's physical segments and its virtual segments (global
  // physical ids). Throws on every rank if a rank's counts do not add up to its
  // data or a vsegid is out of range. The data moves into the core array, no
  // element is copied. Cost: O(local segments + vsegids); two MPI_Allgather
  // and one MPI_Allreduce.
  nested(variable<T> local_segments, std::vector<std::int64_t> vsegids, MPI_Comm comm)
      : physical_(distribution::from_local_size(checked_segment_count(local_segments, comm), comm)),
        vsegids_(std::move(vsegids)) {
    detail::error_collector errs("dist::nested", physical_.rank());
    for (std::size_t k = 0; k < vsegids_.size(); ++k)
      if (vsegids_[k] < 0 || vsegids_[k] >= physical_.global_size()) {
        errs.out_of_range("vsegids[", k, "] is ", vsegids_[k], ", outside [0, ", physical_.global_size(), ")");
        break;
      }
    detail::agree(comm, errs);
    local_ = vseg::nested<T>::from_lengths(array<std::int64_t>(std::move(local_segments.counts)),
                                           array<T>(std::move(local_segments.data)));
    where_ = whole_segments_placement(local_.physical_lengths(), comm);
    identity_ = false;
    vsegid_tag_ = std::make_shared<const int>(0);
  }

  // Collective: every physical segment is one virtual segment, on its own rank.
  // Cost: as the constructor, plus one MPI_Exscan.
  static nested from_segments(variable<T> local_segments, MPI_Comm comm) {
    const auto n = static_cast<std::int64_t>(local_segments.counts.size());
    std::int64_t first = 0;
    detail::check_mpi(MPI_Exscan(&n, &first, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Exscan");
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) first = 0;  // MPI_Exscan leaves rank 0's result undefined
    std::vector<std::int64_t> vsegids(static_cast<std::size_t>(n));
    std::iota(vsegids.begin(), vsegids.end(), first);
    nested result(std::move(local_segments), std::move(vsegids), comm);
    result.identity_ = true;
    return result;
  }

  // Collective: a core nested array per rank made one distributed array.
  // Its physical segments (those of its ssegd) become this rank's physical
  // segments, after those of ranks 0..r-1 (spec offsets{...}); its virtual
  // segments become this rank's virtual segments. The blocks and descriptors
  // are kept: no element is copied. Cost: O(physical + virtual segments);
  // one MPI_Allgather and one MPI_Allreduce.
  static nested from_local(const vseg::nested<T>& local, MPI_Comm comm) {
    nested result;
    const vsegd& d = local.descriptor();
    result.local_ = vseg::nested<T>::from_vsegd_unchecked({local.blocks().begin(), local.blocks().end()},
                                                          vsegd::identity(d.scattered()));
    result.where_ = whole_segments_placement(local.physical_lengths(), comm);
    result.physical_ = distribution::from_agreed_offsets(result.where_->where.first_segment, result.where_->rank);
    result.identity_ = d.identity();
    const std::int64_t first = result.physical_.local_begin();
    const array<std::int64_t> ids = d.vsegids();
    result.vsegids_.resize(static_cast<std::size_t>(ids.size()));
    for (std::int64_t k = 0; k < ids.size(); ++k) result.vsegids_[static_cast<std::size_t>(k)] = first + ids[k];
    if (!result.identity_) result.local_virtual_ = local;
    if (!result.identity_) result.vsegid_tag_ = std::make_shared<const int>(0);
    return result;
  }

  // This rank's pieces (its physical segments) as a core nested array, one
  // virtual segment per piece; the blocks are the distributed array's own. O(1).
  const vseg::nested<T>& pieces() const { return local_; }

  // Local: this rank's virtual segments as a core nested array, sharing the
  // blocks (no element copied). Throws std::out_of_range (on this rank) if a
  // virtual segment names a segment held by another rank. O(virtual segments).
  vseg::nested<T> local() const {
    if (identity_) return local_;
    if (local_virtual_) return *local_virtual_;
    const std::int64_t first = physical_.local_begin(), n = physical_.local_size();
    auto ids = buffer<std::int64_t>::for_overwrite(static_cast<std::int64_t>(vsegids_.size()));
    for (std::size_t k = 0; k < vsegids_.size(); ++k) {
      if (vsegids_[k] < first || vsegids_[k] >= first + n)
        vseg::detail::throw_out_of_range("dist::nested::local", "vsegids[", k, "] is ", vsegids_[k],
                                         ", held by another rank (this rank holds [", first, ", ", first + n, "))");
      ids[static_cast<std::int64_t>(k)] = vsegids_[k] - first;
    }
    return local_.with_vsegids_unchecked(std::move(ids).freeze());
  }

  // The spec and the layout every rank agrees on; O(1).
  const sharding& spec() const { return where_->where.spec; }
  const shard_layout& placement() const { return where_->where; }
  // Global segments and elements; O(1).
  std::int64_t global_segments() const { return where_->where.segments; }
  std::int64_t global_elements() const { return where_->where.elements; }
  // Per local piece, its global segment; O(1).
  const array<std::int64_t>& piece_ids() const { return where_->ids; }
  // Per local piece, the global element of its first element; O(1).
  const array<std::int64_t>& piece_starts() const { return where_->starts; }

  // The distribution of physical segments over ranks; O(1).
  const distribution& physical() const { return physical_; }
  // This rank's physical segments as lengths and data (a copy). O(local elements).
  variable<T> local_segments() const {
    variable<T> result;
    result.counts.assign(local_.physical_lengths().begin(), local_.physical_lengths().end());
    for (std::int64_t p = 0; p < local_.size(); ++p) result.data.insert(result.data.end(), local_[p].begin(), local_[p].end());
    return result;
  }
  // This rank's virtual segments, as global physical ids; O(1).
  std::span<const std::int64_t> vsegids() const { return vsegids_; }
  // Number of virtual segments on this rank; O(1).
  std::int64_t local_virtual_size() const { return static_cast<std::int64_t>(vsegids_.size()); }
  // Whether virtual segment k is piece k on every rank (no replicate/expand); O(1).
  bool identity_virtual() const { return identity_; }
  // The communicator every rank of the array is on; O(1).
  MPI_Comm comm() const { return where_->comm; }

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
  distribution virtual_distribution() const { return distribution::from_local_size(local_virtual_size(), comm()); }

  // Collective: the data of the physical segments with the given global ids,
  // in the given order. Cost: one global_indexer build and one take_v.
  variable<T> take_physical(std::span<const std::int64_t> physical_ids) const {
    require_whole_blocks("dist::nested::take_physical");
    global_indexer plan(physical_, physical_ids, comm());
    const auto [lengths, data] = contiguous();
    return plan.take_v(std::span<const std::int64_t>(lengths.begin(), lengths.end()),
                       std::span<const T>(data.begin(), data.end()));
  }

  // Collective: the data of the virtual segments with the given global virtual
  // ids (over virtual_distribution()), in the given order: their physical ids
  // are fetched first, then the segments. Cost: two indexer builds, one take
  // of ids and one take_v of the segments.
  variable<T> take_v(std::span<const std::int64_t> virtual_ids) const {
    require_whole_blocks("dist::nested::take_v");
    global_indexer names(virtual_distribution(), virtual_ids, comm());
    std::vector<std::int64_t> physical_ids = names.take(vsegids_);
    return take_physical(physical_ids);
  }

  // Local: the sum of every physical segment this rank owns, with no
  // communication. O(local elements + local segments).
  std::vector<T> sum_local_segments() const
    requires(supports<T>(reduce_op::sum))
  {
    std::vector<T> sums(static_cast<std::size_t>(local_.size()), T{});
    for (std::int64_t s = 0; s < local_.size(); ++s)
      for (const T& x : local_[s]) sums[static_cast<std::size_t>(s)] = sums[static_cast<std::size_t>(s)] + x;
    return sums;
  }

  // Collective: the sum of each of this rank's virtual segments. Each physical
  // segment is summed once by its owner, then the sums are gathered through the
  // vsegids (one take of one value per virtual segment); the gather plan is
  // built on the first call and reused. O(local elements + virtual segments).
  std::vector<T> sum_virtual() const
    requires(supports<T>(reduce_op::sum))
  {
    require_whole_blocks("dist::nested::sum_virtual");
    if (!vsegid_plan_) vsegid_plan_ = std::make_shared<global_indexer>(physical_, vsegids_, comm());
    return vsegid_plan_->take(sum_local_segments());
  }

  // Collective: the same physical segments under another spec, seen through
  // the same virtual segments (the vsegids, global segment ids, carry over;
  // without vsegids the result's virtual segments are its pieces). Equal specs
  // return this array (no message); otherwise the plan (target layout, the
  // lengths and an element-level global_indexer) is built on the first call
  // for `spec` and reused; every spec reshards to every other (but mesh).
  // Throws std::invalid_argument on every rank for bad offsets or a mesh
  // spec. Cost once planned: an MPI_Allreduce on the spec, then one take of
  // the moved elements (MPI_Allreduce, MPI_Alltoallv).
  nested reshard(const sharding& spec) const { return detail::reshard_impl(*this, spec); }

 private:
  template <class U>
  friend nested<U> detail::reshard_impl(const nested<U>&, const sharding&);
  friend struct detail::nested_access;
  template <mpi_item U>
  friend class nested;

  nested() = default;

  // The placement of whole segments held in rank order (spec offsets{...}).
  static std::shared_ptr<const detail::placement> whole_segments_placement(const array<std::int64_t>& lengths,
                                                                           MPI_Comm comm) {
    auto w = std::make_shared<detail::placement>();
    w->comm = comm;
    MPI_Comm_rank(comm, &w->rank);
    MPI_Comm_size(comm, &w->nranks);
    std::int64_t elements = 0;
    std::uint64_t hash = 0;
    for (std::int64_t k = 0; k < lengths.size(); ++k) elements += lengths[k];
    std::int64_t mine[3] = {lengths.size(), elements, 0};
    std::vector<std::int64_t> all(3 * static_cast<std::size_t>(w->nranks));
    detail::check_mpi(MPI_Allgather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, comm), "MPI_Allgather");
    std::vector<std::int64_t> segs(static_cast<std::size_t>(w->nranks) + 1, 0), elems(segs.size(), 0);
    for (int r = 0; r < w->nranks; ++r) {
      segs[r + 1] = segs[r] + all[3 * r];
      elems[r + 1] = elems[r] + all[3 * r + 1];
    }
    auto ids = buffer<std::int64_t>::for_overwrite(lengths.size());
    auto starts = buffer<std::int64_t>::for_overwrite(lengths.size());
    std::int64_t at = elems[w->rank];
    for (std::int64_t k = 0; k < lengths.size(); ++k) {
      ids[k] = segs[w->rank] + k;
      starts[k] = at;
      at += lengths[k];
      hash += detail::piece_hash(ids[k], lengths[k]);
    }
    detail::check_mpi(MPI_Allreduce(&hash, &w->shape_hash, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
    w->where = shard_layout{sharding::offsets(segs), segs.back(), elems.back(), segs, elems};
    w->ids = std::move(ids).freeze();
    w->starts = std::move(starts).freeze();
    return w;
  }

  // The pieces as lengths and one contiguous data array: the core array's
  // own block when it is flat, else a packed copy. O(1) when flat.
  std::pair<array<std::int64_t>, array<T>> contiguous() const {
    const array<std::int64_t> lengths = local_.physical_lengths();
    const std::int64_t n = std::accumulate(lengths.begin(), lengths.end(), std::int64_t{0});
    if (local_.flat()) return {lengths, local_.blocks()[0].slice(0, n)};
    auto data = buffer<T>::for_overwrite(n);
    std::int64_t at = 0;
    for (std::int64_t p = 0; p < local_.size(); ++p)
      for (const T& x : local_[p]) data[at++] = x;
    return {lengths, std::move(data).freeze()};
  }

  // Throws std::invalid_argument (the same on every rank: the spec is) unless
  // the physical segments are whole and in contiguous blocks.
  void require_whole_blocks(const char* operation) const {
    if (!spec().contiguous() || spec().splits_segments())
      vseg::detail::throw_invalid(operation, "needs whole segments in contiguous blocks, not sharding ", spec());
  }

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
    result.identity_ = false;
    result.vsegid_tag_ = std::make_shared<const int>(0);
    result.local_virtual_.reset();
    result.vsegid_plan_.reset();
    result.plans_ = std::make_shared<plan_list>();  // plans on vsegids (fold_s's) are per array: not shared
    return result;
  }

  std::shared_ptr<const detail::placement> where_;
  // The pieces: identity over their ssegd, so map and folds keep them 1:1.
  vseg::nested<T> local_;
  distribution physical_;
  std::vector<std::int64_t> vsegids_;
  bool identity_ = true;
  // Shared by the arrays whose vsegids are one list (copies, map, scan_s):
  // equal tags let zip_with skip comparing them. Null: not known to be shared.
  std::shared_ptr<const int> vsegid_tag_;
  // from_local's own virtual segments, handed back by local() unchanged.
  std::optional<vseg::nested<T>> local_virtual_;
  mutable std::shared_ptr<global_indexer> vsegid_plan_;
  // Plans by name ("reshard " + spec, "gather " + ...), shared by the copies
  // of this array.
  using plan_list = std::vector<std::pair<std::string, std::shared_ptr<const void>>>;
  mutable std::shared_ptr<plan_list> plans_ = std::make_shared<plan_list>();
};

}  // namespace vseg::dist

#include "vseg/dist/detail/nested_access.hpp"
#include "vseg/dist/detail/reshard.hpp"
