// The 2D process mesh and the plan of its row fold (see vseg/dist/mesh.hpp).
#include "vseg/dist/mesh.hpp"

#include <algorithm>
#include <limits>
#include <string>

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

std::string to_string(mesh_fold order) {
  switch (order) {
    case mesh_fold::serial: return "mesh_fold::serial";
    case mesh_fold::column_blocks: return "mesh_fold::column_blocks";
  }
  return "mesh_fold(" + std::to_string(static_cast<int>(order)) + ")";
}

namespace detail {

namespace {

// The chain of mesh_fold::serial (detail/mesh_chain.hpp) for a block whose
// local rows have the given lengths. Collective over the mesh: one
// MPI_Allreduce and one MPI_Exscan on the process row (each row's length
// and this rank's offset in it), one MPI_Exscan on the process column (the
// rows and elements of the row blocks above). O(rows).
std::shared_ptr<const row_chain> plan_chain(const process_mesh& mesh, const array<std::int64_t>& lengths) {
  auto c = std::make_shared<row_chain>();
  const std::int64_t rows = lengths.size();
  const auto n = static_cast<std::size_t>(rows);
  c->col = mesh.col();
  c->cols = mesh.cols();
  c->row_comm = mesh.row_comm();
  c->mine.assign(lengths.begin(), lengths.end());
  c->length.assign(n, 0);
  c->offset.assign(n, 0);
  const int count = static_cast<int>(rows);
  check_mpi(MPI_Allreduce(c->mine.data(), c->length.data(), count, MPI_INT64_T, MPI_SUM, mesh.row_comm()),
            "MPI_Allreduce");
  check_mpi(MPI_Exscan(c->mine.data(), c->offset.data(), count, MPI_INT64_T, MPI_SUM, mesh.row_comm()),
            "MPI_Exscan");
  if (mesh.col() == 0) std::fill(c->offset.begin(), c->offset.end(), 0);  // Exscan leaves rank 0's undefined
  // The row blocks above this one: their rows and elements.
  std::int64_t block[2] = {rows, 0}, above[2] = {0, 0};
  for (const std::int64_t len : c->length) block[1] += len;
  check_mpi(MPI_Exscan(block, above, 2, MPI_INT64_T, MPI_SUM, mesh.col_comm()), "MPI_Exscan");
  if (mesh.row() == 0) above[0] = above[1] = 0;
  // Row r's first element is merge step (its global element) + (its global row).
  c->step.resize(n);
  std::int64_t element = above[1];
  for (std::size_t r = 0; r < n; ++r) {
    c->step[r] = element + above[0] + static_cast<std::int64_t>(r);
    element += c->length[r];
  }
  const std::int64_t chunks = std::max<std::int64_t>(1, std::min(rows, chain_chunks));
  for (std::int64_t k = 0; k <= chunks; ++k) c->chunks.push_back(equal_part_start(rows, chunks, k));
  c->in_at.assign(n, -1);
  c->out_at.assign(n, -1);
  c->waiting_at.push_back(0);
  for (std::int64_t k = 0; k < chunks; ++k) {
    std::int64_t in = 0, out = 0;
    char relays = 0;
    for (std::int64_t r = c->chunks[static_cast<std::size_t>(k)]; r < c->chunks[static_cast<std::size_t>(k) + 1]; ++r) {
      const auto u = static_cast<std::size_t>(r);
      const std::int64_t a = c->offset[u], b = a + c->mine[u], len = c->length[u];
      if (a > 0 && a < len) {  // begun on an earlier process column
        c->in_at[u] = in;
        in += state_width(c->step[u], len, a);
      }
      if (b > 0 && b < len) {  // goes on on a later one
        c->out_at[u] = out;
        out += state_width(c->step[u], len, b);
      }
      if (c->in_at[u] >= 0) c->waiting.push_back(r);
      const bool one_piece = uncut(c->step[u], len);
      const bool plain = one_piece && len < tuning::fold_group_min;
      c->plain.push_back(plain ? 1 : one_piece ? 2 : 0);
      const bool idle = a == b && c->out_at[u] < 0 && !finishes_here(*c, r);
      // A plain row with a state in and none out has its end here (b = len);
      // one with a state out and none in begins here (a = 0 < b).
      const bool in = c->in_at[u] >= 0, out = c->out_at[u] >= 0;
      c->kind.push_back(in && plain && !out                               ? row_kind::tail
                        : in                                              ? row_kind::waiting
                        : a == 0 && b == len && uncut(c->step[u], len)    ? row_kind::whole
                        : idle                                            ? row_kind::absent
                        : plain && out && a == 0 && b > 0                 ? row_kind::head
                                                                          : row_kind::independent);
      if (c->in_at[u] >= 0 && c->out_at[u] >= 0) relays = 1;
    }
    c->in_count.push_back(static_cast<int>(in));
    c->out_count.push_back(static_cast<int>(out));
    c->waiting_at.push_back(static_cast<std::int64_t>(c->waiting.size()));
    c->relays.push_back(relays);
  }
  return c;
}

}  // namespace

std::shared_ptr<const row_fold> plan_row_fold(std::shared_ptr<const process_mesh> mesh,
                                              const array<std::int64_t>& lengths, mesh_fold order) {
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
  // A chain message carries at most 4 values per row of its chunk.
  if (rows > std::numeric_limits<int>::max() / 4)
    errs.invalid("a block of ", rows, " rows is past the int counts of MPI");
  agree(mesh->comm(), errs);

  auto plan = std::make_shared<row_fold>();
  plan->mesh = mesh;
  plan->order = order;
  if (order == mesh_fold::serial && c > 1) plan->chain = plan_chain(*mesh, lengths);
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
    // column_blocks: every non-empty row's partial; serial: the rows finished here.
    if (plan->chain ? !finishes_here(*plan->chain, r) : lengths[r] == 0) continue;
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
