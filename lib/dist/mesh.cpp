// The 2D process mesh and the plans of its row fold (see vseg/dist/mesh.hpp)
// and row scan (vseg/dist/detail/scan_chain.hpp).
#include "vseg/dist/mesh.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "vseg/dist/detail/scan_chain.hpp"

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

// Whether the single-node fold cuts a row nowhere (no cut in [0, length]):
// then its fold is one fold_range_by from the identity; O(1).
inline bool uncut(std::int64_t step, std::int64_t length) {
  const row_piece p = piece_at(step, length, 0);
  return p.index == 0 && p.last == length && piece_at(step, length, length).index == 0;
}

// Per local row of a mesh block: this rank's elements of it, its length
// over the process row, this rank's offset in it, and the merge step of its
// first element in the whole matrix.
struct row_positions {
  std::vector<std::int64_t> mine, length, offset, step;
};

// The positions of a block's local rows (of the given lengths). Collective
// over the mesh: one MPI_Allreduce and one MPI_Exscan on the process row
// (each row's length and this rank's offset in it), one MPI_Exscan on the
// process column (the rows and elements of the row blocks above). O(rows).
row_positions locate_rows(const process_mesh& mesh, const array<std::int64_t>& lengths) {
  const std::int64_t rows = lengths.size();
  const auto n = static_cast<std::size_t>(rows);
  row_positions at{{lengths.begin(), lengths.end()}, std::vector<std::int64_t>(n, 0),
                   std::vector<std::int64_t>(n, 0), std::vector<std::int64_t>(n)};
  const int count = static_cast<int>(rows);
  check_mpi(MPI_Allreduce(at.mine.data(), at.length.data(), count, MPI_INT64_T, MPI_SUM, mesh.row_comm()),
            "MPI_Allreduce");
  check_mpi(MPI_Exscan(at.mine.data(), at.offset.data(), count, MPI_INT64_T, MPI_SUM, mesh.row_comm()),
            "MPI_Exscan");
  if (mesh.col() == 0) std::fill(at.offset.begin(), at.offset.end(), 0);  // Exscan leaves rank 0's undefined
  // The row blocks above this one: their rows and elements.
  std::int64_t block[2] = {rows, 0}, above[2] = {0, 0};
  for (const std::int64_t len : at.length) block[1] += len;
  check_mpi(MPI_Exscan(block, above, 2, MPI_INT64_T, MPI_SUM, mesh.col_comm()), "MPI_Exscan");
  if (mesh.row() == 0) above[0] = above[1] = 0;
  // Row r's first element is merge step (its global element) + (its global row).
  std::int64_t element = above[1];
  for (std::size_t r = 0; r < n; ++r) {
    at.step[r] = element + above[0] + static_cast<std::int64_t>(r);
    element += at.length[r];
  }
  return at;
}

// A chain's messages for one chunk of rows (fold_chain's and scan_chain's
// plans): the values received and sent, and whether a row both receives
// and sends (the send then waits for the receive).
struct chunk_messages {
  std::int64_t in = 0, out = 0;
  char relays = 0;
};

// Walks a chain's chunks (chain_chunks, fewer for fewer rows) over the rows
// located in `at`, in order. Per row r: width(step, length, offset) gives
// its state's values at an offset, received where it begins on an earlier
// process column and sent where it goes on on a later one (0 elsewhere);
// row(r, first row of the chunk, in width, out width, the chunk's counts
// before r) is called, then the counts grow. After each chunk:
// done(its end, its counts). O(rows).
template <class Width, class Row, class Done>
void walk_chunks(const row_positions& at, const Width& width, const Row& row, const Done& done) {
  const auto rows = static_cast<std::int64_t>(at.mine.size());
  const std::int64_t chunks = std::max<std::int64_t>(1, std::min(rows, chain_chunks));
  for (std::int64_t k = 0; k < chunks; ++k) {
    chunk_messages counts;
    const std::int64_t first = equal_part_start(rows, chunks, k), end = equal_part_start(rows, chunks, k + 1);
    for (std::int64_t r = first; r < end; ++r) {
      const auto u = static_cast<std::size_t>(r);
      const std::int64_t step = at.step[u], len = at.length[u], a = at.offset[u], b = a + at.mine[u];
      const std::int64_t in_width = a > 0 && a < len ? width(step, len, a) : 0;
      const std::int64_t out_width = b > 0 && b < len ? width(step, len, b) : 0;
      row(r, first, in_width, out_width, counts);
      if (in_width > 0 && out_width > 0) counts.relays = 1;
      counts.in += in_width;
      counts.out += out_width;
    }
    done(end, counts);
  }
}

// Adds a chunk's counts to a chain plan (row_chain or scan_chain_plan);
// `next` is where the next chunk starts in the plan's chunk_at. O(1).
template <class Plan>
void add_chunk(Plan& c, std::int64_t next, const chunk_messages& m) {
  c.chunk_at.push_back(next);
  c.in_count.push_back(static_cast<int>(m.in));
  c.out_count.push_back(static_cast<int>(m.out));
  c.relays.push_back(m.relays);
}

// The chain of mesh_fold::serial (detail/mesh_chain.hpp) for a block whose
// local rows have the given lengths. Collective over the mesh: locate_rows'.
// O(rows).
std::shared_ptr<const row_chain> plan_chain(const process_mesh& mesh, const array<std::int64_t>& lengths) {
  auto c = std::make_shared<row_chain>();
  const std::int64_t rows = lengths.size();
  const auto n = static_cast<std::size_t>(rows);
  c->col = mesh.col();
  c->cols = mesh.cols();
  c->row_comm = mesh.row_comm();
  const row_positions at = locate_rows(mesh, lengths);
  c->kind.reserve(n);
  c->sends.reserve(n);
  c->chunk_at.push_back(0);
  const auto row = [&](std::int64_t r, std::int64_t first, std::int64_t in_width, std::int64_t out_width,
                       const chunk_messages& counts) {
    const auto u = static_cast<std::size_t>(r);
    if ((r - first) % chain_stretch_rows == 0)
      c->stretches.push_back({r, counts.in, counts.out, static_cast<std::int64_t>(c->spans.size()), false});
    const std::int64_t step = at.step[u], len = at.length[u], a = at.offset[u], b = a + at.mine[u];
    const bool finishes = at.mine[u] > 0 ? b == len : len == 0 && c->col == 0;
    const bool one_piece = uncut(step, len);
    const bool plain = one_piece && len < tuning::fold_group_min;
    const bool has_in = in_width > 0, has_out = out_width > 0;
    // A plain row with a state in and none out has its end here (b = len);
    // one with a state out and none in begins here (a = 0 < b). A row
    // with no element here and no state out is the identity here,
    // finished here or not.
    const row_kind kind = has_in && plain && !has_out ? row_kind::tail
                          : has_in                    ? row_kind::waiting
                          : a == b && !has_out        ? row_kind::absent
                          : a == 0 && b == len && one_piece ? row_kind::whole
                          : plain && has_out && a == 0 ? row_kind::head
                                                       : row_kind::independent;
    c->kind.push_back(kind);
    c->sends.push_back(finishes && len > 0 ? 1 : 0);
    if (kind == row_kind::waiting || kind == row_kind::independent)
      c->spans.push_back({step, len, a, at.mine[u], static_cast<std::int32_t>(in_width),
                          static_cast<std::int32_t>(out_width),
                          static_cast<std::uint8_t>(plain ? 1 : one_piece ? 2 : 0),
                          static_cast<std::uint8_t>(finishes ? 1 : 0)});
    if (has_in) c->stretches.back().waits = true;
  };
  walk_chunks(at, state_width, row, [&](std::int64_t, const chunk_messages& counts) {
    add_chunk(*c, static_cast<std::int64_t>(c->stretches.size()), counts);
  });
  c->stretches.push_back({rows, 0, 0, static_cast<std::int64_t>(c->spans.size()), false});
  return c;
}

}  // namespace

std::shared_ptr<const scan_chain_plan> plan_scan_chain(const process_mesh& mesh, const array<std::int64_t>& lengths) {
  auto c = std::make_shared<scan_chain_plan>();
  const std::int64_t rows = lengths.size();
  row_positions at = locate_rows(mesh, lengths);
  c->col = mesh.col();
  c->row_comm = mesh.row_comm();
  c->in_at.reserve(static_cast<std::size_t>(rows));
  c->out_at.reserve(static_cast<std::size_t>(rows));
  // At most 5 values a row, chunks of at most rows / 8 + 1 rows: the int
  // counts of MPI hold (plan_row_fold refuses blocks past INT_MAX / 4 rows).
  c->chunk_at.push_back(0);
  walk_chunks(
      at, scan_state_width,
      [&](std::int64_t, std::int64_t, std::int64_t in_width, std::int64_t out_width, const chunk_messages& counts) {
        c->in_at.push_back(in_width > 0 ? counts.in : -1);
        c->out_at.push_back(out_width > 0 ? counts.out : -1);
      },
      [&](std::int64_t end, const chunk_messages& counts) { add_chunk(*c, end, counts); });
  c->step = std::move(at.step);
  c->length = std::move(at.length);
  c->offset = std::move(at.offset);
  return c;
}

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
    // column_blocks: every non-empty row's partial; serial: the non-empty rows finished here.
    if (plan->chain ? !plan->chain->sends[static_cast<std::size_t>(r)] : lengths[r] == 0) continue;
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
