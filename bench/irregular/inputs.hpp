// The inputs of bench/irregular, generated deterministically, and the
// digests that check the contenders' answers. Plain C++ (no vseg, no TBB, no
// ParlayLib), so every contender's executable includes it unchanged and all
// of them see identical inputs.
//
// Generating an R-MAT graph or 10^7 points takes longer than most runs, and
// every contender runs in its own process per round, so a generated input is
// cached as a raw binary file in the directory named by the environment
// variable VSEG_IRREGULAR_CACHE (none: generated in-process every time).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace irregular {

// A 64-bit mix of x (splitmix64's finaliser): the random source of every
// generator, so element i depends on (seed, i) only.
inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A uniform double in [0, 1) from the hash of (seed, i).
inline double unit(std::uint64_t seed, std::uint64_t i) {
  return static_cast<double>(mix(seed * 0x100000001b3ULL + i) >> 11) * 0x1.0p-53;
}

// ---------------------------------------------------------------------------
// Digests: an order-sensitive hash of a result, compared across contenders.

struct digest {
  std::uint64_t h = 0x243f6a8885a308d3ULL;
  void add(std::uint64_t x) { h = mix(h ^ x); }
  void add_double(double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    add(b);
  }
};

template <class T>
std::uint64_t digest_of(const T* xs, std::size_t n) {
  digest d;
  d.add(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) d.add_double(static_cast<double>(xs[i]));
    else d.add(static_cast<std::uint64_t>(xs[i]));
  }
  return d.h;
}

template <class T>
std::uint64_t digest_of(const std::vector<T>& xs) {
  return digest_of(xs.data(), xs.size());
}

// ---------------------------------------------------------------------------
// The cache: a vector of trivially copyable T written and read whole.

inline std::string cache_path(const std::string& name) {
  const char* dir = std::getenv("VSEG_IRREGULAR_CACHE");
  return dir && *dir ? std::string(dir) + "/" + name + ".bin" : std::string();
}

template <class T>
bool read_cached(const std::string& path, std::vector<T>& out) {
  if (path.empty()) return false;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::uint64_t n = 0;
  bool ok = std::fread(&n, sizeof n, 1, f) == 1;
  if (ok) {
    out.resize(n);
    ok = std::fread(out.data(), sizeof(T), n, f) == n;
  }
  std::fclose(f);
  return ok;
}

template <class T>
void write_cached(const std::string& path, const std::vector<T>& xs) {
  if (path.empty()) return;
  const std::string tmp = path + ".tmp" + std::to_string(mix(reinterpret_cast<std::uintptr_t>(&xs)) % 100000);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw std::runtime_error("irregular: cannot write the input cache " + tmp);
  const std::uint64_t n = xs.size();
  const bool ok = std::fwrite(&n, sizeof n, 1, f) == 1 && std::fwrite(xs.data(), sizeof(T), n, f) == n;
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error("irregular: cannot write the input cache " + tmp);
  std::rename(tmp.c_str(), path.c_str());  // atomic: a reader sees the whole file or none
}

// The vector `name` from the cache, or make() and cache it.
template <class T, class Make>
std::vector<T> cached(const std::string& name, Make make) {
  std::vector<T> xs;
  const std::string path = cache_path(name);
  if (read_cached(path, xs)) return xs;
  xs = make();
  write_cached(path, xs);
  return xs;
}

// ---------------------------------------------------------------------------
// Graphs: symmetric CSR, no self loops, sorted duplicate-free adjacency.

struct graph {
  std::vector<std::int64_t> offsets;  // n + 1
  std::vector<std::int32_t> targets;  // offsets[n]
  std::int64_t vertices() const { return static_cast<std::int64_t>(offsets.size()) - 1; }
};

// CSR from directed edge samples, symmetrised, self loops and duplicates dropped.
inline graph graph_from_edges(std::int64_t n, const std::vector<std::pair<std::int32_t, std::int32_t>>& edges) {
  graph g;
  g.offsets.assign(static_cast<std::size_t>(n + 1), 0);
  for (auto [u, v] : edges)
    if (u != v) ++g.offsets[u + 1], ++g.offsets[v + 1];
  for (std::int64_t i = 0; i < n; ++i) g.offsets[i + 1] += g.offsets[i];
  std::vector<std::int32_t> t(static_cast<std::size_t>(g.offsets[n]));
  std::vector<std::int64_t> fill(g.offsets.begin(), g.offsets.end() - 1);
  for (auto [u, v] : edges)
    if (u != v) t[fill[u]++] = v, t[fill[v]++] = u;
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(n + 1), 0);
  std::int64_t out = 0;
  for (std::int64_t u = 0; u < n; ++u) {
    auto b = t.begin() + g.offsets[u], e = t.begin() + g.offsets[u + 1];
    std::sort(b, e);
    for (auto it = b; it != e; ++it)
      if (it == b || *it != *(it - 1)) t[out++] = *it;
    offsets[u + 1] = out;
  }
  t.resize(static_cast<std::size_t>(out));
  g.offsets = std::move(offsets);
  g.targets = std::move(t);
  return g;
}

// An R-MAT graph on 2^log_n vertices from edges_per_vertex * 2^log_n samples
// (a, b, c = 0.5, 0.15, 0.15 as in ParlayLib's graph_utils), symmetrised.
inline graph rmat_graph(int log_n, std::int64_t edges_per_vertex, std::uint64_t seed) {
  const std::int64_t n = std::int64_t{1} << log_n, m = edges_per_vertex * n;
  std::vector<std::pair<std::int32_t, std::int32_t>> edges(static_cast<std::size_t>(m));
  for (std::int64_t e = 0; e < m; ++e) {
    std::int32_t u = 0, v = 0;
    for (int bit = 0; bit < log_n; ++bit) {
      const double r = unit(seed + static_cast<std::uint64_t>(bit), static_cast<std::uint64_t>(e));
      const int q = r < 0.5 ? 0 : r < 0.65 ? 1 : r < 0.8 ? 2 : 3;
      u = (u << 1) | (q >> 1);
      v = (v << 1) | (q & 1);
    }
    edges[static_cast<std::size_t>(e)] = {u, v};
  }
  return graph_from_edges(n, edges);
}

// The side x side grid graph, 4-neighbour.
inline graph grid_graph(std::int64_t side) {
  const std::int64_t n = side * side;
  graph g;
  g.offsets.reserve(static_cast<std::size_t>(n + 1));
  g.offsets.push_back(0);
  for (std::int64_t r = 0; r < side; ++r)
    for (std::int64_t c = 0; c < side; ++c) {
      const std::int64_t v = r * side + c;
      if (r > 0) g.targets.push_back(static_cast<std::int32_t>(v - side));
      if (c > 0) g.targets.push_back(static_cast<std::int32_t>(v - 1));
      if (c + 1 < side) g.targets.push_back(static_cast<std::int32_t>(v + 1));
      if (r + 1 < side) g.targets.push_back(static_cast<std::int32_t>(v + side));
      g.offsets.push_back(static_cast<std::int64_t>(g.targets.size()));
    }
  return g;
}

template <class Make>
graph cached_graph(const std::string& name, Make make) {
  graph g;
  const std::string po = cache_path(name + "-offsets"), pt = cache_path(name + "-targets");
  if (read_cached(po, g.offsets) && read_cached(pt, g.targets)) return g;
  g = make();
  write_cached(pt, g.targets);
  write_cached(po, g.offsets);
  return g;
}

// ---------------------------------------------------------------------------
// Sparse matrices (SpGEMM): CSR with sorted columns and small integer values,
// so every product and sum is exact and all contenders agree to the bit.

struct csr {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> offsets;  // rows + 1
  std::vector<std::int32_t> col;
  std::vector<double> val;
};

// The 5-point Laplacian of a side x side grid (4 on the diagonal, -1 beside).
inline csr poisson_2d(std::int64_t side) {
  csr a;
  a.rows = a.cols = side * side;
  a.offsets.push_back(0);
  for (std::int64_t r = 0; r < side; ++r)
    for (std::int64_t c = 0; c < side; ++c) {
      const std::int64_t v = r * side + c;
      auto put = [&](std::int64_t j, double x) { a.col.push_back(static_cast<std::int32_t>(j)), a.val.push_back(x); };
      if (r > 0) put(v - side, -1);
      if (c > 0) put(v - 1, -1);
      put(v, 4);
      if (c + 1 < side) put(v + 1, -1);
      if (r + 1 < side) put(v + side, -1);
      a.offsets.push_back(static_cast<std::int64_t>(a.col.size()));
    }
  return a;
}

// The R-MAT graph's adjacency as a matrix with values 1, 2 or 3.
inline csr rmat_matrix(int log_n, std::int64_t edges_per_vertex) {
  const graph g = rmat_graph(log_n, edges_per_vertex, 77);
  csr a;
  a.rows = a.cols = g.vertices();
  a.offsets = g.offsets;
  a.col = g.targets;
  a.val.resize(a.col.size());
  for (std::size_t k = 0; k < a.val.size(); ++k) a.val[k] = static_cast<double>(1 + mix(k) % 3);
  return a;
}

inline std::uint64_t digest_of(const csr& c) {
  digest d;
  d.add(digest_of(c.offsets));
  d.add(digest_of(c.col));
  d.add(digest_of(c.val));
  return d.h;
}

// ---------------------------------------------------------------------------
// Flat inputs.

// n doubles, uniform in [-1e6, 1e6).
inline std::vector<double> random_doubles(std::int64_t n) {
  std::vector<double> xs(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) xs[i] = (unit(1, static_cast<std::uint64_t>(i)) - 0.5) * 2e6;
  return xs;
}

// n 32-bit keys drawn from n / 4 values (so equal keys are common and a sort
// that is not stable shows), for (key, value) sorting: the values are 0..n-1.
inline std::vector<std::uint32_t> random_keys(std::int64_t n) {
  std::vector<std::uint32_t> ks(static_cast<std::size_t>(n));
  const std::uint64_t distinct = static_cast<std::uint64_t>(std::max<std::int64_t>(1, n / 4));
  for (std::int64_t i = 0; i < n; ++i)
    ks[i] = static_cast<std::uint32_t>(mix(mix(2 + static_cast<std::uint64_t>(i)) % distinct));
  return ks;
}

// n 64-bit values of which about n / 10 are distinct, in random order.
inline std::vector<std::int64_t> random_with_duplicates(std::int64_t n) {
  std::vector<std::int64_t> xs(static_cast<std::size_t>(n));
  const std::uint64_t distinct = static_cast<std::uint64_t>(std::max<std::int64_t>(1, n / 10));
  for (std::int64_t i = 0; i < n; ++i)
    xs[i] = static_cast<std::int64_t>(mix(1000 + mix(3 + static_cast<std::uint64_t>(i)) % distinct) >> 1);
  return xs;
}

// Text of n words separated by single spaces, drawn with a Zipf-like skew from
// a vocabulary of n / 50 + 1 lower-case words of 2 to 9 letters.
inline std::vector<char> random_text(std::int64_t n) {
  const std::uint64_t vocabulary = static_cast<std::uint64_t>(n / 50 + 1);
  std::vector<char> text;
  text.reserve(static_cast<std::size_t>(n * 7));
  for (std::int64_t i = 0; i < n; ++i) {
    const double u = unit(4, static_cast<std::uint64_t>(i));
    const std::uint64_t w = static_cast<std::uint64_t>(std::pow(static_cast<double>(vocabulary), u)) - 1;
    const std::uint64_t h = mix(w + 99);
    const int len = 2 + static_cast<int>(h % 8);
    if (i > 0) text.push_back(' ');
    for (int k = 0; k < len; ++k) text.push_back(static_cast<char>('a' + (h >> (8 + 5 * k)) % 26));
  }
  return text;
}

struct point {
  double x, y;
};

// n points uniform in the unit disc (its upper hull has ~n^(1/3) points).
inline std::vector<point> random_points(std::int64_t n) {
  std::vector<point> ps(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const double r = std::sqrt(unit(5, static_cast<std::uint64_t>(i)));
    const double t = 2 * 3.14159265358979323846 * unit(6, static_cast<std::uint64_t>(i));
    ps[i] = {r * std::cos(t), r * std::sin(t)};
  }
  return ps;
}

// Twice the signed area of (a, b, c): positive when c is left of a -> b.
inline double area(point a, point b, point c) {
  return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

// (word, count) sorted by word: the canonical form of a word count.
using word_count = std::pair<std::string, std::int64_t>;

inline std::uint64_t digest_of(std::vector<word_count> wc) {
  std::sort(wc.begin(), wc.end());
  digest d;
  d.add(wc.size());
  for (const auto& [w, c] : wc) {
    for (char ch : w) d.add(static_cast<unsigned char>(ch));
    d.add(static_cast<std::uint64_t>(c) << 8);
  }
  return d.h;
}

}  // namespace irregular
