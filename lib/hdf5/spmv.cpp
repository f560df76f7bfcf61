// Out-of-core PageRank-style SpMV and the R-MAT-like generator
// (vseg/ooc/spmv.hpp).
#include "vseg/ooc/spmv.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/detail/fold_range.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/flat.hpp"
#include "vseg/hdf5/file.hpp"
#include "vseg/monoid.hpp"
#include "vseg/ooc/scheduler.hpp"

namespace vseg::ooc {
namespace {

// splitmix64: the hash behind every column and value.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

// Rows generated (and appended) at a time by generate_rmat.
constexpr std::int64_t generate_rows = std::int64_t{1} << 16;
// Offsets entries read at a time while planning the blocks.
constexpr std::int64_t plan_entries = std::int64_t{1} << 20;
// Bytes of a row besides its entries: one offsets entry.
constexpr std::int64_t row_bytes = sizeof(std::int64_t);
constexpr std::int64_t entry_bytes = sizeof(std::int32_t) + sizeof(double);
// Entries between prefetching x[cols[k]] and reading it in the SpMV's rows:
// about four rows of the generated matrices ahead, enough to cover a miss to
// memory at the rate the fold consumes entries.
constexpr std::int64_t prefetch_distance = 64;
// Blocks of at least this many bytes read their whole chunks in place from a
// mapping of the file (hdf5::reader::map_chunks) instead of copying them
// into the slot; a block's mapped bytes may exceed its entries' bytes by
// map_slack (page rounding, the chunks' checksums), which its plan leaves free.
constexpr std::int64_t map_min_block_bytes = std::int64_t{4} << 20;
constexpr std::int64_t map_slack = std::int64_t{64} << 10;

// Entries [first, end) of a block, both fields contiguous there: columns
// (int32) at cols, values (float64) at vals, as bytes (a chunk mapped from
// the file need not be aligned for its type, so they are read by memcpy).
struct entry_run {
  std::int64_t first = 0, end = 0;
  const unsigned char* cols = nullptr;
  const unsigned char* vals = nullptr;
};

// One block's memory: its offsets, columns and values. Allocated once per
// slot, at the largest block's size, and reused: the budget is allocated
// up front and never grows (pages never written are never resident). With
// mapped chunks only the block's partial chunks at either end are read into
// the slot, the whole ones are read in place.
struct slot {
  std::unique_ptr<std::int64_t[]> offsets;
  std::unique_ptr<std::int32_t[]> columns;
  std::unique_ptr<double[]> values;
  hdf5::mapped_chunks mapped_columns, mapped_values;
  std::vector<entry_run> runs;  // the block's entries, in order, without gaps
};

// A field's entries [e0, e1) as (first, count, bytes) pieces: the mapped
// chunks, and around them the head and the tail, read into the slot one
// after the other (always its first pages: the slot's resident memory stays
// that of two chunks while the mappings come and go).
template <class T>
std::vector<hdf5::mapped_chunks::piece> field_pieces(const hdf5::mapped_chunks& m, std::int64_t e0, std::int64_t e1,
                                                     const T* in_slot) {
  std::vector<hdf5::mapped_chunks::piece> out;
  const auto slot_piece = [&](std::int64_t lo, std::int64_t hi, const T* at) {
    if (hi > lo) out.push_back({lo, hi - lo, reinterpret_cast<const unsigned char*>(at)});
  };
  if (m.empty()) {
    slot_piece(e0, e1, in_slot);
    return out;
  }
  slot_piece(e0, m.begin(), in_slot);
  out.insert(out.end(), m.pieces().begin(), m.pieces().end());
  slot_piece(m.end(), e1, in_slot + (m.begin() - e0));
  return out;
}

// The runs where both fields are contiguous: the two piece lists merged.
std::vector<entry_run> merge_runs(const std::vector<hdf5::mapped_chunks::piece>& cols,
                                  const std::vector<hdf5::mapped_chunks::piece>& vals) {
  std::vector<entry_run> runs;
  std::size_t i = 0, j = 0;
  while (i < cols.size() && j < vals.size()) {
    const std::int64_t lo = std::max(cols[i].first, vals[j].first);
    const std::int64_t ci = cols[i].first + cols[i].count, vj = vals[j].first + vals[j].count, hi = std::min(ci, vj);
    runs.push_back({lo, hi, cols[i].bytes + (lo - cols[i].first) * 4, vals[j].bytes + (lo - vals[j].first) * 8});
    if (ci == hi) ++i;
    if (vj == hi) ++j;
  }
  return runs;
}

// What the rows' kernel reads and writes.
struct spmv_rows_args {
  const std::int64_t* offsets;  // the block's offsets, offsets[i] the first entry of row i of the block
  const double* x;
  double* y;                      // y[i] for row i of the block
  std::uint64_t n;                // columns must be below n
};

// y[i] for the rows [lo, hi) of a block, all of whose entries lie in one
// run: cols and vals point at entry `base`. Returns false when a column is
// out of range (the rows after it are then skipped; bad_row gets one such
// row, absolute). Every row is folded by fold_range_by, the in-memory
// fused SpMV's body, so its value depends only on the row.
bool spmv_rows(const spmv_rows_args& a, std::int64_t base, const unsigned char* cols, const unsigned char* vals,
               std::int64_t lo, std::int64_t hi, std::int64_t& bad_row) {
  const auto col = [cols](std::int64_t k) {
    std::int32_t c;
    std::memcpy(&c, cols + 4 * k, 4);
    return static_cast<std::uint32_t>(c);
  };
  const auto val = [vals](std::int64_t k) {
    double v;
    std::memcpy(&v, vals + 8 * k, 8);
    return v;
  };
  const double* xs = a.x;
  const std::int64_t end = a.offsets[hi] - base;
  // x[cols[k]] is asked for prefetch_distance entries before it is read
  // (the gathers miss once x is larger than the cache), and each column is
  // range-checked as it is prefetched, in the same pass. Only a row after a
  // bad column is checked again, entry by entry, to name it.
  std::int64_t ahead = a.offsets[lo] - base;
  bool all_ok = true;
  for (std::int64_t i = lo; i < hi; ++i) {
    const std::int64_t from = a.offsets[i] - base, to = a.offsets[i + 1] - base;
    for (const std::int64_t stop = std::min(to + prefetch_distance, end); ahead < stop; ++ahead) {
      const std::uint32_t c = col(ahead);
      all_ok &= c < a.n;
      __builtin_prefetch(xs + std::min<std::uint64_t>(c, a.n - 1));
    }
    if (!all_ok) {
      bool ok = true;
      for (std::int64_t k = from; k < to; ++k) ok &= col(k) < a.n;
      if (!ok) {
        bad_row = i;
        return false;
      }
    }
    a.y[i] = detail::fold_range_by([&](std::int64_t k) { return val(k) * xs[col(k)]; }, from, to, 0.0, plus<double>{});
  }
  return true;
}

// y for the rows [lo, hi) of a block whose entries are the runs: the rows
// inside one run in place, a row across runs copied out first. Returns the
// block's first bad row, or -1.
std::int64_t spmv_block_rows(const spmv_rows_args& a, const std::vector<entry_run>& runs, std::int64_t lo,
                             std::int64_t hi) {
  if (runs.empty()) {  // a block of empty rows
    std::fill(a.y + lo, a.y + hi, 0.0);
    return -1;
  }
  // The run holding entry offsets[lo] (the last one when lo's rows are empty at the end).
  auto r = std::upper_bound(runs.begin(), runs.end(), a.offsets[lo],
                            [](std::int64_t e, const entry_run& run) { return e < run.first; });
  if (r != runs.begin()) --r;
  std::int64_t bad_row = -1;
  std::vector<std::int32_t> row_cols;
  std::vector<double> row_vals;
  for (std::int64_t i = lo; i < hi;) {
    while (a.offsets[i] >= r->end && r + 1 != runs.end()) ++r;
    // Rows [i, j) end within this run.
    const std::int64_t j = std::upper_bound(a.offsets + i + 1, a.offsets + hi + 1, r->end) - a.offsets - 1;
    if (j > i) {
      if (!spmv_rows(a, r->first, r->cols, r->vals, i, j, bad_row)) return bad_row;
      i = j;
      continue;
    }
    // Row i runs on into the next runs: its entries copied together.
    const std::int64_t from = a.offsets[i], to = a.offsets[i + 1];
    row_cols.resize(static_cast<std::size_t>(to - from));
    row_vals.resize(row_cols.size());
    for (auto q = r; q != runs.end() && q->first < to; ++q) {
      const std::int64_t s = std::max(from, q->first), e = std::min(to, q->end);
      std::memcpy(row_cols.data() + (s - from), q->cols + 4 * (s - q->first), static_cast<std::size_t>(e - s) * 4);
      std::memcpy(row_vals.data() + (s - from), q->vals + 8 * (s - q->first), static_cast<std::size_t>(e - s) * 8);
    }
    if (!spmv_rows(a, from, reinterpret_cast<const unsigned char*>(row_cols.data()),
                   reinterpret_cast<const unsigned char*>(row_vals.data()), i, i + 1, bad_row))
      return bad_row;
    ++i;
  }
  return -1;
}

struct io_clock {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

}  // namespace

std::pair<std::int32_t, double> rmat_entry(std::int64_t n, std::int64_t r, std::int64_t j) {
  std::uint64_t h = mix(static_cast<std::uint64_t>(r) * 0x100000001b3u ^ mix(static_cast<std::uint64_t>(j)));
  const double value = static_cast<double>((h >> 11) | 1) * 0x1.0p-53;
  const int levels = std::bit_width(static_cast<std::uint64_t>(n - 1));
  std::uint64_t column = 0;
  for (int l = 0; l < levels; ++l) {
    if (l % 8 == 0) h = mix(h);
    column = (column << 1) | (((h >> (8 * (l % 8))) & 0xff) < 64 ? 1u : 0u);
  }
  return {static_cast<std::int32_t>(column % static_cast<std::uint64_t>(n)), value};
}

void generate_rmat(const std::string& path, std::int64_t n, std::int64_t k) {
  if (n < 1 || n >= (std::int64_t{1} << 31)) detail::throw_invalid("ooc::generate_rmat", "rows ", n, " outside [1, 2^31)");
  if (k < 0 || k > (std::int64_t{1} << 20)) detail::throw_invalid("ooc::generate_rmat", "entries per row ", k, " outside [0, 2^20]");
  hdf5::writer w(path, 1, {{"columns", hdf5::element_type_of<std::int32_t>()},
                           {"values", hdf5::element_type_of<double>()}});
  // Two passes, columns (with the offsets) then values, so that each field
  // is contiguous in the file: a block's read is then two long sequential
  // reads, not chunks of two fields interleaved (measured: 75% against 80+%
  // of the disk's sequential rate on a 1 GB file).
  std::vector<std::int64_t> offsets;
  std::vector<std::int32_t> columns;
  std::vector<double> values;
  for (std::size_t pass = 0; pass < 2; ++pass) {
    for (std::int64_t r0 = 0; r0 < n; r0 += generate_rows) {
      const std::int64_t rows = std::min(generate_rows, n - r0);
      columns.resize(static_cast<std::size_t>(rows * k));
      values.resize(columns.size());
      detail::parallel_for(rows, 1024, [&](std::int64_t lo, std::int64_t hi) {
        std::vector<std::pair<std::int32_t, double>> row(static_cast<std::size_t>(k));
        for (std::int64_t i = lo; i < hi; ++i) {
          for (std::int64_t j = 0; j < k; ++j) row[static_cast<std::size_t>(j)] = rmat_entry(n, r0 + i, j);
          std::sort(row.begin(), row.end());
          for (std::int64_t j = 0; j < k; ++j) {
            columns[static_cast<std::size_t>(i * k + j)] = row[static_cast<std::size_t>(j)].first;
            values[static_cast<std::size_t>(i * k + j)] = row[static_cast<std::size_t>(j)].second;
          }
        }
      });
      if (pass == 1) {
        w.append_values(1, values.data(), rows * k);
        continue;
      }
      offsets.clear();
      if (r0 == 0) offsets.push_back(0);
      for (std::int64_t i = 0; i < rows; ++i) offsets.push_back((r0 + i + 1) * k);
      w.append_offsets(0, offsets);
      w.append_values(0, columns.data(), rows * k);
    }
  }
  w.commit();
}

spmv_result pagerank_spmv(const std::string& path, const spmv_options& options) {
  constexpr const char* op = "ooc::pagerank_spmv";
  if (options.iterations < 0) detail::throw_invalid(op, "negative iterations ", options.iterations);
  if (options.memory_budget < 1) detail::throw_invalid(op, "memory budget ", options.memory_budget, " < 1 byte");
  hdf5::reader file(path);
  if (file.depth() != 1) throw hdf5::error("vseg::" + std::string(op) + ": file '" + path + "': depth " +
                                           std::to_string(file.depth()) + ", a matrix has depth 1");
  const std::size_t columns_field = file.field_index("columns", hdf5::element_type_of<std::int32_t>());
  const std::size_t values_field = file.field_index("values", hdf5::element_type_of<double>());
  const std::int64_t n = file.segments(0);

  spmv_result result;
  // Up to four blocks in flight (one read, the others computed), fewer when
  // the budget is small: a block is at least 1 MiB or the whole budget.
  result.in_flight = std::clamp<std::int64_t>(options.memory_budget >> 20, 1, 4);
  result.block_bytes = options.memory_budget / result.in_flight;
  // Large blocks are read from a mapping of the file; their plan keeps
  // map_slack bytes free for the mapping's rounding.
  const bool map_chunks = result.block_bytes >= map_min_block_bytes;
  const std::int64_t plan_bytes = result.block_bytes - (map_chunks ? map_slack : 0);

  // Plan: blocks of whole rows, each at most block_bytes, streamed from offsets_0.
  std::vector<std::int64_t> first_row{0};
  std::int64_t max_rows = 0, max_entries = 0;
  {
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(std::min(plan_entries, n + 1)));
    auto bytes = [](std::int64_t rows, std::int64_t entries) { return (rows + 1) * row_bytes + entries * entry_bytes; };
    std::int64_t block_start_entry = 0, row_start = 0;
    for (std::int64_t e0 = 0; e0 < n + 1; e0 += plan_entries) {
      const std::int64_t m = std::min(plan_entries, n + 1 - e0);
      file.read_offsets(0, e0, e0 + m, offsets.data());
      for (std::int64_t i = (e0 == 0 ? 1 : 0); i < m; ++i) {
        const std::int64_t row = e0 + i - 1, row_end = offsets[static_cast<std::size_t>(i)];
        if (bytes(1, row_end - row_start) > plan_bytes)
          detail::throw_invalid(op, "memory budget ", options.memory_budget, " bytes holds blocks of ", plan_bytes,
                                " bytes, but row ", row, " alone needs ", bytes(1, row_end - row_start));
        if (bytes(row + 1 - first_row.back(), row_end - block_start_entry) > plan_bytes) {
          // Row `row` does not fit: the block ends before it.
          max_rows = std::max(max_rows, row - first_row.back());
          max_entries = std::max(max_entries, row_start - block_start_entry);
          first_row.push_back(row);
          block_start_entry = row_start;
        }
        row_start = row_end;
      }
    }
    max_rows = std::max(max_rows, n - first_row.back());
    max_entries = std::max(max_entries, file.elements() - block_start_entry);
    first_row.push_back(n);
  }
  result.blocks = static_cast<std::int64_t>(first_row.size()) - 1;
  result.bytes_per_pass = (n + 1) * row_bytes + file.elements() * entry_bytes;

  std::vector<slot> slots(static_cast<std::size_t>(std::min(result.in_flight, result.blocks)));
  for (slot& s : slots) {
    s.offsets = std::make_unique_for_overwrite<std::int64_t[]>(static_cast<std::size_t>(max_rows + 1));
    s.columns = std::make_unique_for_overwrite<std::int32_t[]>(static_cast<std::size_t>(max_entries));
    s.values = std::make_unique_for_overwrite<double[]>(static_cast<std::size_t>(max_entries));
  }
  // Free slots; only the serial reader takes one and only a finished compute
  // returns one, and the limiter admits no more blocks than slots.
  std::vector<std::int64_t> free_slots(slots.size());
  std::iota(free_slots.begin(), free_slots.end(), std::int64_t{0});
  std::mutex free_mutex;

  std::vector<double> x(static_cast<std::size_t>(n), 1.0 / static_cast<double>(n)), y(x.size());
  std::int64_t mapped_bytes = 0;  // only the serial reader adds to it
  for (std::int64_t it = 0; it < options.iterations; ++it) {
    if (options.drop_cache) drop_cached_pages(path);
    io_clock clock;
    const std::clock_t cpu0 = std::clock();
    // Block b+1's chunks are asked for while block b is read: the disk
    // always has a block's worth of requests queued.
    auto prefetch = [&](std::int64_t b) {
      if (b >= result.blocks) return;
      const std::int64_t r0 = first_row[static_cast<std::size_t>(b)], r1 = first_row[static_cast<std::size_t>(b) + 1];
      std::int64_t ends[2];
      file.read_offsets(0, r0, r0 + 1, ends);
      file.read_offsets(0, r1, r1 + 1, ends + 1);
      file.prefetch_offsets(0, r0, r1 + 1);
      file.prefetch_values(columns_field, ends[0], ends[1]);
      file.prefetch_values(values_field, ends[0], ends[1]);
    };
    // Reads block b into a free slot: its whole chunks mapped and checked
    // in place when blocks are large enough, the rest copied into the slot
    // (the head, then the tail: see field_pieces).
    auto load = [&](std::int64_t b) {
      if (b == 0) prefetch(0);
      prefetch(b + 1);
      std::int64_t s;
      {
        std::lock_guard lock(free_mutex);
        s = free_slots.back();
        free_slots.pop_back();
      }
      slot& sl = slots[static_cast<std::size_t>(s)];
      const std::int64_t r0 = first_row[static_cast<std::size_t>(b)], r1 = first_row[static_cast<std::size_t>(b) + 1];
      file.read_offsets(0, r0, r1 + 1, sl.offsets.get());
      const std::int64_t e0 = sl.offsets[0], e1 = sl.offsets[static_cast<std::size_t>(r1 - r0)];
      if (map_chunks) {
        sl.mapped_columns = file.map_chunks(columns_field, e0, e1);
        sl.mapped_values = file.map_chunks(values_field, e0, e1);
      }
      auto read_rest = [&](std::size_t field, const hdf5::mapped_chunks& m, void* into, std::size_t size) {
        auto* bytes = static_cast<unsigned char*>(into);
        if (m.empty()) return file.read_values(field, e0, e1, bytes);
        file.read_values(field, e0, m.begin(), bytes);
        file.read_values(field, m.end(), e1, bytes + static_cast<std::size_t>(m.begin() - e0) * size);
      };
      read_rest(columns_field, sl.mapped_columns, sl.columns.get(), sizeof(std::int32_t));
      read_rest(values_field, sl.mapped_values, sl.values.get(), sizeof(double));
      for (const auto* m : {&sl.mapped_columns, &sl.mapped_values})
        for (const auto& piece : m->pieces()) mapped_bytes += piece.count * (m == &sl.mapped_columns ? 4 : 8);
      sl.runs = merge_runs(field_pieces(sl.mapped_columns, e0, e1, sl.columns.get()),
                           field_pieces(sl.mapped_values, e0, e1, sl.values.get()));
      return s;
    };
    std::atomic<std::int64_t> bad_row{-1};
    auto compute = [&](std::int64_t b, std::int64_t s) {
      slot& sl = slots[static_cast<std::size_t>(s)];
      const std::int64_t r0 = first_row[static_cast<std::size_t>(b)], r1 = first_row[static_cast<std::size_t>(b) + 1];
      const spmv_rows_args args{sl.offsets.get(), x.data(), y.data() + r0, static_cast<std::uint64_t>(n)};
      detail::parallel_for(r1 - r0, 2048, [&](std::int64_t lo, std::int64_t hi) {
        const std::int64_t bad = spmv_block_rows(args, sl.runs, lo, hi);
        if (bad >= 0) bad_row.store(r0 + bad);
      });
      sl.mapped_columns.reset();
      sl.mapped_values.reset();
      std::lock_guard lock(free_mutex);
      free_slots.push_back(s);
    };
    run_blocks(result.blocks, static_cast<std::int64_t>(slots.size()), load, compute);
    if (bad_row.load() >= 0)
      throw hdf5::error("vseg::" + std::string(op) + ": file '" + path + "', dataset 'columns': row " +
                        std::to_string(bad_row.load()) + " has a column outside [0, " + std::to_string(n) + ")");
    // |y|_1 by vseg's reduce: blocks fixed by tuning, so the same on every thread count.
    // x is free once y is computed: it holds |y| for the reduction.
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::fabs(y[i]);
    const double norm = reduce(x, plus<double>{});
    if (!(norm > 0)) detail::throw_invalid(op, "|A x|_1 is ", norm, " at iteration ", it, ": cannot normalise");
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = y[i] / norm;
    result.seconds += clock.seconds();
    result.cpu_seconds += static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  }
  result.x = std::move(x);
  result.mapped_bytes = mapped_bytes;
  return result;
}

std::uint64_t checksum(const std::vector<double>& x) {
  std::uint64_t h = 0xcbf29ce484222325u;
  for (double v : x) {
    const auto bits = std::bit_cast<std::uint64_t>(v);
    for (int byte = 0; byte < 8; ++byte) h = (h ^ ((bits >> (8 * byte)) & 0xff)) * 0x100000001b3u;
  }
  return h;
}

void drop_cached_pages(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

double sequential_read_rate(const std::string& path) {
  drop_cached_pages(path);
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw hdf5::error("vseg::ooc::sequential_read_rate: file '" + path + "': cannot open: " + std::strerror(errno));
  std::vector<char> chunk(std::size_t{4} << 20);
  io_clock clock;
  std::int64_t total = 0;
  for (ssize_t got; (got = ::read(fd, chunk.data(), chunk.size())) > 0;) total += got;
  const double seconds = clock.seconds();
  ::close(fd);
  return seconds > 0 ? static_cast<double>(total) / seconds : 0.0;
}

}  // namespace vseg::ooc
