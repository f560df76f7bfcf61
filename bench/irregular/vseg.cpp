// bench/irregular's vseg contender: the programs of examples/ (each problem
// written in vseg's vectorised style), on the inputs of inputs.hpp converted
// to vseg arrays before the timing.
#include <cstdint>
#include <vector>

#include "harness.hpp"
#include "sort.hpp"

namespace {

using namespace irregular;

}  // namespace

int main(int argc, char** argv) {
  return run_main(argc, argv, {
    {"sort", [](std::int64_t n) {
       const vseg::array<double> xs(random_doubles(n));
       auto r = measure([&] { return examples::sort_doubles(xs); });
       return digest_of(r.data(), static_cast<std::size_t>(r.size()));
     }},
    {"sort-kv", [](std::int64_t n) {
       const vseg::array<std::uint32_t> keys(random_keys(n));
       const auto values = vseg::iota<std::int64_t>(n);
       auto [k, v] = measure([&] { return examples::sort_pairs(keys, values); });
       return digest_of(k.data(), static_cast<std::size_t>(k.size())) ^ mix(digest_of(v.data(), static_cast<std::size_t>(v.size())));
     }},
  });
}
