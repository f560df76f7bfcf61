// The global indexer: a communication plan built once, collectively, from a
// distribution and every rank's list of global indices, then reused by take,
// put, take_v and put_v. Building it sorts each rank's requests by owner and
// sends them to the owners (MPI_Alltoall of counts, MPI_Alltoallv of
// indices); every later operation is one data exchange along that plan (two
// for variable-length items: counts, then data).
//
// Order guarantees (DESIGN.md, "Distributed layer"): an owner applies the
// writes it receives in rank order and, within a rank, in position order, so
// the highest rank wins a conflict, then the later position; reductions and
// extend combine in that same order, after the initial content.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <ranges>
#include <span>
#include <type_traits>
#include <vector>

#include "vseg/dist/datatype.hpp"
#include "vseg/dist/detail/collective_check.hpp"
#include "vseg/dist/detail/exchange.hpp"
#include "vseg/dist/detail/serialize.hpp"
#include "vseg/dist/distribution.hpp"
#include "vseg/dist/reduce_op.hpp"
#include "vseg/dist/variable.hpp"

namespace vseg::dist {

// Items take and put accept: raw MPI items or serialisable generic items.
template <class T>
concept indexer_item = mpi_item<T> || generic_item<T>;

// A contiguous range of items that can be read as a span.
template <class R>
concept item_range = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                     indexer_item<std::ranges::range_value_t<R>>;

// A contiguous range of items that can be written through a span.
template <class R>
concept writable_item_range =
    item_range<R> && !std::is_const_v<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

template <class R>
using item_of = std::ranges::range_value_t<R>;

template <class R>
std::span<const item_of<R>> as_input_span(const R& r) {
  return {std::ranges::data(r), static_cast<std::size_t>(std::ranges::size(r))};
}

template <class R>
std::span<item_of<R>> as_output_span(R&& r) {
  return {std::ranges::data(r), static_cast<std::size_t>(std::ranges::size(r))};
}

class global_indexer {
 public:
  // Collective: builds the plan for this rank's `indices` (any length,
  // duplicates allowed) over `dist`. Throws on every rank if any rank has an
  // index outside [0, dist.global_size()) or `dist` does not fit `comm`.
  // Cost: O(indices + nranks) work; two MPI_Allreduce, one MPI_Alltoall, one MPI_Alltoallv.
  global_indexer(const distribution& dist, std::span<const std::int64_t> indices, MPI_Comm comm);

  // The distribution the plan was built over; O(1).
  const distribution& dist() const { return dist_; }
  // The communicator of the plan; O(1).
  MPI_Comm comm() const { return comm_; }
  // Number of indices this rank requested; O(1).
  std::int64_t size() const { return n_requests_; }
  // Number of requests this rank serves as an owner (all ranks together); O(1).
  std::int64_t served_size() const { return static_cast<std::int64_t>(served_.size()); }

  // Per owned item, how many requests (from all ranks) name it; O(local items + served).
  std::vector<std::int64_t> access_counts() const;

  // ---- take ---------------------------------------------------------------

  // Collective: out[k*count + c] = dist_data at global item indices[k], value c.
  // Cost: O(served*count + size()*count) copies plus one exchange of that volume.
  template <item_range In, writable_item_range Out>
  void take(const In& dist_data, Out&& out, int count = 1) const {
    take_into(as_input_span(dist_data), as_output_span(out), count);
  }

  // Collective: the allocating form of take; returns size()*count items.
  template <item_range In>
  std::vector<item_of<In>> take(const In& dist_data, int count = 1) const {
    std::vector<item_of<In>> out(count >= 1 ? static_cast<std::size_t>(n_requests_ * count) : 0);
    take_into(as_input_span(dist_data), std::span<item_of<In>>(out), count);
    return out;
  }

  // ---- put ----------------------------------------------------------------

  // Collective: writes part_data (size()*count items) at this rank's indices
  // into dist_data (local_size*count items), combining with `op`.
  // Cost: O(size()*count + served*count) plus one exchange of that volume.
  template <item_range In, writable_item_range Out>
  void put(const In& part_data, Out&& dist_data, int count = 1, reduce_op op = reduce_op::none) const {
    put_into(as_input_span(part_data), as_output_span(dist_data), count, op);
  }

  // Collective: the allocating form of put; unwritten items are T{} (or the
  // identity of `op`, so a reduction sees only the writes).
  template <item_range In>
  std::vector<item_of<In>> put(const In& part_data, int count = 1, reduce_op op = reduce_op::none) const {
    using T = item_of<In>;
    std::int64_t n = count >= 1 ? dist_.local_size() * count : 0;
    std::vector<T> out(static_cast<std::size_t>(n), initial_for<T>(op));
    put_into(as_input_span(part_data), std::span<T>(out), count, op);
    return out;
  }

  // ---- take_v / put_v -------------------------------------------------------

  // Collective: item k of the result is the owned item indices[k], whose
  // length is dist_counts of that item. Cost: O(size() + served + moved
  // elements); two exchanges (counts, then data).
  template <mpi_item T>
  variable<T> take_v(std::span<const std::int64_t> dist_counts, std::span<const T> dist_data) const {
    variable<T> result;
    take_v(dist_counts, dist_data, result);
    return result;
  }

  // Collective: as take_v, into `out` (its previous content is replaced): a
  // caller that repeats the exchange reuses out's storage, so the call neither
  // allocates nor touches fresh pages once the sizes have been seen.
  template <mpi_item T>
  void take_v(std::span<const std::int64_t> dist_counts, std::span<const T> dist_data, variable<T>& out) const;

  template <class Counts, item_range Data>
  variable<item_of<Data>> take_v(const Counts& dist_counts, const Data& dist_data) const {
    return take_v(std::span<const std::int64_t>(dist_counts), as_input_span(dist_data));
  }

  template <class Counts, item_range Data>
  void take_v(const Counts& dist_counts, const Data& dist_data, variable<item_of<Data>>& out) const {
    take_v(std::span<const std::int64_t>(dist_counts), as_input_span(dist_data), out);
  }

  // Collective: writes item k (length part_counts[k]) at indices[k]; returns
  // the owned items. Unwritten items are empty; `mode` chooses between the
  // last write and the concatenation of all writes. Cost: as take_v.
  template <mpi_item T>
  variable<T> put_v(std::span<const std::int64_t> part_counts, std::span<const T> part_data,
                    put_mode mode = put_mode::replace) const {
    return put_v_impl<T>(part_counts, part_data, nullptr, mode);
  }

  // Collective: as put_v, starting from `initial` (the owned items): unwritten
  // items keep it, and extend appends the writes after it.
  template <mpi_item T>
  variable<T> put_v(std::span<const std::int64_t> part_counts, std::span<const T> part_data,
                    const variable<T>& initial, put_mode mode) const {
    return put_v_impl<T>(part_counts, part_data, &initial, mode);
  }

  template <class Counts, item_range Data>
  variable<item_of<Data>> put_v(const Counts& part_counts, const Data& part_data,
                                put_mode mode = put_mode::replace) const {
    return put_v(std::span<const std::int64_t>(part_counts), as_input_span(part_data), mode);
  }

  template <class Counts, item_range Data>
  variable<item_of<Data>> put_v(const Counts& part_counts, const Data& part_data,
                                const variable<item_of<Data>>& initial, put_mode mode) const {
    return put_v(std::span<const std::int64_t>(part_counts), as_input_span(part_data), initial, mode);
  }

 private:
  enum class direction { to_owners, from_owners };

  template <class T>
  static T initial_for(reduce_op op) {
    if constexpr (std::is_arithmetic_v<T>) return identity<T>(op);
    else return T{};
  }

  detail::error_collector errors(const char* operation) const { return {operation, dist_.rank()}; }

  // The scratch buffers kept between calls (see scratch()).
  enum buffer : std::size_t { send_buf, recv_buf, send_len_buf, recv_len_buf, offsets_buf, n_buffers };

  // Storage for n items of T in a buffer kept between calls: repeated
  // exchanges neither allocate nor fault in fresh pages. The items are
  // written (by copies or by MPI) before they are read. A later call for the
  // same buffer may move it.
  template <class T>
  T* scratch(buffer which, std::size_t n) const {
    static_assert(alignof(T) <= alignof(std::max_align_t));
    std::vector<std::max_align_t>& storage = scratch_[which];
    const std::size_t words = (n * sizeof(T) + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
    if (storage.size() < words) storage.resize(words);
    return reinterpret_cast<T*>(storage.data());
  }
  // count as a size, once agree() has ruled out count < 1 (which it states to
  // the optimiser as well, so it does not warn about negative copies).
  static std::size_t group_size(int count) {
    if (count < 1) std::abort();
    return static_cast<std::size_t>(count);
  }
  void check_count(detail::error_collector& errors, int count) const;

  // One exchange of `count` values per request; `send` and `recv` are in
  // sorted-request order (requester side) or served order (owner side).
  void exchange_fixed(direction dir, const void* send, void* recv, std::int64_t count, MPI_Datatype type) const;

  // Exchanges per-request lengths, then the elements. The lengths that arrive
  // go to recv_lengths (served_size() or size() of them, in served order or
  // sorted-request order); the elements go to recv_data(total), a callable
  // returning storage for `total` elements. `sender_max` is the agreed maximum
  // over ranks of the elements one rank sends, or -1 if unknown (see
  // variable_extent).
  template <mpi_item T, class RecvData>
  void exchange_variable(direction dir, std::span<const std::int64_t> lengths, const T* data,
                         std::int64_t* recv_lengths, RecvData&& recv_data, std::int64_t sender_max) const;

  // The global extent alltoallv needs, for a variable exchange whose largest
  // sender sends `sender_max` elements: no rank receives more than
  // nranks * sender_max, so while that fits the int-count path it is the
  // answer without communication; otherwise (or if sender_max is -1) the
  // exact maximum of `local_extent` is agreed (one MPI_Allreduce on MPI-3).
  std::int64_t variable_extent(std::int64_t sender_max, std::int64_t local_extent) const;

  template <indexer_item T>
  void take_into(std::span<const T> dist_data, std::span<T> out, int count) const;
  template <indexer_item T>
  void put_into(std::span<const T> part_data, std::span<T> dist_data, int count, reduce_op op) const;
  template <mpi_item T>
  variable<T> put_v_impl(std::span<const std::int64_t> part_counts, std::span<const T> part_data,
                         const variable<T>* initial, put_mode mode) const;

  static void check_variable(detail::error_collector& errors, const char* what, std::int64_t expected_items,
                             std::span<const std::int64_t> counts, std::int64_t data_size);

  distribution dist_;
  MPI_Comm comm_;
  std::int64_t n_requests_ = 0;
  // order_[k]: the request position of the k-th request once sorted (stably) by owner.
  std::vector<std::int64_t> order_;
  bool order_is_identity_ = true;
  // Requests per owner rank and their start in the sorted requests.
  std::vector<std::int64_t> send_counts_, send_displs_;
  // Requests served per requesting rank and their start in served_.
  std::vector<std::int64_t> recv_counts_, recv_displs_;
  // served_[j]: local item named by the j-th request served, grouped by
  // requesting rank in rank order, each group in the requester's position order.
  std::vector<std::int64_t> served_;
  // The maximum over ranks of max(size(), served_size()).
  std::int64_t global_max_requests_ = 0;
  // Send and receive buffers (data, lengths, offsets) of every operation,
  // reused between calls (so one global_indexer must not be used by two
  // threads at once).
  mutable std::vector<std::max_align_t> scratch_[n_buffers];
};

// ---- template definitions ---------------------------------------------------

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

template <indexer_item T>
void global_indexer::take_into(std::span<const T> dist_data, std::span<T> out, int count) const {
  auto errs = errors("dist::global_indexer::take");
  check_count(errs, count);
  if (!errs.failed()) {
    detail::check_same_size_into(errs, "dist_data", static_cast<std::int64_t>(dist_data.size()),
                                 "local_size*count", dist_.local_size() * count);
    detail::check_same_size_into(errs, "out", static_cast<std::int64_t>(out.size()), "size()*count",
                                 n_requests_ * count);
  }
  detail::agree(comm_, errs, 0, {"count", count});
  const std::size_t c = group_size(count);

  if constexpr (mpi_item<T>) {
    // The owner gathers the requested items, in served order. One item per
    // request is an assignment: a copy_n of runtime length would be a
    // memmove call per item.
    const std::size_t n_served = served_.size();
    T* served_items = scratch<T>(send_buf, n_served * c);
    const T* from = dist_data.data();
    const std::int64_t* ids = served_.data();
    if (c == 1) {
      for (std::size_t j = 0; j < n_served; ++j) served_items[j] = from[ids[j]];
    } else {
      for (std::size_t j = 0; j < n_served; ++j) std::copy_n(from + ids[j] * count, c, served_items + j * c);
    }
    if (order_is_identity_) {
      exchange_fixed(direction::from_owners, served_items, out.data(), count, datatype<T>());
      return;
    }
    T* sorted = scratch<T>(recv_buf, static_cast<std::size_t>(n_requests_) * c);
    exchange_fixed(direction::from_owners, served_items, sorted, count, datatype<T>());
    T* to = out.data();
    const std::int64_t* order = order_.data();
    const std::size_t n = order_.size();
    if (c == 1) {
      for (std::size_t k = 0; k < n; ++k) to[order[k]] = sorted[k];
    } else {
      for (std::size_t k = 0; k < n; ++k) std::copy_n(sorted + k * c, c, to + order[k] * count);
    }
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
void global_indexer::put_into(std::span<const T> part_data, std::span<T> dist_data, int count, reduce_op op) const {
  auto errs = errors("dist::global_indexer::put");
  check_count(errs, count);
  if (!errs.failed()) {
    detail::check_same_size_into(errs, "part_data", static_cast<std::int64_t>(part_data.size()), "size()*count",
                                 n_requests_ * count);
    detail::check_same_size_into(errs, "dist_data", static_cast<std::int64_t>(dist_data.size()),
                                 "local_size*count", dist_.local_size() * count);
  }
  if (!supports<T>(op)) errs.invalid("reduce_op::", name(op), " cannot combine items of this type");
  detail::agree(comm_, errs, 0, {"count", count});
  const std::size_t c = group_size(count);

  if constexpr (mpi_item<T>) {
    const T* send = part_data.data();
    const std::int64_t* order = order_.data();
    const std::size_t n = order_.size();
    if (!order_is_identity_) {
      T* sorted = scratch<T>(send_buf, static_cast<std::size_t>(n_requests_) * c);
      if (c == 1) {
        for (std::size_t k = 0; k < n; ++k) sorted[k] = send[order[k]];
      } else {
        for (std::size_t k = 0; k < n; ++k) std::copy_n(send + order[k] * count, c, sorted + k * c);
      }
      send = sorted;
    }
    T* arrived = scratch<T>(recv_buf, served_.size() * c);
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
  if (!errs.failed()) {
    starts[0] = 0;
    std::inclusive_scan(dist_counts.begin(), dist_counts.end(), starts + 1);
    for (std::size_t j = 0; j < n_served; ++j) served_total += served_counts[j] = dist_counts[served_[j]];
  }
  const std::int64_t sender_max = detail::agree(comm_, errs, served_total);

  T* served_data = scratch<T>(send_buf, static_cast<std::size_t>(served_total));
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
                    {"put_mode", static_cast<std::int64_t>(mode)});

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
