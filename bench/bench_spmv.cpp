// SpMV through vseg's nested API against a hand-written CSR loop on oneTBB,
// Eigen (row-major sparse x dense, OpenMP) and SuiteSparse:GraphBLAS
// (GrB_mxv, PLUS_TIMES_FP64), on regular and irregular matrices; replication
// consumed by lifted indexing against a copying replicate; treeLookup
// against a flat gather; and the read-bandwidth and random-gather limits the
// SpMV figures are compared with. scripts/bench-report runs it and writes
// notes/bench.md (the traffic model and the targets are explained there).
//
// Every benchmark is timed with the wall clock (UseManualTime): the work runs
// on TBB's or OpenMP's threads, so the calling thread's CPU time means
// nothing. The contenders of a workload run in interleaved rounds (see
// run_rounds); the counters carry their median times and the sizes the
// report needs (nnz, rows, bytes).
//
//   bench_spmv [google benchmark flags]     the suite
//   bench_spmv --peak-memory=WORKLOAD       one nested SpMV in a fresh
//                                           process; prints its peak RSS
//                                           against matrix + vectors
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/partitioner.h>

#include <Eigen/SparseCore>
#ifdef VSEG_HAVE_GRAPHBLAS
extern "C" {  // GraphBLAS.h declares C functions without a linkage block
#include <GraphBLAS.h>
}
#endif

#include "vseg/matrix_market.hpp"
#include "vseg/vseg.hpp"

#include "../examples/treelookup.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

// The column index type of the nested SpMV (int32: 12 bytes per non-zero).
using col_index = std::int32_t;

int threads() { return tbb::info::default_concurrency(); }

// ---------------------------------------------------------------- helpers

// A deterministic hash of i (splitmix64).
std::uint64_t mix(std::uint64_t i) {
  std::uint64_t z = i + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A uniform double in [-1, 1) from a hash.
double signed_unit(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-52 - 1.0; }

// body(lo, hi) over [0, n) in parallel.
template <class Body>
void split(std::int64_t n, Body&& body) {
  if (n <= 0) return;
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, n, 1 << 14),
                    [&](const tbb::blocked_range<std::int64_t>& r) { body(r.begin(), r.end()); });
}

template <class T>
vseg::buffer<T> uninitialised(std::int64_t n) {
  return vseg::buffer<T>::for_overwrite(n);
}

// ---------------------------------------------------------------- matrices

// A CSR matrix with int32 columns, in the arrays every contender shares
// where its format allows (vseg's nested arrays and Eigen's map adopt them).
struct matrix {
  std::string name;
  std::int64_t rows = 0, cols = 0;
  vseg::array<std::int64_t> row_lengths;  // rows
  vseg::array<std::int64_t> row_ptr;      // rows + 1
  vseg::array<col_index> col;             // nnz
  vseg::array<double> val;                // nnz
  bool random_columns = false;            // the gather limit applies
  std::int64_t nnz() const { return col.size(); }
};

// row_ptr from row_lengths (exclusive scan with the total appended).
vseg::array<std::int64_t> row_pointers(const vseg::array<std::int64_t>& lengths) {
  const auto starts = vseg::scan(lengths, vseg::plus<std::int64_t>{});
  auto p = uninitialised<std::int64_t>(lengths.size() + 1);
  split(lengths.size(), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) p.data()[i] = starts[i];
  });
  p.data()[lengths.size()] = lengths.size() == 0 ? 0 : starts[lengths.size() - 1] + lengths[lengths.size() - 1];
  return std::move(p).freeze();
}

// vseg's generated stencils, with the columns narrowed to int32.
matrix from_vseg(std::string name, vseg::csr_matrix m) {
  matrix r;
  r.name = std::move(name);
  r.rows = m.rows;
  r.cols = m.cols;
  auto c = uninitialised<col_index>(m.nnz());
  split(m.nnz(), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) c.data()[k] = static_cast<col_index>(m.col_indices[k]);
  });
  m.col_indices = {};
  r.col = std::move(c).freeze();
  r.val = std::move(m.values);
  r.row_lengths = std::move(m.row_lengths);
  r.row_ptr = row_pointers(r.row_lengths);
  return r;
}

// A CSR matrix from a row generator: cols_of(i, out) appends row i's sorted
// distinct columns to out; the value of (i, j) is a hash of both.
template <class ColsOf>
matrix from_rows(std::string name, std::int64_t rows, std::int64_t cols, ColsOf cols_of) {
  matrix r;
  r.name = std::move(name);
  r.rows = rows;
  r.cols = cols;
  auto lengths = uninitialised<std::int64_t>(rows);
  tbb::enumerable_thread_specific<std::vector<std::int64_t>> scratch;
  split(rows, [&](std::int64_t lo, std::int64_t hi) {
    auto& out = scratch.local();
    for (std::int64_t i = lo; i < hi; ++i) {
      out.clear();
      cols_of(i, out);
      lengths.data()[i] = static_cast<std::int64_t>(out.size());
    }
  });
  r.row_lengths = std::move(lengths).freeze();
  r.row_ptr = row_pointers(r.row_lengths);
  const std::int64_t nnz = r.row_ptr[rows];
  auto c = uninitialised<col_index>(nnz);
  auto v = uninitialised<double>(nnz);
  split(rows, [&](std::int64_t lo, std::int64_t hi) {
    auto& out = scratch.local();
    for (std::int64_t i = lo; i < hi; ++i) {
      out.clear();
      cols_of(i, out);
      std::int64_t k = r.row_ptr[i];
      for (std::int64_t j : out) {
        c.data()[k] = static_cast<col_index>(j);
        v.data()[k] = signed_unit(mix(static_cast<std::uint64_t>(i) * 0x100000001b3ULL ^
                                      static_cast<std::uint64_t>(j)));
        ++k;
      }
    }
  });
  r.col = std::move(c).freeze();
  r.val = std::move(v).freeze();
  return r;
}

// R-MAT (Graph500 parameters a = 0.57, b = c = 0.19, d = 0.05), 2^scale
// vertices, edge_factor * 2^scale edges, vertex numbers scrambled by a
// bijection of [0, 2^scale), duplicate edges merged. Deterministic: edge e
// is a function of e alone, so the matrix is the same on any thread count.
matrix rmat(int scale, std::int64_t edge_factor) {
  const std::int64_t n = std::int64_t{1} << scale;
  const std::int64_t edges = edge_factor * n;
  const std::uint64_t mask = static_cast<std::uint64_t>(n - 1);
  auto scramble = [mask, scale](std::uint64_t x) {
    x = (x * 0x9e3779b97f4a7c15ULL) & mask;  // odd multiplier: a bijection mod 2^scale
    x ^= x >> (scale / 2);
    x = (x * 0xbf58476d1ce4e5b9ULL) & mask;
    return x ^ (x >> (scale / 3));
  };
  // The (row, col) of edge e; 16 bits of a hash per level.
  auto edge = [&](std::int64_t e) {
    std::uint64_t row = 0, col = 0, h = 0;
    for (int level = 0; level < scale; ++level) {
      if (level % 4 == 0) h = mix(static_cast<std::uint64_t>(e) * 8 + static_cast<std::uint64_t>(level / 4));
      const std::uint64_t u = (h >> (16 * (level % 4))) & 0xffff;  // uniform in [0, 65536)
      const std::uint64_t a = 37355, ab = 49807, abc = 62259;     // 0.57, 0.76, 0.95 of 2^16
      const std::uint64_t rb = u >= ab ? 1 : 0;
      const std::uint64_t cb = (u >= a && u < ab) || u >= abc ? 1 : 0;
      row = row * 2 + rb;
      col = col * 2 + cb;
    }
    return std::pair<std::uint64_t, std::uint64_t>{scramble(row), scramble(col)};
  };
  // Bucket the edges by row (count, scan, scatter), then sort and merge each row.
  auto fill = std::make_unique<std::atomic<std::int64_t>[]>(static_cast<std::size_t>(n));
  split(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) fill[static_cast<std::size_t>(i)].store(0, std::memory_order_relaxed);
  });
  split(edges, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t e = lo; e < hi; ++e)
      fill[static_cast<std::size_t>(edge(e).first)].fetch_add(1, std::memory_order_relaxed);
  });
  std::vector<std::int64_t> start(static_cast<std::size_t>(n + 1), 0);
  for (std::int64_t i = 0; i < n; ++i)
    start[static_cast<std::size_t>(i + 1)] = start[static_cast<std::size_t>(i)] + fill[static_cast<std::size_t>(i)].load();
  split(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) fill[static_cast<std::size_t>(i)].store(start[static_cast<std::size_t>(i)]);
  });
  std::vector<col_index> bucket(static_cast<std::size_t>(edges));
  split(edges, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t e = lo; e < hi; ++e) {
      const auto [row, col] = edge(e);
      bucket[static_cast<std::size_t>(fill[row].fetch_add(1, std::memory_order_relaxed))] = static_cast<col_index>(col);
    }
  });
  fill.reset();
  // Sort each row and drop duplicates; the row's distinct count stays in place.
  std::vector<std::int64_t> distinct(static_cast<std::size_t>(n));
  split(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) {
      auto b = bucket.begin() + start[static_cast<std::size_t>(i)];
      auto e = bucket.begin() + start[static_cast<std::size_t>(i + 1)];
      std::sort(b, e);
      distinct[static_cast<std::size_t>(i)] = std::unique(b, e) - b;
    }
  });
  return from_rows("rmat" + std::to_string(scale), n, n, [&](std::int64_t i, std::vector<std::int64_t>& out) {
    const auto b = start[static_cast<std::size_t>(i)];
    for (std::int64_t k = 0; k < distinct[static_cast<std::size_t>(i)]; ++k)
      out.push_back(bucket[static_cast<std::size_t>(b + k)]);
  });
}

// A circuit-like matrix: n rows, most with 1..10 non-zeros near the diagonal
// (the diagonal and up to 9 columns within +-4096), and `dense` rows of
// 10^5..10^6 non-zeros with columns spread over the whole matrix.
matrix circuit(std::int64_t n) {
  constexpr std::int64_t dense = 8;
  const std::int64_t dense_length[dense] = {100'000, 1'000'000, 250'000, 500'000,
                                            150'000, 750'000,   300'000, 1'000'000};
  auto dense_index = [n](std::int64_t i) -> std::int64_t {
    // dense rows at spread positions n/9, 2n/9, ...
    for (std::int64_t d = 0; d < dense; ++d)
      if (i == (d + 1) * n / (dense + 1)) return d;
    return -1;
  };
  return from_rows("circuit", n, n, [&](std::int64_t i, std::vector<std::int64_t>& out) {
    const std::int64_t d = dense_index(i);
    if (d >= 0) {
      // every column with probability length / n, by a hash: sorted and distinct
      const std::int64_t len = dense_length[d];
      const std::int64_t stride = n / len;
      for (std::int64_t k = 0; k < len; ++k)
        out.push_back(k * stride + static_cast<std::int64_t>(mix(static_cast<std::uint64_t>(i * n + k)) %
                                                             static_cast<std::uint64_t>(stride)));
      return;
    }
    const std::uint64_t h = mix(static_cast<std::uint64_t>(i));
    const std::int64_t len = 1 + static_cast<std::int64_t>(h % 10);
    out.push_back(i);
    for (std::int64_t k = 1; k < len; ++k) {
      const std::int64_t off = static_cast<std::int64_t>(mix(h + static_cast<std::uint64_t>(k)) % 8193) - 4096;
      out.push_back(std::clamp<std::int64_t>(i + off, 0, n - 1));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  });
}

matrix make_matrix(const std::string& name) {
  if (name == "stencil27_160") return from_vseg(name, vseg::stencil_27(160));
  if (name == "stencil7_256") return from_vseg(name, vseg::stencil_7(256));
  if (name == "rmat23") {
    matrix m = rmat(23, 16);
    m.name = name;
    m.random_columns = true;
    return m;
  }
  if (name == "circuit") {
    matrix m = circuit(std::int64_t{1} << 23);
    m.random_columns = true;
    return m;
  }
  // small versions, for a quick check of the harness
  if (name == "stencil27_32") return from_vseg(name, vseg::stencil_27(32));
  if (name == "rmat16") {
    matrix m = rmat(16, 16);
    m.name = name;
    m.random_columns = true;
    return m;
  }
  std::cerr << "bench_spmv: unknown workload " << name << "\n";
  std::exit(2);
}

// A reproducible vector of n values in [-1, 1).
vseg::array<double> test_vector(std::int64_t n) {
  auto b = uninitialised<double>(n);
  split(n, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) b.data()[i] = signed_unit(mix(static_cast<std::uint64_t>(i) ^ 0x5eedULL));
  });
  return std::move(b).freeze();
}

// ---------------------------------------------------------------- contenders

// y = A x, the vectorised DPH program: the vector replicated once per row
// (no element copied), lifted indexing by the columns, an element-wise
// product and a segmented sum, fused (nothing nnz-sized is written).
vseg::array<double> spmv_nested(const vseg::nested<double>& vals, const vseg::nested<col_index>& cols,
                                const vseg::array<double>& v) {
  return vseg::sum_s(
      vseg::zip_with(std::multiplies<>{}, vals, vseg::index_l(vseg::replicate(vals.size(), v), cols)));
}

// The work per chunk of the hand-written loop, in non-zeros + rows:
// consecutive rows are grouped into chunks of about this much work (a row is
// never split) and the chunks are scheduled by oneTBB. Tried 2^14, 2^16 and
// 2^18 (VSEG_BENCH_HAND_WORK; stencil27_32 and rmat16, 15 interleaved
// rounds, two runs each at load average 14-18 on the 2 cores): no grain was
// faster beyond the noise, so the choice rests on reasoning. 2^16 is kept:
// a chunk is then about 0.8 MB of matrix, tens of microseconds
// of streaming, so TBB's per-task cost (well under a microsecond) is lost in
// it, while the large matrices still give over a thousand chunks for two
// threads to balance when one of them is delayed by other work. 2^14 adds
// tasks for no gain; 2^18 leaves ~450 chunks on the 27-point stencil and
// four on stencil27_32. Re-measure with VSEG_BENCH_HAND_WORK=<work>.
std::int64_t hand_work() {
  const char* w = std::getenv("VSEG_BENCH_HAND_WORK");
  return w ? std::max<std::int64_t>(1, std::atoll(w)) : std::int64_t{1} << 16;
}

// The row ranges of the hand-written loop: consecutive rows with about
// `work` non-zeros + rows each (a row is never split).
std::vector<std::int64_t> row_chunks(const matrix& m, std::int64_t work) {
  std::vector<std::int64_t> cut{0};
  const std::int64_t total = m.nnz() + m.rows;
  for (std::int64_t d = work; d < total; d += work) {
    // the first row r with row_ptr[r] + r >= d
    std::int64_t lo = cut.back(), hi = m.rows;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (m.row_ptr[mid] + mid < d) lo = mid + 1;
      else hi = mid;
    }
    if (lo > cut.back()) cut.push_back(lo);
  }
  if (cut.back() != m.rows) cut.push_back(m.rows);
  return cut;
}

// Rows at least this long are summed with four independent partial sums;
// shorter ones with one. The same rule as vseg's fused fold
// (detail::flat_fold_group_min, include/vseg/detail/fused_fold.hpp), where
// it was measured: on short rows (the 7-point stencil's) the chains of
// consecutive rows already overlap and the unrolled loop's tail costs more
// than it saves; on long rows (the 27-point stencil's) one accumulator is
// bound by the add latency.
constexpr std::int64_t hand_unroll_min = 16;

// y = A x, the CSR loop a good engineer writes on oneTBB: rows split into
// chunks of equal work (hand_work), long rows unrolled by four with
// independent partial sums combined as (s0 + s1) + (s2 + s3).
void spmv_hand(const matrix& m, const std::vector<std::int64_t>& chunks, const double* x, double* y) {
  const std::int64_t* rp = m.row_ptr.data();
  const col_index* c = m.col.data();
  const double* v = m.val.data();
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks.size() - 1, 1),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t b = r.begin(); b < r.end(); ++b)
                        for (std::int64_t row = chunks[b]; row < chunks[b + 1]; ++row) {
                          std::int64_t k = rp[row];
                          const std::int64_t end = rp[row + 1];
                          double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                          if (end - k >= hand_unroll_min)
                            for (; k + 4 <= end; k += 4) {
                              s0 += v[k] * x[c[k]];
                              s1 += v[k + 1] * x[c[k + 1]];
                              s2 += v[k + 2] * x[c[k + 2]];
                              s3 += v[k + 3] * x[c[k + 3]];
                            }
                          for (; k < end; ++k) s0 += v[k] * x[c[k]];
                          y[row] = (s0 + s1) + (s2 + s3);
                        }
                    });
}

using eigen_csr = Eigen::Map<const Eigen::SparseMatrix<double, Eigen::RowMajor, int>>;

// Everything one workload needs, built once and freed before the next.
struct workload {
  matrix m;
  vseg::array<double> x;
  std::vector<double> reference;  // y by the hand loop
  std::vector<std::int64_t> chunks;
  vseg::nested<double> vals;
  vseg::nested<col_index> cols;
  std::vector<int> eigen_outer;
  std::unique_ptr<eigen_csr> eigen;
#ifdef VSEG_HAVE_GRAPHBLAS
  GrB_Matrix gb_a = nullptr;
  GrB_Vector gb_u = nullptr, gb_w = nullptr;
#endif
  ~workload() {
#ifdef VSEG_HAVE_GRAPHBLAS
    if (gb_a) GrB_Matrix_free(&gb_a);
    if (gb_u) GrB_Vector_free(&gb_u);
    if (gb_w) GrB_Vector_free(&gb_w);
#endif
  }
};

std::unique_ptr<workload> current;

workload& get_workload(const std::string& name) {
  if (current && current->m.name == name) return *current;
  current.reset();
  malloc_trim(0);
  auto w = std::make_unique<workload>();
  w->m = make_matrix(name);
  w->x = test_vector(w->m.cols);
  w->chunks = row_chunks(w->m, hand_work());
  w->reference.resize(static_cast<std::size_t>(w->m.rows));
  spmv_hand(w->m, w->chunks, w->x.data(), w->reference.data());
  const vseg::segd shape = vseg::segd::from_lengths(w->m.row_lengths);
  w->vals = vseg::nested<double>::from_segd(shape, w->m.val);
  w->cols = vseg::nested<col_index>::from_segd(shape, w->m.col);
  current = std::move(w);
  return *current;
}

// Whether y agrees with the reference (relative to the row's magnitude).
bool agrees(const workload& w, const double* y) {
  for (std::int64_t i = 0; i < w.m.rows; ++i) {
    const double r = w.reference[static_cast<std::size_t>(i)];
    if (!(std::abs(y[i] - r) <= 1e-9 * (1 + std::abs(r)))) return false;
  }
  return true;
}

void set_counters(benchmark::State& state, const matrix& m) {
  state.counters["nnz"] = static_cast<double>(m.nnz());
  state.counters["rows"] = static_cast<double>(m.rows);
  state.counters["cols"] = static_cast<double>(m.cols);
}

#ifdef VSEG_HAVE_GRAPHBLAS
void gb_check(GrB_Info info, const char* what) {
  if (info != GrB_SUCCESS) {
    std::cerr << "bench_spmv: GraphBLAS " << what << " failed (" << static_cast<int>(info) << ")\n";
    std::exit(1);
  }
}

// A and u imported into GraphBLAS (it takes ownership of malloc'd arrays,
// with 64-bit row pointers and columns), and an empty w.
void graphblas_setup(workload& w) {
  const std::int64_t n = w.m.rows, nnz = std::max<std::int64_t>(w.m.nnz(), 1);
  auto* ap = static_cast<GrB_Index*>(std::malloc(static_cast<std::size_t>(n + 1) * sizeof(GrB_Index)));
  auto* aj = static_cast<GrB_Index*>(std::malloc(static_cast<std::size_t>(nnz) * sizeof(GrB_Index)));
  auto* ax = static_cast<double*>(std::malloc(static_cast<std::size_t>(nnz) * sizeof(double)));
  split(n + 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) ap[i] = static_cast<GrB_Index>(w.m.row_ptr[i]);
  });
  split(w.m.nnz(), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) {
      aj[k] = static_cast<GrB_Index>(w.m.col[k]);
      ax[k] = w.m.val[k];
    }
  });
  gb_check(GxB_Matrix_import_CSR(&w.gb_a, GrB_FP64, static_cast<GrB_Index>(n),
                                 static_cast<GrB_Index>(w.m.cols), &ap, &aj,
                                 reinterpret_cast<void**>(&ax),
                                 static_cast<GrB_Index>(n + 1) * sizeof(GrB_Index),
                                 static_cast<GrB_Index>(nnz) * sizeof(GrB_Index),
                                 static_cast<GrB_Index>(nnz) * sizeof(double), false, false, nullptr),
           "import CSR");
  auto* ux = static_cast<double*>(std::malloc(static_cast<std::size_t>(w.m.cols) * sizeof(double)));
  std::memcpy(ux, w.x.data(), static_cast<std::size_t>(w.m.cols) * sizeof(double));
  gb_check(GxB_Vector_import_Full(&w.gb_u, GrB_FP64, static_cast<GrB_Index>(w.m.cols),
                                  reinterpret_cast<void**>(&ux),
                                  static_cast<GrB_Index>(w.m.cols) * sizeof(double), false, nullptr),
           "import vector");
  gb_check(GrB_Vector_new(&w.gb_w, GrB_FP64, static_cast<GrB_Index>(n)), "new vector");
}

// w = A u with PLUS_TIMES_FP64, finished (no pending work).
void graphblas_mxv(workload& w) {
  gb_check(GrB_mxv(w.gb_w, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, w.gb_a, w.gb_u, nullptr), "mxv");
  gb_check(GrB_Vector_wait(w.gb_w, GrB_MATERIALIZE), "wait");
}

// Whether w agrees with the reference; rows with no entry are absent (0).
bool graphblas_agrees(const workload& w) {
  std::vector<double> y(static_cast<std::size_t>(w.m.rows), 0.0);
  GrB_Index nvals = 0;
  gb_check(GrB_Vector_nvals(&nvals, w.gb_w), "nvals");
  std::vector<GrB_Index> idx(nvals);
  std::vector<double> val(nvals);
  gb_check(GrB_Vector_extractTuples_FP64(idx.data(), val.data(), &nvals, w.gb_w), "extract");
  for (GrB_Index k = 0; k < nvals; ++k) y[idx[k]] = val[k];
  return agrees(w, y.data());
}
#endif

// The random-gather limit: sum_k val[k] * x[col[k]] over the same non-zeros
// without the row structure (12 bytes per non-zero streamed, x gathered).
double gather(const workload& w) {
  const col_index* c = w.m.col.data();
  const double* v = w.m.val.data();
  const double* x = w.x.data();
  return tbb::parallel_reduce(
      tbb::blocked_range<std::int64_t>(0, w.m.nnz(), 1 << 16), 0.0,
      [&](const tbb::blocked_range<std::int64_t>& r, double s) {
        double s0 = 0, s1 = 0;
        std::int64_t k = r.begin();
        for (; k + 2 <= r.end(); k += 2) {
          s0 += v[k] * x[c[k]];
          s1 += v[k + 1] * x[c[k + 1]];
        }
        for (; k < r.end(); ++k) s0 += v[k] * x[c[k]];
        return s + s0 + s1;
      },
      std::plus<>{});
}

// ---------------------------------------------------------------- replication

// The queries of the replication benchmark: Q indices into [0, n), cut into
// m segments of Q/m (segment k reads the k-th virtual copy).
constexpr std::int64_t replicate_queries = std::int64_t{1} << 20;

struct replication_data {
  std::int64_t n = 0, m = 0;
  vseg::array<double> xs;
  vseg::nested<std::int64_t> iss;
};
std::unique_ptr<replication_data> replication;

replication_data& get_replication(std::int64_t n, std::int64_t m) {
  current.reset();
  if (!replication || replication->n != n) {
    replication = std::make_unique<replication_data>();
    replication->n = n;
    replication->xs = test_vector(n);
  }
  if (replication->m != m) {
    replication->m = m;
    auto idx = uninitialised<std::int64_t>(replicate_queries);
    split(replicate_queries, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t q = lo; q < hi; ++q)
        idx.data()[q] = static_cast<std::int64_t>(mix(static_cast<std::uint64_t>(q) * 977) % static_cast<std::uint64_t>(n));
    });
    replication->iss = vseg::nested<std::int64_t>::from_segd(
        vseg::segd::uniform(m, replicate_queries / m), std::move(idx).freeze());
  }
  return *replication;
}

// The same program over a copying replicate: m copies of xs concatenated,
// then the same lookups (segment k reads copy k).
vseg::array<double> replicate_copy(const replication_data& d, std::int64_t n, std::int64_t m) {
  const std::int64_t per = replicate_queries / m;
  auto copies = uninitialised<double>(n * m);
  double* out = copies.data();
  split(n * m, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) out[i] = d.xs[i % n];
  });
  const std::int64_t* idx = d.iss.blocks()[0].data();
  auto sums = uninitialised<double>(m);
  split(m, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t k = lo; k < hi; ++k) {
      double s = 0;
      for (std::int64_t q = k * per; q < (k + 1) * per; ++q) s += out[k * n + idx[q]];
      sums.data()[k] = s;
    }
  });
  return std::move(sums).freeze();
}

// ---------------------------------------------------------------- treeLookup

using vseg::array;
using vseg::nested;

struct tree_data {
  array<std::int64_t> table, queries;
};
std::unique_ptr<tree_data> tree;

tree_data& get_tree() {
  current.reset();
  replication.reset();
  if (!tree) {
    const std::int64_t size = std::int64_t{1} << 24;
    tree = std::make_unique<tree_data>();
    tree->table = vseg::tabulate(size, [](std::int64_t i) { return (i * 2654435761) % 1000003; });
    tree->queries = vseg::tabulate(size, [&](std::int64_t i) {
      return static_cast<std::int64_t>((static_cast<std::uint64_t>(i) * 11400714819323198485ull) %
                                       static_cast<std::uint64_t>(size));
    });
  }
  return *tree;
}

// The flat-vector version: a plain parallel gather table[q] per query.
array<std::int64_t> tree_flat(const tree_data& t) {
  auto out = uninitialised<std::int64_t>(t.queries.size());
  const std::int64_t* tb = t.table.data();
  const std::int64_t* qs = t.queries.data();
  std::int64_t* o = out.data();
  split(t.queries.size(), [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) o[i] = tb[qs[i]];
  });
  return std::move(out).freeze();
}

// ---------------------------------------------------------------- round robin

// The machine is shared (other engineers build on the same two cores), so
// the contenders of one workload are timed in rounds: every round runs each
// of them once, in an order that rotates from round to round, and the
// counters are the per-contender medians over the rounds (in ms). A load
// change then hits every contender alike, and the read-bandwidth probe in
// the same rounds gives the limit under the same load.
struct contender {
  std::string name;
  std::function<void()> run;
};

int rounds() {
  const char* r = std::getenv("VSEG_BENCH_ROUNDS");
  return r ? std::max(1, std::atoi(r)) : 9;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : 0.5 * (v[k - 1] + v[k]);
}

void run_rounds(benchmark::State& state, const std::vector<contender>& cs) {
  std::vector<std::vector<double>> times(cs.size());
  std::size_t round = 0;
  for (auto _ : state) {
    double total = 0;
    for (std::size_t i = 0; i < cs.size(); ++i) {
      const std::size_t c = (i + round) % cs.size();
      const auto t0 = clock_type::now();
      cs[c].run();
      const double t = std::chrono::duration<double>(clock_type::now() - t0).count();
      times[c].push_back(t);
      total += t;
    }
    ++round;
    state.SetIterationTime(total);
  }
  for (std::size_t c = 0; c < cs.size(); ++c) {
    state.counters[cs[c].name + "_ms"] = median_of(times[c]) * 1e3;
    state.counters[cs[c].name + "_min_ms"] = *std::min_element(times[c].begin(), times[c].end()) * 1e3;
  }
}

// The read probe: 512 MiB (> 420 MiB) of words, kept for the whole run.
std::unique_ptr<vseg::array<std::uint64_t>> probe;

std::uint64_t read_probe() {
  if (!probe) {
    const std::int64_t n = std::int64_t{1} << 26;
    auto data = uninitialised<std::uint64_t>(n);
    split(n, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) data.data()[i] = mix(static_cast<std::uint64_t>(i));
    });
    probe = std::make_unique<vseg::array<std::uint64_t>>(std::move(data).freeze());
  }
  const std::uint64_t* w = probe->data();
  std::atomic<std::uint64_t> total{0};
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, probe->size(), 1 << 16),
                    [&](const tbb::blocked_range<std::int64_t>& r) {
                      std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                      std::int64_t i = r.begin();
                      for (; i + 4 <= r.end(); i += 4) {
                        s0 += w[i];
                        s1 += w[i + 1];
                        s2 += w[i + 2];
                        s3 += w[i + 3];
                      }
                      for (; i < r.end(); ++i) s0 += w[i];
                      total += s0 + s1 + s2 + s3;
                    },
                    tbb::static_partitioner());
  return total.load();
}

// Whether the hand loop's y (the workload's reference) matches the textbook
// loop: serial, one accumulator per row. Checks the unrolling and the chunks.
bool hand_matches_textbook(const workload& w) {
  const matrix& m = w.m;
  std::vector<double> y(static_cast<std::size_t>(m.rows));
  for (std::int64_t row = 0; row < m.rows; ++row) {
    double s = 0;
    for (std::int64_t k = m.row_ptr[row]; k < m.row_ptr[row + 1]; ++k) s += m.val[k] * w.x[m.col[k]];
    y[static_cast<std::size_t>(row)] = s;
  }
  return agrees(w, y.data());
}

void bm_spmv_rounds(benchmark::State& state, const std::string& name) {
  workload& w = get_workload(name);
  read_probe();
  if (!hand_matches_textbook(w)) state.SkipWithError("the hand CSR loop disagrees with the textbook loop");
  // Every contender is set up and checked before the rounds.
  std::vector<double> y_hand(static_cast<std::size_t>(w.m.rows));
  std::vector<contender> cs;
  cs.push_back({"read", [] { benchmark::DoNotOptimize(read_probe()); }});
  cs.push_back({"hand", [&] {
                  spmv_hand(w.m, w.chunks, w.x.data(), y_hand.data());
                  benchmark::ClobberMemory();
                }});
  cs.push_back({"vseg", [&] {
                  auto y = spmv_nested(w.vals, w.cols, w.x);
                  benchmark::DoNotOptimize(y.data());
                }});
  const auto y_nested = spmv_nested(w.vals, w.cols, w.x);
  if (!agrees(w, y_nested.data())) state.SkipWithError("nested SpMV disagrees with the CSR loop");
  // Eigen
  w.eigen_outer.resize(static_cast<std::size_t>(w.m.rows + 1));
  for (std::int64_t i = 0; i <= w.m.rows; ++i)
    w.eigen_outer[static_cast<std::size_t>(i)] = static_cast<int>(w.m.row_ptr[i]);
  w.eigen = std::make_unique<eigen_csr>(w.m.rows, w.m.cols, w.m.nnz(), w.eigen_outer.data(),
                                        w.m.col.data(), w.m.val.data());
  Eigen::setNbThreads(threads());
  Eigen::Map<const Eigen::VectorXd> ex(w.x.data(), w.m.cols);
  Eigen::VectorXd ey(w.m.rows);
  ey.noalias() = (*w.eigen) * ex;
  if (!agrees(w, ey.data())) state.SkipWithError("Eigen disagrees with the CSR loop");
  cs.push_back({"eigen", [&] {
                  ey.noalias() = (*w.eigen) * ex;
                  benchmark::ClobberMemory();
                }});
#ifdef VSEG_HAVE_GRAPHBLAS
  graphblas_setup(w);
  graphblas_mxv(w);
  if (!graphblas_agrees(w)) state.SkipWithError("GraphBLAS disagrees with the CSR loop");
  cs.push_back({"graphblas", [&] { graphblas_mxv(w); }});
#endif
  if (w.m.random_columns) cs.push_back({"gather", [&] { benchmark::DoNotOptimize(gather(w)); }});
  run_rounds(state, cs);
  set_counters(state, w.m);
  state.counters["probe_bytes"] = static_cast<double>(probe->size()) * 8;
}

void bm_replicate_rounds(benchmark::State& state) {
  const std::int64_t n = state.range(0), m = state.range(1);
  auto& d = get_replication(n, m);
  std::vector<contender> cs;
  cs.push_back({"vseg", [&] {
                  auto r = vseg::sum_s(vseg::index_l(vseg::replicate(m, d.xs), d.iss));
                  benchmark::DoNotOptimize(r.data());
                }});
  if (n * m <= (std::int64_t{1} << 27))
    cs.push_back({"copy", [&] { benchmark::DoNotOptimize(replicate_copy(d, n, m).data()); }});
  run_rounds(state, cs);
  state.counters["n"] = static_cast<double>(n);
  state.counters["m"] = static_cast<double>(m);
}

void bm_tree_rounds(benchmark::State& state) {
  auto& t = get_tree();
  const auto q = nested<std::int64_t>::from_lengths(array<std::int64_t>{t.queries.size()}, t.queries);
  if (treelookup::tree_lookup(vseg::replicate(1, t.table), q) != vseg::bpermute(t.table, t.queries))
    state.SkipWithError("treeLookup differs from the flat gather");
  std::vector<contender> cs;
  cs.push_back({"vseg", [&] {
                  benchmark::DoNotOptimize(treelookup::tree_lookup(vseg::replicate(1, t.table), q).data());
                }});
  cs.push_back({"flat", [&] { benchmark::DoNotOptimize(tree_flat(t).data()); }});
  run_rounds(state, cs);
}

// ---------------------------------------------------------------- peak memory

std::int64_t status_kib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::atoll(line.c_str() + std::strlen(field));
  return -1;
}

// Builds the workload's matrix (CSR arrays) and x, then resets the peak RSS
// and runs the nested SpMV as the program would: nested arrays from the
// row lengths, replicate, index_l, zip_with, sum_s. Prints one line of
// key=value pairs (bytes).
int peak_memory(const std::string& name) {
  matrix m = make_matrix(name);
  m.row_ptr = {};  // the hand loop's; the nested program does not use it
  const auto x = test_vector(m.cols);
  // hand back what vseg's buffer cache and malloc keep of freed blocks, so
  // the baseline counts only live memory
  vseg::release_buffer_cache();
  malloc_trim(0);
  const std::int64_t rss_before = status_kib("VmRSS:") * 1024;
  {
    std::ofstream reset("/proc/self/clear_refs");
    reset << "5";
  }
  std::int64_t checksum_rows = 0;
  {
    // one descriptor of the rows' shape for both (as the workloads use)
    const auto shape = vseg::segd::from_lengths(m.row_lengths);
    const auto vals = nested<double>::from_segd(shape, m.val);
    const auto cols = nested<col_index>::from_segd(shape, m.col);
    for (int r = 0; r < 3; ++r) checksum_rows += spmv_nested(vals, cols, x).size();
  }
  const std::int64_t hwm = status_kib("VmHWM:") * 1024;
  const std::int64_t matrix_bytes = m.rows * 8 + m.nnz() * static_cast<std::int64_t>(sizeof(col_index) + 8);
  const std::int64_t vector_bytes = (m.cols + m.rows) * 8;
  std::cout << "workload=" << name << " rows=" << m.rows << " nnz=" << m.nnz()
            << " matrix_bytes=" << matrix_bytes << " vector_bytes=" << vector_bytes
            << " rss_before=" << rss_before << " peak_rss=" << hwm
            << " process_base=" << rss_before - matrix_bytes - m.cols * 8
            << " results=" << checksum_rows << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // OpenMP's idle threads (Eigen, GraphBLAS) must not spin on the cores TBB
  // is using; libgomp reads this once, at load time, so re-exec if unset.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);
  }
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--peak-memory=", 0) == 0) return peak_memory(a.substr(14));
  }
#ifdef VSEG_HAVE_GRAPHBLAS
  GrB_init(GrB_NONBLOCKING);
  GxB_Global_Option_set(static_cast<GxB_Option_Field>(GxB_NTHREADS), threads());
#endif

  const char* only = std::getenv("VSEG_BENCH_WORKLOADS");
  std::vector<std::string> workloads = {"stencil27_160", "stencil7_256", "rmat23", "circuit"};
  if (only) {
    workloads.clear();
    std::string s = only;
    for (std::size_t p = 0; p <= s.size();) {
      const std::size_t q = std::min(s.find(',', p), s.size());
      if (q > p) workloads.push_back(s.substr(p, q - p));
      p = q + 1;
    }
  }

  const int r = rounds();
  for (const auto& w : workloads)
    benchmark::RegisterBenchmark(("spmv/" + w).c_str(), bm_spmv_rounds, w)
        ->UseManualTime()->Iterations(r)->Unit(benchmark::kMillisecond);
  for (std::int64_t n : {std::int64_t{1} << 20, std::int64_t{1} << 22, std::int64_t{1} << 24})
    for (std::int64_t m : {1, 4, 16, 64, 256, 1024})
      benchmark::RegisterBenchmark("replicate", bm_replicate_rounds)
          ->Args({n, m})->UseManualTime()->Iterations(r)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("treelookup", bm_tree_rounds)
      ->UseManualTime()->Iterations(r)->Unit(benchmark::kMillisecond);

  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("threads", std::to_string(threads()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  current.reset();
#ifdef VSEG_HAVE_GRAPHBLAS
  GrB_finalize();
#endif
  return 0;
}
