// The global indexer: a communication plan built once, collectively, from a
// distribution and every rank's list of global indices, then reused by take,
// put, take_v and put_v. Building it sorts each rank's requests by owner and
// sends them to the owners (MPI_Alltoall of counts, MPI_Alltoallv of
// indices); every later operation is one data exchange along that plan (two
// for variable-length items: counts, then data).
//
// Every operation checks its input on every rank first, in one small
// allreduce that also makes the ranks agree on the distribution, count,
// reduce_op and put_mode: bad input on any rank throws the same exception on
// every rank (notes/distributed.md, "Collective agreement").
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
#include <limits>
#include <numeric>
#include <ranges>
#include <span>
#include <stdexcept>
#include <string>
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
  // index outside [0, dist.global_size()), `dist` does not fit `comm`, or the
  // ranks passed different distributions. Cost: O(indices + nranks) work; two
  // MPI_Allreduce (one of 2*nranks+4 integers), one MPI_Alltoall, one MPI_Alltoallv.
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
    take_into(as_input_span(dist_data), as_output_span(out), count, errors("dist::global_indexer::take"));
  }

  // Collective: the allocating form of take; returns size()*count items.
  template <item_range In>
  std::vector<item_of<In>> take(const In& dist_data, int count = 1) const {
    using T = item_of<In>;
    auto errs = errors("dist::global_indexer::take");
    std::vector<T> out;
    allocate_result(errs, out, n_requests_, "size()", count, T{});
    take_into(as_input_span(dist_data), std::span<T>(out), count, std::move(errs));
    return out;
  }

  // Collective: take of one item per request without the agreement's
  // MPI_Allreduce, for a caller that reuses this plan (the lifted index_l's
  // gather plan). Nothing can differ between ranks there: the plan is
  // immutable and was agreed when built, the count is 1, and the caller
  // checks the sizes against the plan, the same way on every rank (a
  // mismatch here is a caller bug: std::logic_error on this rank). The first
  // call per item size is the checked take (one MPI_Allreduce), which also
  // allocates the buffers later calls reuse, so they allocate nothing and
  // cannot fail on one rank alone. `work` runs once, while the exchange is
  // in flight (detail::meanwhile; before the checked take). Cost: as take,
  // minus the MPI_Allreduce.
  template <mpi_item T>
  void take_agreed(std::span<const T> dist_data, std::span<T> out, detail::meanwhile work = {}) const;

  // ---- put ----------------------------------------------------------------

  // Collective: writes part_data (size()*count items) at this rank's indices
  // into dist_data (local_size*count items), combining with `op`.
  // Cost: O(size()*count + served*count) plus one exchange of that volume.
  template <item_range In, writable_item_range Out>
  void put(const In& part_data, Out&& dist_data, int count = 1, reduce_op op = reduce_op::none) const {
    put_into(as_input_span(part_data), as_output_span(dist_data), count, op, errors("dist::global_indexer::put"));
  }

  // Collective: the allocating form of put; unwritten items are T{} (or the
  // identity of `op`, so a reduction sees only the writes).
  template <item_range In>
  std::vector<item_of<In>> put(const In& part_data, int count = 1, reduce_op op = reduce_op::none) const {
    using T = item_of<In>;
    auto errs = errors("dist::global_indexer::put");
    std::vector<T> out;
    allocate_result(errs, out, dist_.local_size(), "local_size", count, initial_for<T>(op));
    put_into(as_input_span(part_data), std::span<T>(out), count, op, std::move(errs));
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

  // Sizes `out` to items*count copies of `value` for an allocating take or
  // put. An overflowing size or a failed allocation is recorded in `errs`
  // (and `out` left empty) rather than thrown, so that every rank fails
  // together in the agreement that follows; O(items*count).
  template <class T>
  static void allocate_result(detail::error_collector& errs, std::vector<T>& out, std::int64_t items,
                              const char* items_name, int count, const T& value) {
    std::int64_t n = 0;
    if (count < 1) return;  // reported by check_count
    if (!detail::multiply_checked(items, count, n)) {
      errs.overflow(items_name, "*count overflows int64: ", items, " * ", count);
      return;
    }
    try {
      out.assign(static_cast<std::size_t>(n), value);
    } catch (const std::exception& e) {  // std::bad_alloc, std::length_error
      errs.invalid("count is ", count, ": the result of ", n, " items cannot be allocated (", e.what(), ")");
    }
  }

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
    if (n > std::numeric_limits<std::size_t>::max() / 2 / sizeof(T))
      throw std::length_error("vseg::dist::global_indexer: a scratch buffer of " + std::to_string(n) +
                              " items is too large");
    const std::size_t words = (n * sizeof(T) + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
    if (storage.size() < words) storage.resize(words);
    return reinterpret_cast<T*>(storage.data());
  }
  // scratch() for items*count values, taken before an agreement: a size past
  // int64 or a failed allocation is recorded in `errs` (nullptr returned), so
  // that every rank fails together. Nothing is taken once `errs` has failed.
  template <class T>
  T* reserve(detail::error_collector& errs, buffer which, std::size_t items, int count) const {
    std::int64_t n = 0;
    if (errs.failed()) return nullptr;
    if (!detail::multiply_checked(static_cast<std::int64_t>(items), count, n)) {
      errs.overflow("a buffer of ", items, " * ", count, " items overflows int64");
      return nullptr;
    }
    try {
      return scratch<T>(which, static_cast<std::size_t>(n));
    } catch (const std::exception& e) {  // std::bad_alloc, std::length_error
      errs.invalid("a buffer of ", items, " * ", count, " items cannot be allocated (", e.what(), ")");
      return nullptr;
    }
  }
  // count as a size, once agree() has ruled out count < 1 (which it states to
  // the optimiser as well, so it does not warn about negative copies).
  static std::size_t group_size(int count) {
    if (count < 1) std::abort();
    return static_cast<std::size_t>(count);
  }
  void check_count(detail::error_collector& errors, int count) const;

  // Gathers the served items from `from`, exchanges them and writes them to
  // `to` in request order (through `sorted` unless the order is the
  // identity); the buffers are taken and the ranks agreed beforehand; `work`
  // runs while the exchange is in flight.
  template <mpi_item T>
  void take_exchange(const T* from, T* to, int count, T* served_items, T* sorted,
                     detail::meanwhile work = {}) const;
  // One exchange of `count` values per request; `send` and `recv` are in
  // sorted-request order (requester side) or served order (owner side).
  void exchange_fixed(direction dir, const void* send, void* recv, std::int64_t count, MPI_Datatype type,
                      detail::meanwhile work = {}) const;

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

  // The checks (recorded in `errs`, which may hold an allocation failure
  // already), their agreement, then the exchange.
  template <indexer_item T>
  void take_into(std::span<const T> dist_data, std::span<T> out, int count, detail::error_collector errs) const;
  template <indexer_item T>
  void put_into(std::span<const T> part_data, std::span<T> dist_data, int count, reduce_op op,
                detail::error_collector errs) const;
  template <mpi_item T>
  variable<T> put_v_impl(std::span<const std::int64_t> part_counts, std::span<const T> part_data,
                         const variable<T>* initial, put_mode mode) const;

  static void check_variable(detail::error_collector& errors, const char* what, std::int64_t expected_items,
                             std::span<const std::int64_t> counts, std::int64_t data_size);
  // Names of the enumerators, for the messages of agree().
  static std::string show_reduce_op(std::int64_t op);
  static std::string show_put_mode(std::int64_t mode);

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
  // The largest item size a checked take of one item per request has
  // completed with (on every rank together): take_agreed's buffers are held.
  mutable std::size_t agreed_item_bytes_ = 0;
};

}  // namespace vseg::dist

// The definitions of the member templates above.
#include "vseg/dist/detail/global_indexer_templates.hpp"
