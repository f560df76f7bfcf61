// The definitions of global_indexer's member templates (take, put, take_v,
// put_v and the variable-length exchange under them); included at the end of
// vseg/dist/global_indexer.hpp, which declares them and says what each does.
#pragma once

#include "vseg/dist/global_indexer.hpp"

namespace vseg::dist {

template <mpi_item T, class RecvData>
void global_indexer::exchange_variable(direction dir, std::span<const std::int64_t> lengths, const T* data,
                                       std::int64_t* recv_lengths, RecvData&& recv_data,
                                       std::int64_t sender_max) const {
  const bool out = dir == direction::to_owners;
  const auto& send_blocks = out ? send_counts_ : recv_counts_;
  const auto& send_starts = out ? send_displs_ : recv_displs_;
  const auto& recv_blocks = out ? recv_counts_ : send_counts_;
  const auto& recv_starts = out ? recv_displs_ : send_displs_;

  exchange_fixed(dir, lengths.data(), recv_lengths, 1, datatype<std::int64_t>());

  const auto p = static_cast<std::size_t>(dist_.nranks());
  std::vector<std::int64_t> per_rank(4 * p);
  std::span<std::int64_t> send_elems(per_rank.data(), p), send_offs(per_rank.data() + p, p),
      recv_elems(per_rank.data() + 2 * p, p), recv_offs(per_rank.data() + 3 * p, p);
  std::int64_t send_total = 0, recv_total = 0;
  for (std::size_t r = 0; r < p; ++r) {
    const std::int64_t* s = lengths.data() + send_starts[r];
    const std::int64_t* q = recv_lengths + recv_starts[r];
    send_offs[r] = send_total;
    send_elems[r] = std::accumulate(s, s + send_blocks[r], std::int64_t{0});
    send_total += send_elems[r];
    recv_offs[r] = recv_total;
    recv_elems[r] = std::accumulate(q, q + recv_blocks[r], std::int64_t{0});
    recv_total += recv_elems[r];
  }
  T* recv = recv_data(static_cast<std::size_t>(recv_total));
  const std::int64_t global_extent = variable_extent(sender_max, std::max(send_total, recv_total));
  detail::alltoallv(data, {send_elems, send_offs}, recv, {recv_elems, recv_offs}, datatype<T>(), global_extent,
                    comm_);
}

template <mpi_item T>
void global_indexer::take_exchange(const T* from, T* to, int count, T* served_items, T* sorted,
                                   detail::meanwhile work) const {
  const std::size_t c = group_size(count);
  // The owner gathers the requested items, in served order. One item per
  // request is an assignment: a copy_n of runtime length would be a memmove
  // call per item.
  const std::size_t n_served = served_.size();
  const std::int64_t* ids = served_.data();
  if (c == 1) {
    for (std::size_t j = 0; j < n_served; ++j) served_items[j] = from[ids[j]];
  } else {
    for (std::size_t j = 0; j < n_served; ++j) std::copy_n(from + ids[j] * count, c, served_items + j * c);
  }
  if (order_is_identity_) {
    exchange_fixed(direction::from_owners, served_items, to, count, datatype<T>(), work);
    return;
  }
  exchange_fixed(direction::from_owners, served_items, sorted, count, datatype<T>(), work);
  const std::int64_t* order = order_.data();
  const std::size_t n = order_.size();
  if (c == 1) {
    for (std::size_t k = 0; k < n; ++k) to[order[k]] = sorted[k];
  } else {
    for (std::size_t k = 0; k < n; ++k) std::copy_n(sorted + k * c, c, to + order[k] * count);
  }
}

template <mpi_item T>
void global_indexer::take_agreed(std::span<const T> dist_data, std::span<T> out, detail::meanwhile work) const {
  if (agreed_item_bytes_ < sizeof(T)) {  // the same on every rank: the checked take first
    work();
    take_into(dist_data, out, 1, errors("dist::global_indexer::take_agreed"));
    return;
  }
  if (static_cast<std::int64_t>(dist_data.size()) != dist_.local_size() ||
      static_cast<std::int64_t>(out.size()) != n_requests_)
    throw std::logic_error("vseg::dist::global_indexer::take_agreed: dist_data has " +
                           std::to_string(dist_data.size()) + " items (local_size " +
                           std::to_string(dist_.local_size()) + ") and out " + std::to_string(out.size()) +
                           " (size() " + std::to_string(n_requests_) +
                           "): the caller must check these against the plan on every rank");
  // Held since the checked take: scratch() finds them large enough and allocates nothing.
  T* served_items = scratch<T>(send_buf, served_.size());
  T* sorted = order_is_identity_ ? nullptr : scratch<T>(recv_buf, order_.size());
  take_exchange(dist_data.data(), out.data(), 1, served_items, sorted, work);
}

template <indexer_item T>
void global_indexer::take_into(std::span<const T> dist_data, std::span<T> out, int count,
                               detail::error_collector errs) const {
  check_count(errs, count);
  if (!errs.failed()) {
    detail::check_group_size_into(errs, "dist_data", static_cast<std::int64_t>(dist_data.size()), "local_size",
                                  dist_.local_size(), count);
    detail::check_group_size_into(errs, "out", static_cast<std::int64_t>(out.size()), "size()", n_requests_, count);
  }
  // The buffers are taken before the agreement: an owner serving many
  // requests that cannot hold them fails together with the others.
  T* served_items = nullptr;
  T* sorted = nullptr;
  if constexpr (mpi_item<T>) {
    served_items = reserve<T>(errs, send_buf, served_.size(), count);
    if (!order_is_identity_) sorted = reserve<T>(errs, recv_buf, order_.size(), count);
  }
  detail::agree(comm_, errs, 0, {{"count", count}});
  const std::size_t c = group_size(count);

  if constexpr (mpi_item<T>) {
    take_exchange(dist_data.data(), out.data(), count, served_items, sorted);
    // Every rank gets here together: the buffers of one item of T per
    // request are held, and take_agreed may skip the agreement from now on.
    if (c == 1) agreed_item_bytes_ = std::max(agreed_item_bytes_, sizeof(T));
  } else {
    // Generic items travel as one variable-length byte item per request.
    std::vector<std::int64_t> byte_counts(served_.size());
    std::vector<std::byte> bytes;
    for (std::size_t j = 0; j < served_.size(); ++j) {
      std::size_t before = bytes.size();
      for (std::size_t v = 0; v < c; ++v) detail::serialise(dist_data[served_[j] * count + v], bytes);
      byte_counts[j] = static_cast<std::int64_t>(bytes.size() - before);
    }
    std::vector<std::int64_t> arrived_counts(order_.size());
    std::vector<std::byte> arrived;
    exchange_variable<std::byte>(
        direction::from_owners, byte_counts, bytes.data(), arrived_counts.data(),
        [&arrived](std::size_t total) { arrived.resize(total); return arrived.data(); }, -1);
    std::size_t pos = 0;
    for (std::size_t k = 0; k < order_.size(); ++k)
      for (std::size_t v = 0; v < c; ++v) detail::deserialise(arrived.data(), arrived.size(), pos, out[order_[k] * count + v]);
  }
}

template <indexer_item T>
void global_indexer::put_into(std::span<const T> part_data, std::span<T> dist_data, int count, reduce_op op,
                              detail::error_collector errs) const {
  check_count(errs, count);
  if (!errs.failed()) {
    detail::check_group_size_into(errs, "part_data", static_cast<std::int64_t>(part_data.size()), "size()",
                                  n_requests_, count);
    detail::check_group_size_into(errs, "dist_data", static_cast<std::int64_t>(dist_data.size()), "local_size",
                                  dist_.local_size(), count);
  }
  if (!supports<T>(op)) errs.invalid("reduce_op::", name(op), " cannot combine items of this type");
  // The buffers are taken before the agreement (as in take_into).
  T* sorted = nullptr;
  T* arrived = nullptr;
  if constexpr (mpi_item<T>) {
    if (!order_is_identity_) sorted = reserve<T>(errs, send_buf, order_.size(), count);
    arrived = reserve<T>(errs, recv_buf, served_.size(), count);
  }
  // Owners combine with their own op: a rank passing another would make the
  // result depend on who owns what.
  detail::agree(comm_, errs, 0, {{"count", count}, {"reduce_op", static_cast<std::int64_t>(op), show_reduce_op}});
  const std::size_t c = group_size(count);

  if constexpr (mpi_item<T>) {
    const T* send = part_data.data();
    const std::int64_t* order = order_.data();
    const std::size_t n = order_.size();
    if (!order_is_identity_) {
      if (c == 1) {
        for (std::size_t k = 0; k < n; ++k) sorted[k] = send[order[k]];
      } else {
        for (std::size_t k = 0; k < n; ++k) std::copy_n(send + order[k] * count, c, sorted + k * c);
      }
      send = sorted;
    }
    exchange_fixed(direction::to_owners, send, arrived, count, datatype<T>());
    // Served order is rank order, then position order: the last write wins.
    T* to = dist_data.data();
    const std::int64_t* ids = served_.data();
    const std::size_t n_served = served_.size();
    if (op == reduce_op::none && c == 1) {
      for (std::size_t j = 0; j < n_served; ++j) to[ids[j]] = arrived[j];
    } else if (op == reduce_op::none) {
      for (std::size_t j = 0; j < n_served; ++j) std::copy_n(arrived + j * c, c, to + ids[j] * count);
    } else {
      for (std::size_t j = 0; j < n_served; ++j) {
        T* target = to + ids[j] * count;
        const T* source = arrived + j * c;
        for (std::size_t v = 0; v < c; ++v) combine(op, target[v], source[v]);
      }
    }
  } else {
    std::vector<std::int64_t> byte_counts(order_.size());
    std::vector<std::byte> bytes;
    for (std::size_t k = 0; k < order_.size(); ++k) {
      std::size_t before = bytes.size();
      for (std::size_t v = 0; v < c; ++v) detail::serialise(part_data[order_[k] * count + v], bytes);
      byte_counts[k] = static_cast<std::int64_t>(bytes.size() - before);
    }
    std::vector<std::int64_t> arrived_counts(served_.size());
    std::vector<std::byte> arrived;
    exchange_variable<std::byte>(
        direction::to_owners, byte_counts, bytes.data(), arrived_counts.data(),
        [&arrived](std::size_t total) { arrived.resize(total); return arrived.data(); }, -1);
    std::size_t pos = 0;
    T value{};
    for (std::size_t j = 0; j < served_.size(); ++j)
      for (std::size_t v = 0; v < c; ++v) {
        detail::deserialise(arrived.data(), arrived.size(), pos, value);
        combine(op, dist_data[served_[j] * count + v], value);
      }
  }
}

template <mpi_item T>
void global_indexer::take_v(std::span<const std::int64_t> dist_counts, std::span<const T> dist_data,
                            variable<T>& out) const {
  auto errs = errors("dist::global_indexer::take_v");
  check_variable(errs, "dist_counts", dist_.local_size(), dist_counts, static_cast<std::int64_t>(dist_data.size()));

  // Where each owned item starts, and what this rank sends (known before the
  // exchange, so the check's allreduce also agrees on the largest sender).
  const std::size_t n_served = served_.size();
  std::int64_t* starts = scratch<std::int64_t>(offsets_buf, dist_counts.size() + 1);
  std::int64_t* served_counts = scratch<std::int64_t>(send_len_buf, n_served);
  std::int64_t served_total = 0;
  T* served_data = nullptr;
  if (!errs.failed()) {
    starts[0] = 0;
    std::inclusive_scan(dist_counts.begin(), dist_counts.end(), starts + 1);
    // An item requested many times is sent as many times: the total is
    // checked, and its buffer allocated, before the ranks agree, so that a
    // rank which cannot send fails together with the others.
    for (std::size_t j = 0; j < n_served && !errs.failed(); ++j)
      if (!detail::add_checked(served_total, served_counts[j] = dist_counts[served_[j]], served_total))
        errs.overflow("the requested items add up to more than 2^63-1 elements");
    try {
      if (!errs.failed()) served_data = scratch<T>(send_buf, static_cast<std::size_t>(served_total));
    } catch (const std::exception& e) {  // std::bad_alloc, std::length_error
      errs.invalid("the ", n_served, " requested items add up to ", served_total,
                   " elements, which cannot be allocated (", e.what(), ")");
    }
  }
  const std::int64_t sender_max = detail::agree(comm_, errs, served_total);

  for (std::size_t j = 0, at = 0; j < n_served; at += static_cast<std::size_t>(served_counts[j]), ++j)
    std::copy_n(dist_data.data() + starts[served_[j]], served_counts[j], served_data + at);

  const std::span<const std::int64_t> lengths(served_counts, n_served);
  const std::size_t n = order_.size();
  out.counts.resize(n);
  if (order_is_identity_) {
    exchange_variable<T>(
        direction::from_owners, lengths, served_data, out.counts.data(),
        [&out](std::size_t total) { out.data.resize(total); return out.data.data(); }, sender_max);
    return;
  }
  std::int64_t* sorted_counts = scratch<std::int64_t>(recv_len_buf, n);
  T* sorted_data = nullptr;
  std::size_t sorted_total = 0;
  exchange_variable<T>(
      direction::from_owners, lengths, served_data, sorted_counts,
      [&](std::size_t total) { sorted_total = total; return sorted_data = scratch<T>(recv_buf, total); },
      sender_max);

  // Back to request order: item k of the sorted requests is request order_[k].
  const std::int64_t* order = order_.data();
  for (std::size_t k = 0; k < n; ++k) out.counts[order[k]] = sorted_counts[k];
  std::int64_t* item_starts = scratch<std::int64_t>(offsets_buf, n);
  std::exclusive_scan(out.counts.begin(), out.counts.end(), item_starts, std::int64_t{0});
  out.data.resize(sorted_total);
  T* to = out.data.data();
  for (std::size_t k = 0, at = 0; k < n; at += static_cast<std::size_t>(sorted_counts[k]), ++k)
    std::copy_n(sorted_data + at, sorted_counts[k], to + item_starts[order[k]]);
}

template <mpi_item T>
variable<T> global_indexer::put_v_impl(std::span<const std::int64_t> part_counts, std::span<const T> part_data,
                                       const variable<T>* initial, put_mode mode) const {
  auto errs = errors("dist::global_indexer::put_v");
  check_variable(errs, "part_counts", n_requests_, part_counts, static_cast<std::int64_t>(part_data.size()));
  if (initial)
    check_variable(errs, "initial.counts", dist_.local_size(), initial->counts,
                   static_cast<std::int64_t>(initial->data.size()));
  // The check's allreduce also agrees on the largest sender.
  const std::int64_t sender_max =
      detail::agree(comm_, errs, errs.failed() ? 0 : static_cast<std::int64_t>(part_data.size()),
                    {{"put_mode", static_cast<std::int64_t>(mode), show_put_mode}});

  // Requests in owner order, then to the owners.
  const std::size_t n = order_.size();
  std::span<const std::int64_t> send_counts = part_counts;
  const T* send = part_data.data();
  if (!order_is_identity_) {
    std::int64_t* starts = scratch<std::int64_t>(offsets_buf, n + 1);
    starts[0] = 0;
    std::inclusive_scan(part_counts.begin(), part_counts.end(), starts + 1);
    std::int64_t* sorted_counts = scratch<std::int64_t>(send_len_buf, n);
    T* sorted_data = scratch<T>(send_buf, part_data.size());
    const std::int64_t* order = order_.data();
    for (std::size_t k = 0, at = 0; k < n; ++k) {
      sorted_counts[k] = part_counts[order[k]];
      std::copy_n(part_data.data() + starts[order[k]], sorted_counts[k], sorted_data + at);
      at += static_cast<std::size_t>(sorted_counts[k]);
    }
    send_counts = {sorted_counts, n};
    send = sorted_data;
  }
  const std::size_t n_served = served_.size();
  std::int64_t* arrived_counts = scratch<std::int64_t>(recv_len_buf, n_served);
  T* arrived = nullptr;
  exchange_variable<T>(
      direction::to_owners, send_counts, send, arrived_counts,
      [&](std::size_t total) { return arrived = scratch<T>(recv_buf, total); }, sender_max);
  std::int64_t* arrived_starts = scratch<std::int64_t>(offsets_buf, n_served + 1);
  arrived_starts[0] = 0;
  std::inclusive_scan(arrived_counts, arrived_counts + n_served, arrived_starts + 1);

  const std::size_t n_local = static_cast<std::size_t>(dist_.local_size());
  std::vector<std::int64_t> initial_starts = initial ? initial->offsets() : std::vector<std::int64_t>();
  auto initial_count = [&](std::size_t i) { return initial ? initial->counts[i] : std::int64_t{0}; };

  variable<T> result;
  result.counts.resize(n_local);
  if (mode == put_mode::replace) {
    // last[i]: the served request that wins item i, or -1.
    std::vector<std::int64_t> last(n_local, -1);
    for (std::size_t j = 0; j < n_served; ++j) last[served_[j]] = static_cast<std::int64_t>(j);
    for (std::size_t i = 0; i < n_local; ++i)
      result.counts[i] = last[i] >= 0 ? arrived_counts[last[i]] : initial_count(i);
    auto offsets = result.offsets();
    result.data.resize(static_cast<std::size_t>(offsets.back()));
    for (std::size_t i = 0; i < n_local; ++i) {
      const T* from = last[i] >= 0 ? arrived + arrived_starts[last[i]]
                                   : (initial ? initial->data.data() + initial_starts[i] : nullptr);
      if (result.counts[i] > 0) std::copy_n(from, result.counts[i], result.data.data() + offsets[i]);
    }
  } else {
    for (std::size_t i = 0; i < n_local; ++i) result.counts[i] = initial_count(i);
    for (std::size_t j = 0; j < n_served; ++j) result.counts[served_[j]] += arrived_counts[j];
    auto cursor = result.offsets();
    result.data.resize(static_cast<std::size_t>(cursor.back()));
    for (std::size_t i = 0; i < n_local; ++i) {
      if (initial_count(i) > 0)
        std::copy_n(initial->data.data() + initial_starts[i], initial_count(i), result.data.data() + cursor[i]);
      cursor[i] += initial_count(i);
    }
    // Served order is rank order, then position order: extend appends in it.
    for (std::size_t j = 0; j < n_served; ++j) {
      std::copy_n(arrived + arrived_starts[j], arrived_counts[j], result.data.data() + cursor[served_[j]]);
      cursor[served_[j]] += arrived_counts[j];
    }
  }
  return result;
}

}  // namespace vseg::dist
