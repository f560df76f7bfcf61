// Collective error agreement (see vseg/dist/detail/collective_check.hpp).
#include "vseg/dist/detail/collective_check.hpp"

#include <algorithm>
#include <iterator>
#include <span>
#include <stdexcept>
#include <vector>

#include "vseg/dist/detail/exchange.hpp"

namespace vseg::dist::detail {

namespace {

// Collective (on the failure path): every rank passes its own `value` of a
// quantity the ranks disagree on. Gathers the values and throws, on every
// rank, the same std::invalid_argument naming the lowest rank whose value
// differs from the most common one (ties go to the value of the lowest rank),
// so the message blames the odd rank rather than the majority.
[[noreturn]] void throw_disagreement(MPI_Comm comm, int nranks, std::string_view operation, std::string_view what,
                                     std::int64_t value, std::string (*show)(std::int64_t)) {
  std::vector<std::int64_t> values(static_cast<std::size_t>(nranks));
  check_mpi(MPI_Allgather(&value, 1, MPI_INT64_T, values.data(), 1, MPI_INT64_T, comm), "MPI_Allgather");
  // The most common value and the first rank holding it: O(nranks^2) on the
  // failure path only (nranks is at most a few thousand).
  int common = 0;
  std::ptrdiff_t common_count = 0;
  for (int r = 0; r < nranks; ++r) {
    const std::ptrdiff_t n = std::count(values.begin(), values.end(), values[r]);
    if (n > common_count) common = r, common_count = n;
  }
  int odd = 0;
  while (values[odd] == values[common]) ++odd;  // some rank differs: the allreduce said so
  auto text = [show](std::int64_t v) { return show ? show(v) : std::to_string(v); };
  throw std::invalid_argument(vseg::detail::message(operation, "ranks disagree on ", what, ": rank ", odd, " has ",
                                                    text(values[odd]), ", rank ", common, " has ",
                                                    text(values[common]), " (the value of ", common_count, " of ",
                                                    nranks, " ranks)"));
}

// Collective: broadcasts the error of rank `root` and throws it on every rank.
[[noreturn]] void throw_error_of(MPI_Comm comm, int rank, int root, const error_collector& errors) {
  int header[2] = {0, 0};
  std::string text;
  if (rank == root) {
    header[0] = static_cast<int>(errors.error()->kind);
    header[1] = static_cast<int>(std::min<std::size_t>(errors.error()->message.size(), 1 << 20));
    text = errors.error()->message;
  }
  check_mpi(MPI_Bcast(header, 2, MPI_INT, root, comm), "MPI_Bcast");
  text.resize(static_cast<std::size_t>(header[1]));
  check_mpi(MPI_Bcast(text.data(), header[1], MPI_CHAR, root, comm), "MPI_Bcast");
  switch (static_cast<error_kind>(header[0])) {
    case error_kind::out_of_range: throw std::out_of_range(text);
    case error_kind::overflow: throw std::overflow_error(text);
    case error_kind::invalid_argument: break;
  }
  throw std::invalid_argument(text);
}

}  // namespace

std::int64_t agree(MPI_Comm comm, const error_collector& errors, std::int64_t local_extent,
                   std::initializer_list<must_match> same, must_match_each same_each) {
  int rank = 0, nranks = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &nranks), "MPI_Comm_size");
  // Slot 0: nranks - rank on a failing rank, so the maximum names the lowest
  // one. Slot 1: the extent. Then every value v as the pair (v, ~v): the
  // maximum of ~v is ~(minimum of v), so one MPI_MAX gives both bounds (~v,
  // unlike -v, cannot overflow).
  const std::size_t n_values = same.size() + same_each.values.size();
  // The common case (a count and a mode) stays on the stack: take and put
  // call this once per exchange.
  std::int64_t small[8];
  std::vector<std::int64_t> large;
  const std::size_t n_slots = 2 + 2 * n_values;
  if (n_slots > std::size(small)) large.resize(n_slots);
  std::span<std::int64_t> slots(n_slots > std::size(small) ? large.data() : small, n_slots);
  slots[0] = errors.failed() ? nranks - rank : 0;
  slots[1] = local_extent;
  std::size_t at = 2;
  for (const must_match& m : same) slots[at] = m.value, slots[at + 1] = ~m.value, at += 2;
  for (std::int64_t v : same_each.values) slots[at] = v, slots[at + 1] = ~v, at += 2;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, slots.data(), static_cast<int>(slots.size()), MPI_INT64_T, MPI_MAX, comm),
            "MPI_Allreduce");

  // A rank's own finding comes first: it is the more specific message.
  if (slots[0] != 0) throw_error_of(comm, rank, nranks - static_cast<int>(slots[0]), errors);
  auto differs = [&slots](std::size_t i) { return slots[2 + 2 * i] != ~slots[3 + 2 * i]; };
  std::size_t i = 0;
  for (const must_match& m : same) {
    if (differs(i)) throw_disagreement(comm, nranks, errors.operation(), m.what, m.value, m.show);
    ++i;
  }
  for (std::size_t k = 0; k < same_each.values.size(); ++k, ++i)
    if (differs(i))
      throw_disagreement(comm, nranks, errors.operation(), std::string(same_each.what) + "[" + std::to_string(k) + "]",
                         same_each.values[k], nullptr);
  return slots[1];
}

}  // namespace vseg::dist::detail
