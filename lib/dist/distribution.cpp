// Distributions of global items over ranks (see vseg/dist/distribution.hpp).
#include "vseg/dist/distribution.hpp"

#include <algorithm>
#include <numeric>

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
  detail::agree(comm, errors);

  // Identical on all ranks iff the element-wise minimum equals the maximum.
  // One MPI_MAX over (offsets, -offsets) gives both; the values are >= 0.
  const std::size_t n = offsets.size();
  std::vector<std::int64_t> bounds(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    bounds[i] = offsets[i];
    bounds[n + i] = -offsets[i];
  }
  detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, bounds.data(), static_cast<int>(2 * n), MPI_INT64_T, MPI_MAX, comm),
                    "MPI_Allreduce");
  detail::error_collector differ("dist::distribution::from_offsets", rank);
  for (std::size_t i = 0; i < n; ++i)
    if (bounds[i] != -bounds[n + i]) {
      differ.invalid("offsets differ between ranks at ", i, ": this rank has ", offsets[i], ", the ranks range over [",
                     -bounds[n + i], ", ", bounds[i], "]");
      break;
    }
  detail::agree(comm, differ);
  return distribution(std::move(offsets), rank);
}

distribution distribution::from_local_size(std::int64_t n_local, MPI_Comm comm) {
  const auto [rank, nranks] = info(comm);
  detail::error_collector errors("dist::distribution::from_local_size", rank);
  if (n_local < 0) errors.invalid("n_local is ", n_local, ", negative");
  detail::agree(comm, errors);
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(nranks));
  detail::check_mpi(MPI_Allgather(&n_local, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, comm), "MPI_Allgather");
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(nranks) + 1, 0);
  std::inclusive_scan(sizes.begin(), sizes.end(), offsets.begin() + 1);
  return distribution(std::move(offsets), rank);
}

distribution distribution::uniform(std::int64_t n_global, MPI_Comm comm) {
  const auto [rank, nranks] = info(comm);
  detail::error_collector errors("dist::distribution::uniform", rank);
  if (n_global < 0) errors.invalid("n_global is ", n_global, ", negative");
  detail::agree(comm, errors);
  std::int64_t range[2] = {n_global, -n_global};
  detail::check_mpi(MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
  detail::error_collector differ("dist::distribution::uniform", rank);
  if (range[0] != -range[1])
    differ.invalid("n_global is ", n_global, " here but ranks range over [", -range[1], ", ", range[0], "]");
  detail::agree(comm, differ);

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
