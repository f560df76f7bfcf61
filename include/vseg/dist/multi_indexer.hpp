// Several index lists per rank (possibly none) served by one global indexer:
// the lists are concatenated, so each operation is still one exchange, and
// the results are split back into one vector per list. Within a rank, a later
// list counts as a later position when writes conflict.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vseg/dist/global_indexer.hpp"

namespace vseg::dist {

class multi_indexer {
 public:
  // Collective: one plan for all of this rank's lists. Throws on every rank as
  // global_indexer does. Cost: O(total indices + nranks) plus the plan exchange.
  multi_indexer(const distribution& dist, std::vector<std::vector<std::int64_t>> index_lists, MPI_Comm comm)
      : list_starts_(starts_of(index_lists)), indexer_(dist, concatenate(index_lists), comm) {}

  // Number of index lists on this rank; O(1).
  std::size_t lists() const { return list_starts_.size() - 1; }
  // Length of list l; O(1).
  std::int64_t list_size(std::size_t l) const { return list_starts_[l + 1] - list_starts_[l]; }
  // The plan over the concatenated lists; O(1).
  const global_indexer& indexer() const { return indexer_; }

  // Collective: one vector per list of the items it names (count values each).
  // Cost: one global_indexer::take over all lists, plus O(result) copies.
  template <item_range In>
  std::vector<std::vector<item_of<In>>> take(const In& dist_data, int count = 1) const {
    auto all = indexer_.take(dist_data, count);
    std::vector<std::vector<item_of<In>>> result(lists());
    for (std::size_t l = 0; l < lists(); ++l)
      result[l].assign(std::make_move_iterator(all.begin() + list_starts_[l] * count),
                       std::make_move_iterator(all.begin() + list_starts_[l + 1] * count));
    return result;
  }

  // Collective: writes parts[l] (list_size(l)*count items) at list l's indices
  // into dist_data, combining with `op`. Cost: as global_indexer::put.
  template <indexer_item T, writable_item_range Out>
  void put(const std::vector<std::vector<T>>& parts, Out&& dist_data, int count = 1,
           reduce_op op = reduce_op::none) const {
    indexer_.put(concatenate_parts(parts, count), dist_data, count, op);
  }

  // Collective: the allocating form of put (unwritten items T{} or op's identity).
  template <indexer_item T>
  std::vector<T> put(const std::vector<std::vector<T>>& parts, int count = 1, reduce_op op = reduce_op::none) const {
    return indexer_.put(concatenate_parts(parts, count), count, op);
  }

  // Collective: one variable array per list. Cost: as global_indexer::take_v.
  template <mpi_item T>
  std::vector<variable<T>> take_v(std::span<const std::int64_t> dist_counts, std::span<const T> dist_data) const {
    auto all = indexer_.take_v(dist_counts, dist_data);
    std::vector<variable<T>> result(lists());
    std::int64_t at = 0;
    for (std::size_t l = 0; l < lists(); ++l) {
      auto first = all.counts.begin() + list_starts_[l], last = all.counts.begin() + list_starts_[l + 1];
      result[l].counts.assign(first, last);
      const std::int64_t n = std::accumulate(first, last, std::int64_t{0});
      result[l].data.assign(all.data.begin() + at, all.data.begin() + at + n);
      at += n;
    }
    return result;
  }

  // Collective: writes the variable items of every list; as global_indexer::put_v.
  template <mpi_item T>
  variable<T> put_v(const std::vector<variable<T>>& parts, put_mode mode = put_mode::replace) const {
    auto joined = concatenate_variable(parts);
    return indexer_.put_v(std::span<const std::int64_t>(joined.counts), std::span<const T>(joined.data), mode);
  }

  // Collective: as put_v, starting from `initial` (the owned items).
  template <mpi_item T>
  variable<T> put_v(const std::vector<variable<T>>& parts, const variable<T>& initial, put_mode mode) const {
    auto joined = concatenate_variable(parts);
    return indexer_.put_v(std::span<const std::int64_t>(joined.counts), std::span<const T>(joined.data), initial,
                          mode);
  }

 private:
  static std::vector<std::int64_t> starts_of(const std::vector<std::vector<std::int64_t>>& lists) {
    std::vector<std::int64_t> starts(lists.size() + 1, 0);
    for (std::size_t l = 0; l < lists.size(); ++l)
      starts[l + 1] = starts[l] + static_cast<std::int64_t>(lists[l].size());
    return starts;
  }

  static std::vector<std::int64_t> concatenate(const std::vector<std::vector<std::int64_t>>& lists) {
    std::vector<std::int64_t> all;
    for (const auto& list : lists) all.insert(all.end(), list.begin(), list.end());
    return all;
  }

  // Joins the parts after checking (collectively) that they match the lists.
  template <class T>
  std::vector<T> concatenate_parts(const std::vector<std::vector<T>>& parts, int count) const {
    detail::error_collector errs("dist::multi_indexer::put", indexer_.dist().rank());
    if (parts.size() != lists()) {
      errs.invalid("parts has ", parts.size(), " lists but the indexer has ", lists());
    } else if (count >= 1) {
      for (std::size_t l = 0; l < parts.size(); ++l)
        if (std::int64_t expected = 0; !detail::multiply_checked(list_size(l), count, expected)) {
          errs.overflow("list ", l, " has ", list_size(l), " indices of count ", count, ": the size overflows int64");
          break;
        } else if (static_cast<std::int64_t>(parts[l].size()) != expected) {
          errs.invalid("parts[", l, "] has size ", parts[l].size(), " but list ", l, " has ", list_size(l),
                       " indices of count ", count);
          break;
        }
    }
    detail::agree(indexer_.comm(), errs);
    std::vector<T> all;
    for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
    return all;
  }

  template <class T>
  variable<T> concatenate_variable(const std::vector<variable<T>>& parts) const {
    detail::error_collector errs("dist::multi_indexer::put_v", indexer_.dist().rank());
    if (parts.size() != lists()) {
      errs.invalid("parts has ", parts.size(), " lists but the indexer has ", lists());
    } else {
      for (std::size_t l = 0; l < parts.size(); ++l)
        if (parts[l].size() != list_size(l)) {
          errs.invalid("parts[", l, "] has ", parts[l].size(), " items but list ", l, " has ", list_size(l),
                       " indices");
          break;
        }
    }
    detail::agree(indexer_.comm(), errs);
    variable<T> all;
    for (const auto& part : parts) {
      all.counts.insert(all.counts.end(), part.counts.begin(), part.counts.end());
      all.data.insert(all.data.end(), part.data.begin(), part.data.end());
    }
    return all;
  }

  std::vector<std::int64_t> list_starts_;
  global_indexer indexer_;
};

}  // namespace vseg::dist
