// Sharding specs and their layouts (see vseg/dist/sharding.hpp).
#include "vseg/dist/sharding.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

#include "vseg/dist/detail/collective_check.hpp"
#include "vseg/dist/detail/exchange.hpp"
#include "vseg/tuning.hpp"

namespace vseg::dist {

namespace {

template <class Range>
void print_list(std::ostream& out, const Range& values) {
  out << '{';
  bool first = true;
  for (auto v : values) {
    if (!first) out << ',';
    out << v;
    first = false;
  }
  out << '}';
}

// a * b / c without overflow for 0 <= a <= c and b >= 0; O(1).
__extension__ typedef __int128 wide;
std::int64_t scale(std::int64_t a, std::int64_t b, std::int64_t c) {
  return static_cast<std::int64_t>(static_cast<wide>(a) * b / c);
}

}  // namespace

std::string sharding::to_string() const {
  switch (kind_) {
    case kind::block: return "block";
    case kind::balanced: return "balanced";
    case kind::cyclic: return "cyclic";
    case kind::split: return "split";
    case kind::replicated: return "replicated";
    case kind::mesh: {
      const auto dim = [](int d) { return d == 0 ? std::string("*") : std::to_string(d); };
      return "mesh{" + dim(mesh_rows_) + "x" + dim(mesh_cols_) + "}";
    }
    case kind::offsets: {
      std::ostringstream out;
      out << "offsets";
      print_list(out, offsets_);
      return out.str();
    }
  }
  return "?";
}

std::string shard_layout::to_string() const {
  std::ostringstream out;
  out << spec << ": " << segments << " segments, " << elements << " elements";
  if (!first_segment.empty()) {
    out << "; segments ";
    print_list(out, first_segment);
    out << ", elements ";
    print_list(out, first_element);
  }
  return out.str();
}

namespace detail {

shard_layout plan_layout(const sharding& spec, const local_shape& here, MPI_Comm comm) {
  int rank = 0, p = 1;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &p), "MPI_Comm_size");
  shard_layout result;
  result.spec = spec;
  result.segments = here.segments;
  result.elements = here.elements;
  if (!spec.contiguous()) return result;

  const std::int64_t m = here.segments, n = here.elements;
  const auto slots = static_cast<std::size_t>(p) + 1;
  const auto pieces = here.ids.size();
  // Whether local piece k begins / ends its segment.
  const auto begins = [&](std::size_t k) { return k > 0 || here.first_is_start; };
  const auto ends = [&](std::size_t k) { return k + 1 < pieces || here.last_is_end; };

  if (spec.type() == sharding::kind::offsets) {
    error_collector errors("dist::reshard", rank);
    const auto given = spec.explicit_offsets();
    if (given.size() != slots) {
      errors.invalid("offsets{...} has ", given.size(), " entries but the communicator has ", p, " ranks (expected ",
                     p + 1, ")");
    } else if (given.front() != 0 || given.back() != m) {
      errors.invalid("offsets{...} runs from ", given.front(), " to ", given.back(), ", not from 0 to ", m);
    } else {
      for (std::size_t t = 1; t < slots; ++t)
        if (given[t] < given[t - 1]) {
          errors.invalid("offsets{...} decrease at ", t, ": ", given[t - 1], " then ", given[t]);
          break;
        }
    }
    std::vector<std::int64_t> compared(given.begin(), given.end());
    compared.resize(slots, 0);
    agree(comm, errors, 0, {}, {"offsets", compared});
  }

  // Split: rank t starts at diagonal d_t of the merge, a multiple of the
  // fold's block; i_t = the segments finished before it (those whose finishing
  // step end(j) + j is below d_t), counted by the ranks that finish them.
  if (spec.type() == sharding::kind::split) {
    const std::int64_t steps = n + m, step = tuning::segmented_block;
    const std::int64_t blocks = (steps + step - 1) / step;
    std::vector<std::int64_t> diagonal(slots), counts(slots, 0), total(slots, 0);
    for (std::size_t t = 0; t < slots; ++t)
      diagonal[t] = std::min(scale(static_cast<std::int64_t>(t), blocks, p) * step, steps);
    for (std::size_t k = 0; k < pieces; ++k) {
      if (!ends(k)) continue;
      const std::int64_t finish = here.ends[k] + here.ids[k];
      // The slots whose diagonal is past this finishing step.
      const auto first = std::upper_bound(diagonal.begin(), diagonal.end(), finish) - diagonal.begin();
      for (auto t = static_cast<std::size_t>(first); t < slots; ++t) ++counts[t];
    }
    check_mpi(MPI_Allreduce(counts.data(), total.data(), static_cast<int>(slots), MPI_INT64_T, MPI_SUM, comm),
              "MPI_Allreduce");
    result.first_segment = total;
    result.first_element.resize(slots);
    for (std::size_t t = 0; t < slots; ++t) result.first_element[t] = diagonal[t] - total[t];
    return result;
  }

  // The others cut at segment starts: J_t from the spec (or, for balanced, the
  // first segment starting at or after t * N / p), E_t = start(J_t). Both come
  // from one MIN allreduce over the ranks that start those segments.
  std::vector<std::int64_t> mins(2 * slots, std::numeric_limits<std::int64_t>::max());
  std::vector<std::int64_t> wanted(slots, m);
  if (spec.type() == sharding::kind::block) {
    for (std::size_t t = 0; t < slots; ++t) wanted[t] = static_cast<std::int64_t>(t) * (m / p) +
                                                        std::min<std::int64_t>(static_cast<std::int64_t>(t), m % p);
  } else if (spec.type() == sharding::kind::offsets) {
    std::copy(spec.explicit_offsets().begin(), spec.explicit_offsets().end(), wanted.begin());
  }
  for (std::size_t k = 0; k < pieces; ++k) {
    if (!begins(k)) continue;
    const std::int64_t id = here.ids[k], start = here.starts[k];
    for (std::size_t t = 0; t < slots; ++t) {
      const bool hit = spec.type() == sharding::kind::balanced
                           ? start >= scale(static_cast<std::int64_t>(t), n, p)
                           : id == wanted[t];
      if (hit) {
        mins[t] = std::min(mins[t], id);
        mins[slots + t] = std::min(mins[slots + t], start);
      }
    }
  }
  std::vector<std::int64_t> found(2 * slots);
  check_mpi(MPI_Allreduce(mins.data(), found.data(), static_cast<int>(2 * slots), MPI_INT64_T, MPI_MIN, comm),
            "MPI_Allreduce");
  result.first_segment.resize(slots);
  result.first_element.resize(slots);
  for (std::size_t t = 0; t < slots; ++t) {
    const bool none = found[t] == std::numeric_limits<std::int64_t>::max();
    result.first_segment[t] = none ? m : found[t];
    result.first_element[t] = none ? n : found[slots + t];
  }
  result.first_segment[0] = 0;
  result.first_element[0] = 0;
  // The last rank ends with the array (under balanced, empty segments at the
  // end start at N, so the search above would stop before them).
  result.first_segment[slots - 1] = m;
  result.first_element[slots - 1] = n;
  return result;
}

}  // namespace detail

}  // namespace vseg::dist
