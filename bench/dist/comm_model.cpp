// The communication model of distributed SpMV at scale (notes/distributed.md):
// per rank and product, the bytes and point-to-point messages of 1D
// (rows balanced by nonzeros) and 2D (a sqrt(p) x sqrt(p) mesh, both fold
// orders: mesh_fold::serial and column_blocks) SpMV on the
// 27-point stencil and an R-MAT graph, for p = 4 ... 4096, counted from the
// matrices' structure (examples/dist/spmv_model.hpp; the test spmv_traffic
// checks the 1D count against the PMPI-measured traffic). No MPI calls.
//
//   ./comm_model [stencil n=96] [R-MAT scale=20]
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "../../examples/dist/dist_spmv.hpp"
#include "../../examples/dist/spmv_model.hpp"

namespace {

void report(const char* name, const vseg::csr_matrix& m) {
  std::printf("%s: %lld rows, %lld nonzeros\n", name, static_cast<long long>(m.rows), static_cast<long long>(m.nnz()));
  std::printf("| p | 1D max KB/rank | 1D max msgs | 2D mesh | 2D serial max KB/rank | 2D serial max msgs | "
              "2D column_blocks max KB/rank | 2D column_blocks max msgs | nnz/rank |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (std::int64_t p = 4; p <= 4096; p *= 4) {
    const auto one = dist_spmv::model_1d(m, dist_spmv::balanced_rows(m, p));
    const auto side = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(p))));
    const auto two = dist_spmv::model_2d(m, side, side, vseg::dist::mesh_fold::serial);
    const auto blocks = dist_spmv::model_2d(m, side, side, vseg::dist::mesh_fold::column_blocks);
    dist_spmv::rank_traffic max1, max2, max3;
    for (const auto& t : one) max1 = {std::max(max1.bytes, t.bytes), std::max(max1.messages, t.messages)};
    for (const auto& t : two) max2 = {std::max(max2.bytes, t.bytes), std::max(max2.messages, t.messages)};
    for (const auto& t : blocks) max3 = {std::max(max3.bytes, t.bytes), std::max(max3.messages, t.messages)};
    std::printf("| %lld | %.1f | %lld | %lldx%lld | %.1f | %lld | %.1f | %lld | %lld |\n", static_cast<long long>(p),
                static_cast<double>(max1.bytes) / 1024, static_cast<long long>(max1.messages),
                static_cast<long long>(side), static_cast<long long>(side), static_cast<double>(max2.bytes) / 1024,
                static_cast<long long>(max2.messages), static_cast<double>(max3.bytes) / 1024,
                static_cast<long long>(max3.messages), static_cast<long long>(m.nnz() / p));
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 96;
  const int scale = argc > 2 ? std::atoi(argv[2]) : 20;
  report("stencil27", dist_spmv::stencil(n));
  report("rmat", dist_spmv::rmat(scale, 16));
  return 0;
}
