// Distributions of global items over ranks (see vseg/dist/distribution.hpp).
#include "vseg/dist/distribution.hpp"

#include <algorithm>

#include "vseg/dist/detail/collective_check.hpp"
#include "vseg/dist/detail/exchange.hpp"

namespace vseg::dist {

namespace {

struct comm_info {
  int rank = 0;
  int nranks = 1;
};

comm_info info(MPI_Comm comm) {
  comm_info result;
  detail::check_mpi(MPI_Comm_rank(comm, &result.rank), "MPI_Comm_rank");
  detail::check_mpi(MPI_Comm_size(comm, &result.nranks), "MPI_Comm_size");
  return result;
}

}  // namespace

distribution distribution::from_offsets(std::vector<std::int64_t> offsets, MPI_Comm comm) {
  const auto [rank, nranks] = info(comm);
  detail::error_collector errors("dist::distribution::from_offsets", rank);
  const auto size = static_cast<std::int64_t>(offsets.size());
  if (size != nranks + 1) {
    errors.invalid("offsets has size ", size, " but the communicator has ", nranks, " ranks (expected ", nranks + 1,
                   ")");
  } else if (offsets[0] != 0) {
    errors.invalid("offsets[0] is ", offsets[0], ", not 0");
  } else {
    for (int r = 0; r < nranks; ++r)
      if (offsets[r + 1] < offsets[r]) {
        errors.invalid("offsets decrease at ", r + 1, ": ", offsets[r], " then ", offsets[r + 1]);
        break;
      }
  }
  // The same allreduce checks that the offsets are identical on all ranks; a
  // rank whose offsets have the wrong size has already failed, and passes
  // nranks+1 values all the same so that every rank reduces the same length.
  std::vector<std::int64_t> compared = offsets;
  compared.resize(static_cast<std::size_t>(nranks) + 1, 0);
  detail::agree(comm, errors, 0, {}, {"offsets", compared});
  return distribution(std::move(offsets), rank);
}

distribution distribution::from_local_size(std::int64_t n_local, MPI_Comm comm) {
  const auto [rank, nranks] = info(comm);
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(nranks));
  detail::check_mpi(MPI_Allgather(&n_local, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, comm), "MPI_Allgather");
  // Every rank holds every size, so every rank finds the same error (the
  // lowest offending rank) and throws the same message without communicating.
  const char* operation = "dist::distribution::from_local_size";
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(nranks) + 1, 0);
  for (int r = 0; r < nranks; ++r) {
    if (sizes[r] < 0) vseg::detail::throw_invalid(operation, "rank ", r, ": n_local is ", sizes[r], ", negative");
    if (!detail::add_checked(offsets[r], sizes[r], offsets[r + 1]))
      vseg::detail::throw_overflow(operation, "rank ", r, ": n_local is ", sizes[r], ", and with the ", offsets[r],
                                   " items of ranks 0..", r - 1, " the global size passes 2^63-1");
  }
  return distribution(std::move(offsets), rank);
}

distribution distribution::uniform(std::int64_t n_global, MPI_Comm comm) {
  const auto [rank, nranks] = info(comm);
  detail::error_collector errors("dist::distribution::uniform", rank);
  if (n_global < 0) errors.invalid("n_global is ", n_global, ", negative");
  detail::agree(comm, errors, 0, {{"n_global", n_global}});

  // Every block is at most n_global, so no offset overflows.
  const std::int64_t base = n_global / nranks, extra = n_global % nranks;
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(nranks) + 1, 0);
  for (int r = 0; r < nranks; ++r) offsets[r + 1] = offsets[r] + base + (r < extra ? 1 : 0);
  return distribution(std::move(offsets), rank);
}

int distribution::owner(std::int64_t i) const {
  // The last r with offsets[r] <= i; empty ranks before it are skipped.
  auto after = std::upper_bound(offsets_.begin(), offsets_.end(), i);
  return static_cast<int>(after - offsets_.begin()) - 1;
}

}  // namespace vseg::dist
