// vseg::hdf5: nested<T> and multilevel<T> of any trivially copyable T saved
// to and loaded from HDF5 files (the layout: vseg/hdf5/file.hpp and
// notes/hdf5.md). Writing stores the *virtual* view: replicated segments are
// written once per use, so the file is the plain offsets-and-values form any
// tool reads; the element count is checked for overflow first.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/hdf5/file.hpp"
#include "vseg/multilevel.hpp"
#include "vseg/nested.hpp"

namespace vseg::hdf5 {

namespace detail {

// Elements staged per append when writing virtual segments.
inline constexpr std::int64_t write_stage = std::int64_t{1} << 18;

// The segments `order` of xss (bottom virtual segment ids), in that order, as
// the last offsets level and the values. O(their elements).
template <class T>
void write_bottom(writer& w, std::int64_t level, const nested<T>& xss, const std::vector<std::int64_t>& order) {
  std::vector<std::int64_t> offsets(order.size() + 1, 0);
  for (std::size_t j = 0; j < order.size(); ++j) offsets[j + 1] = offsets[j] + xss.length(order[j]);
  w.append_offsets(level, offsets);
  std::vector<T> stage;
  stage.reserve(static_cast<std::size_t>(write_stage));
  for (std::int64_t i : order) {
    for (const T& x : xss[i]) {
      stage.push_back(x);
      if (static_cast<std::int64_t>(stage.size()) == write_stage) {
        w.append_values(0, stage.data(), write_stage);
        stage.clear();
      }
    }
  }
  w.append_values(0, stage.data(), static_cast<std::int64_t>(stage.size()));
}

// Reads offsets_level and returns the per-segment lengths. O(segments).
inline array<std::int64_t> read_lengths(const reader& r, std::int64_t level) {
  const std::int64_t n = r.segments(level);
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(n + 1));
  r.read_offsets(level, 0, n + 1, offsets.data());
  auto lengths = buffer<std::int64_t>::for_overwrite(n);
  for (std::int64_t i = 0; i < n; ++i) lengths.data()[i] = offsets[static_cast<std::size_t>(i + 1)] - offsets[static_cast<std::size_t>(i)];
  return std::move(lengths).freeze();
}

// Reads all elements of the field "values" as T. O(elements).
template <class T>
array<T> read_all_values(const reader& r) {
  const std::size_t f = r.field_index("values", element_type_of<T>());
  auto data = buffer<T>::for_overwrite(r.elements());
  r.read_values(f, 0, r.elements(), data.data());
  return std::move(data).freeze();
}

}  // namespace detail

// Saves xss to path (depth 1: offsets_0 and values), atomically replacing
// any file there. O(virtual elements). Throws hdf5::error, or
// std::overflow_error when replication makes the elements exceed 2^63-1.
template <class T>
  requires std::is_trivially_copyable_v<T>
void save(const std::string& path, const nested<T>& xss) {
  (void)virtual_elements(xss);
  writer w(path, 1, {field{"values", element_type_of<T>()}});
  std::vector<std::int64_t> order(static_cast<std::size_t>(xss.size()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
  detail::write_bottom(w, 0, xss, order);
  w.commit();
}

// Loads a depth-1 array of T from path. O(elements + segments). Throws
// hdf5::error naming the file and dataset for a missing, foreign, truncated
// or corrupt file, or one holding another depth or element type.
template <class T>
  requires std::is_trivially_copyable_v<T>
nested<T> load_nested(const std::string& path) {
  reader r(path);
  if (r.depth() != 1)
    throw error("vseg::hdf5::load_nested: file '" + path + "': depth " + std::to_string(r.depth()) +
                ", not 1 (use load_multilevel)");
  array<T> data = detail::read_all_values<T>(r);
  return nested<T>::from_lengths(detail::read_lengths(r, 0), std::move(data));
}

// Saves a multilevel array (depth d: offsets_0 .. offsets_{d-1} and values),
// every level in its virtual view. O(virtual segments at every level +
// virtual elements). Throws as save(nested).
template <class T>
  requires std::is_trivially_copyable_v<T>
void save(const std::string& path, const multilevel<T>& xs) {
  (void)virtual_elements(xs);
  writer w(path, xs.depth(), {field{"values", element_type_of<T>()}});
  // The virtual segments of the current level, in order, by their ids.
  std::vector<std::int64_t> order(static_cast<std::size_t>(xs.size()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
  std::int64_t level = 0;
  for (const level_descriptor& l : xs.levels()) {
    std::vector<std::int64_t> offsets{0}, below;
    for (std::int64_t i : order) {
      const std::int64_t p = l.vsegids[i];
      offsets.push_back(offsets.back() + l.lengths[p]);
      for (std::int64_t j = 0; j < l.lengths[p]; ++j) below.push_back(l.starts[p] + j);
    }
    w.append_offsets(level++, offsets);
    order = std::move(below);
  }
  detail::write_bottom(w, level, xs.bottom(), order);
  w.commit();
}

// Loads a multilevel array of T of any depth from path. O(segments at every
// level + elements). Throws as load_nested.
template <class T>
  requires std::is_trivially_copyable_v<T>
multilevel<T> load_multilevel(const std::string& path) {
  reader r(path);
  std::vector<level_descriptor> levels;
  for (std::int64_t k = 0; k + 1 < r.depth(); ++k) {
    array<std::int64_t> lengths = detail::read_lengths(r, k);
    array<std::int64_t> starts = scan(lengths, plus<std::int64_t>{});
    levels.push_back({std::move(starts), std::move(lengths), iota<std::int64_t>(r.segments(k))});
  }
  array<T> data = detail::read_all_values<T>(r);
  auto bottom = nested<T>::from_lengths(detail::read_lengths(r, r.depth() - 1), std::move(data));
  return multilevel<T>::from_levels(std::move(levels), std::move(bottom));
}

}  // namespace vseg::hdf5
