// Building the global indexer's plan (see vseg/dist/global_indexer.hpp).
#include "vseg/dist/global_indexer.hpp"

namespace vseg::dist {

global_indexer::global_indexer(const distribution& dist, std::span<const std::int64_t> indices, MPI_Comm comm)
    : dist_(dist), comm_(comm), n_requests_(static_cast<std::int64_t>(indices.size())) {
  int rank = 0, nranks = 1;
  detail::check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  detail::check_mpi(MPI_Comm_size(comm, &nranks), "MPI_Comm_size");
  detail::error_collector errs("dist::global_indexer", rank);
  if (dist.nranks() != nranks || dist.rank() != rank) {
    errs.invalid("the distribution was built for rank ", dist.rank(), " of ", dist.nranks(),
                 " but the communicator has rank ", rank, " of ", nranks);
  } else {
    const std::int64_t n = dist.global_size();
    for (std::size_t k = 0; k < indices.size(); ++k)
      if (indices[k] < 0 || indices[k] >= n) {
        errs.out_of_range("index ", indices[k], " at position ", k, " is outside [0, ", n, ")");
        break;
      }
  }
  // The same allreduce checks that every rank passed the same distribution: a
  // rank with other offsets would serve local indices outside its data. A rank
  // whose distribution does not fit the communicator has failed already, and
  // passes nranks+1 zeros so that every rank reduces the same length.
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(nranks) + 1, 0);
  if (!errs.failed()) std::ranges::copy(dist.offsets(), offsets.begin());
  detail::agree(comm, errs, 0, {}, {"the distribution's offsets", offsets});

  // Stable counting sort of the requests by owner.
  const auto p = static_cast<std::size_t>(nranks);
  std::vector<int> owners(indices.size());
  send_counts_.assign(p, 0);
  for (std::size_t k = 0; k < indices.size(); ++k) ++send_counts_[owners[k] = dist.owner(indices[k])];
  send_displs_.assign(p, 0);
  std::exclusive_scan(send_counts_.begin(), send_counts_.end(), send_displs_.begin(), std::int64_t{0});
  order_.resize(indices.size());
  std::vector<std::int64_t> sorted_indices(indices.size());
  {
    std::vector<std::int64_t> next(send_displs_);
    for (std::size_t k = 0; k < indices.size(); ++k) {
      const std::int64_t slot = next[owners[k]]++;
      order_[slot] = static_cast<std::int64_t>(k);
      sorted_indices[slot] = indices[k];
    }
  }
  for (std::size_t k = 0; k < order_.size() && order_is_identity_; ++k)
    order_is_identity_ = order_[k] == static_cast<std::int64_t>(k);

  recv_counts_.assign(p, 0);
  detail::check_mpi(
      MPI_Alltoall(send_counts_.data(), 1, MPI_INT64_T, recv_counts_.data(), 1, MPI_INT64_T, comm), "MPI_Alltoall");
  recv_displs_.assign(p, 0);
  std::exclusive_scan(recv_counts_.begin(), recv_counts_.end(), recv_displs_.begin(), std::int64_t{0});
  const std::int64_t n_served = recv_displs_.back() + recv_counts_.back();
  global_max_requests_ = detail::max_over_ranks(std::max(n_requests_, n_served), comm);

  served_.resize(static_cast<std::size_t>(n_served));
  exchange_fixed(direction::to_owners, sorted_indices.data(), served_.data(), 1, MPI_INT64_T);
  const std::int64_t begin = dist.local_begin();
  for (auto& i : served_) i -= begin;
}

std::vector<std::int64_t> global_indexer::access_counts() const {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(dist_.local_size()), 0);
  for (std::int64_t i : served_) ++counts[i];
  return counts;
}

void global_indexer::check_count(detail::error_collector& errs, int count) const {
  if (count < 1) errs.invalid("count is ", count, ", must be at least 1");
}

void global_indexer::check_variable(detail::error_collector& errs, const char* what, std::int64_t expected_items,
                                    std::span<const std::int64_t> counts, std::int64_t data_size) {
  if (static_cast<std::int64_t>(counts.size()) != expected_items) {
    errs.invalid(what, " has size ", counts.size(), " but ", expected_items, " items are expected");
    return;
  }
  // The sum is checked: counts such as {2^63-1, 2^63-1, 2} must not wrap
  // around to the data size.
  std::int64_t total = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] < 0) {
      errs.invalid(what, "[", i, "] is ", counts[i], ", negative");
      return;
    }
    if (!detail::add_checked(total, counts[i], total)) {
      errs.overflow(what, " add up to more than 2^63-1: ", what, "[", i, "] is ", counts[i],
                    " (the data has ", data_size, " elements)");
      return;
    }
  }
  if (total != data_size) errs.invalid(what, " add up to ", total, " but the data has ", data_size, " elements");
}

std::string global_indexer::show_reduce_op(std::int64_t op) {
  return "reduce_op::" + std::string(name(static_cast<reduce_op>(op)));
}

std::string global_indexer::show_put_mode(std::int64_t mode) {
  return static_cast<put_mode>(mode) == put_mode::replace ? "put_mode::replace" : "put_mode::extend";
}

std::int64_t global_indexer::variable_extent(std::int64_t sender_max, std::int64_t local_extent) const {
  if (sender_max >= 0 && sender_max <= detail::message_limit() / dist_.nranks()) return sender_max * dist_.nranks();
  return detail::agree_extent(local_extent, comm_);
}

void global_indexer::exchange_fixed(direction dir, const void* send, void* recv, std::int64_t count,
                                    MPI_Datatype type, detail::meanwhile work) const {
  const bool out = dir == direction::to_owners;
  const auto& send_blocks = out ? send_counts_ : recv_counts_;
  const auto& send_starts = out ? send_displs_ : recv_displs_;
  const auto& recv_blocks = out ? recv_counts_ : send_counts_;
  const auto& recv_starts = out ? recv_displs_ : send_displs_;
  if (count == 1) {
    detail::alltoallv(send, {send_blocks, send_starts}, recv, {recv_blocks, recv_starts}, type,
                      global_max_requests_, comm_, work);
    return;
  }
  auto scaled = [count](const std::vector<std::int64_t>& v) {
    std::vector<std::int64_t> result(v.size());
    for (std::size_t r = 0; r < v.size(); ++r) result[r] = v[r] * count;
    return result;
  };
  auto sc = scaled(send_blocks), sd = scaled(send_starts), rc = scaled(recv_blocks), rd = scaled(recv_starts);
  detail::alltoallv(send, {sc, sd}, recv, {rc, rd}, type, global_max_requests_ * count, comm_, work);
}

}  // namespace vseg::dist
