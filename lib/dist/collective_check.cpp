// Collective error agreement (see vseg/dist/detail/collective_check.hpp).
#include "vseg/dist/detail/collective_check.hpp"

#include <stdexcept>

#include "vseg/dist/detail/exchange.hpp"

namespace vseg::dist::detail {

std::int64_t agree(MPI_Comm comm, const error_collector& errors, std::int64_t local_extent, must_match same) {
  int rank = 0, nranks = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &nranks), "MPI_Comm_size");
  // The maximum of (nranks - rank) over failing ranks names the lowest one;
  // the maxima of value and -value give its range over the ranks.
  std::int64_t flags[4] = {errors.failed() ? nranks - rank : 0, local_extent, same.value, -same.value};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, flags, 4, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
  if (flags[0] == 0 && flags[2] != -flags[3])
    throw std::invalid_argument(vseg::detail::message(errors.operation(), same.what, " differs between ranks: from ",
                                                      -flags[3], " to ", flags[2]));
  if (flags[0] == 0) return flags[1];

  const int root = nranks - static_cast<int>(flags[0]);
  int header[2] = {0, 0};
  std::string text;
  if (rank == root) {
    header[0] = static_cast<int>(errors.error()->kind);
    header[1] = static_cast<int>(errors.error()->message.size());
    text = errors.error()->message;
  }
  check_mpi(MPI_Bcast(header, 2, MPI_INT, root, comm), "MPI_Bcast");
  text.resize(static_cast<std::size_t>(header[1]));
  check_mpi(MPI_Bcast(text.data(), header[1], MPI_CHAR, root, comm), "MPI_Bcast");
  if (static_cast<error_kind>(header[0]) == error_kind::out_of_range) throw std::out_of_range(text);
  throw std::invalid_argument(text);
}

}  // namespace vseg::dist::detail
