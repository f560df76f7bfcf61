// The 2D process mesh and the plan of its row fold (see vseg/dist/mesh.hpp).
#include "vseg/dist/mesh.hpp"

#include <limits>

namespace vseg::dist {

process_mesh::process_mesh(const sharding& spec, MPI_Comm comm) : spec_(sharding::mesh()) {
  int rank = 0, p = 1;
  detail::check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  detail::check_mpi(MPI_Comm_size(comm, &p), "MPI_Comm_size");
  detail::error_collector errs("dist::process_mesh", rank);
  const int r = spec.mesh_rows(), c = spec.mesh_cols();
  if (spec.type() != sharding::kind::mesh) {
    errs.invalid("needs a mesh spec, not ", spec);
  } else if (r < 0 || c < 0) {
    errs.invalid(spec, " has a negative dimension");
  } else if (r > 0 && c > 0 && static_cast<std::int64_t>(r) * c != p) {
    errs.invalid(spec, " has ", static_cast<std::int64_t>(r) * c, " ranks but the communicator has ", p);
  } else if ((r > 0 && p % r != 0) || (c > 0 && p % c != 0)) {
    errs.invalid(spec, " does not divide the communicator's ", p, " ranks");
  }
  detail::agree(comm, errs, 0,
                {{"the sharding kind", static_cast<std::int64_t>(spec.type())},
                 {"the mesh rows", r},
                 {"the mesh columns", c}});
  int dims[2] = {r, c}, periods[2] = {0, 0}, coords[2] = {0, 0};
  detail::check_mpi(MPI_Dims_create(p, 2, dims), "MPI_Dims_create");
  spec_ = sharding::mesh(dims[0], dims[1]);
  detail::check_mpi(MPI_Cart_create(comm, 2, dims, periods, 0, &cart_), "MPI_Cart_create");
  int cart_rank = 0;
  detail::check_mpi(MPI_Comm_rank(cart_, &cart_rank), "MPI_Comm_rank");
  detail::check_mpi(MPI_Cart_coords(cart_, cart_rank, 2, coords), "MPI_Cart_coords");
  row_ = coords[0];
  col_ = coords[1];
  int along_row[2] = {0, 1}, along_col[2] = {1, 0};
  detail::check_mpi(MPI_Cart_sub(cart_, along_row, &row_comm_), "MPI_Cart_sub");
  detail::check_mpi(MPI_Cart_sub(cart_, along_col, &col_comm_), "MPI_Cart_sub");
}

process_mesh::~process_mesh() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  for (MPI_Comm* c : {&col_comm_, &row_comm_, &cart_})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
}

namespace detail {

std::shared_ptr<const row_fold> plan_row_fold(std::shared_ptr<const process_mesh> mesh,
                                              const array<std::int64_t>& lengths) {
  const int c = mesh->cols(), j = mesh->col();
  const std::int64_t rows = lengths.size();
  // Every rank of the process row must hold the same rows.
  std::vector<std::int64_t> counts(static_cast<std::size_t>(c));
  check_mpi(MPI_Allgather(&rows, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, mesh->row_comm()), "MPI_Allgather");
  int rank = 0;
  MPI_Comm_rank(mesh->comm(), &rank);
  error_collector errs("dist::mesh_block", rank);
  for (int q = 0; q < c; ++q)
    if (counts[static_cast<std::size_t>(q)] != rows) {
      errs.invalid("process row ", mesh->row(), ": rank (", mesh->row(), ", ", q, ") holds ",
                   counts[static_cast<std::size_t>(q)], " rows but rank (", mesh->row(), ", ", j, ") holds ", rows);
      break;
    }
  if (rows > std::numeric_limits<int>::max()) errs.invalid("a block of ", rows, " rows is past the int counts of MPI");
  agree(mesh->comm(), errs);

  auto plan = std::make_shared<row_fold>();
  plan->mesh = mesh;
  const std::int64_t first_owned = equal_part_start(rows, c, j);
  plan->owned = equal_part_start(rows, c, j + 1) - first_owned;
  const auto slots = static_cast<std::size_t>(c);
  plan->send_counts.assign(slots, 0);
  plan->send_displs.assign(slots, 0);
  plan->recv_counts.assign(slots, 0);
  plan->recv_displs.assign(slots, 0);
  // Rows are in order, and the owners' parts are too: the sent rows come out
  // grouped by destination.
  int q = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    while (r >= equal_part_start(rows, c, q + 1)) ++q;
    if (lengths[r] == 0) continue;
    plan->send_rows.push_back(r);
    ++plan->send_counts[static_cast<std::size_t>(q)];
  }
  check_mpi(MPI_Alltoall(plan->send_counts.data(), 1, MPI_INT, plan->recv_counts.data(), 1, MPI_INT,
                         mesh->row_comm()),
            "MPI_Alltoall");
  for (std::size_t t = 1; t < slots; ++t) {
    plan->send_displs[t] = plan->send_displs[t - 1] + plan->send_counts[t - 1];
    plan->recv_displs[t] = plan->recv_displs[t - 1] + plan->recv_counts[t - 1];
  }
  plan->recv_rows.resize(static_cast<std::size_t>(plan->recv_displs[slots - 1] + plan->recv_counts[slots - 1]));
  check_mpi(MPI_Alltoallv(plan->send_rows.data(), plan->send_counts.data(), plan->send_displs.data(), MPI_INT64_T,
                          plan->recv_rows.data(), plan->recv_counts.data(), plan->recv_displs.data(), MPI_INT64_T,
                          mesh->row_comm()),
            "MPI_Alltoallv");
  for (auto& r : plan->recv_rows) r -= first_owned;
  return plan;
}

}  // namespace detail

}  // namespace vseg::dist
