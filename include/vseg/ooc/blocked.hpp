// vseg::ooc::blocked<T>: a chunked nested array, larger than memory if need
// be, and the lazy operations on it.
//
// A blocked array is a sequence of blocks. A block is either whole segments
// (at most block_elements elements plus segments) or, for a segment longer
// than that, one piece of it (an element block). Its blocks are loaded
// lazily, from an HDF5 file (hdf5::reader) or from memory. map, zip_with,
// index_l (into an in-memory vector every segment reads) and pack build a
// new blocked array without running anything: its expression becomes a task
// graph (graph(), vseg/ooc/task_graph.hpp), and the consumers in
// vseg/ooc/blocked_run.hpp (fold_s, sum_s, scan_s, collect) run it block by
// block under a memory budget (vseg/ooc/scheduler.hpp). Each block's tasks
// call vseg's in-memory operations on that block, so a block's result
// depends only on the block: the same under every budget and thread count.
#pragma once

#include <algorithm>
#include <any>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/hdf5/file.hpp"
#include "vseg/nested.hpp"
#include "vseg/ooc/task_graph.hpp"

namespace vseg::ooc {

// One block: whole segments [first_segment, first_segment + segments), or
// (piece >= 0) the piece-th piece of segment first_segment; its elements are
// [first_element, first_element + elements) of the concatenated array.
struct block_range {
  std::int64_t first_segment = 0, segments = 0;
  std::int64_t first_element = 0, elements = 0;
  std::int64_t piece = -1;
  bool operator==(const block_range&) const = default;
};

// The blocks of an array whose offsets (segments + 1 entries) read_offsets(lo,
// hi, out) gives in pieces: whole segments while elements + segments stay
// within block_elements, pieces of block_elements for longer segments.
// O(segments) time, O(blocks) memory beyond a window of offsets.
template <class ReadOffsets>
std::vector<block_range> plan_blocks(std::int64_t segments, ReadOffsets&& read_offsets, std::int64_t block_elements) {
  if (block_elements < 1) vseg::detail::throw_invalid("ooc::plan_blocks", "block_elements ", block_elements, " < 1");
  constexpr std::int64_t window = std::int64_t{1} << 16;
  std::vector<block_range> plan;
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(window + 1));
  block_range open{0, 0, 0, 0, -1};
  auto close = [&] {
    if (open.segments > 0) plan.push_back(open);
  };
  for (std::int64_t s0 = 0; s0 < segments; s0 += window) {
    const std::int64_t n = std::min(window, segments - s0);
    read_offsets(s0, s0 + n + 1, offsets.data());
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t s = s0 + i, lo = offsets[static_cast<std::size_t>(i)];
      const std::int64_t len = offsets[static_cast<std::size_t>(i) + 1] - lo;
      if (len + 1 > block_elements) {  // pieces of their own
        close();
        for (std::int64_t p = 0; p * block_elements < len; ++p)
          plan.push_back({s, 1, lo + p * block_elements, std::min(block_elements, len - p * block_elements), p});
        open = {s + 1, 0, lo + len, 0, -1};
        continue;
      }
      if (open.elements + len + open.segments + 1 > block_elements) {
        close();
        open = {s, 0, lo, 0, -1};
      }
      open.segments += 1;
      open.elements += len;
    }
  }
  close();
  return plan;
}

namespace detail {

// What a blocked array's expression is made of, for its task graph.
struct expr_node {
  std::string op;
  std::vector<std::shared_ptr<const expr_node>> inputs;
};

// A lazily loaded input: loads one block (a nested<T> in a std::any).
struct leaf {
  std::string name;
  std::function<std::any(const block_range&)> load;
};

// The block's segments as a nested array, from its offsets and elements.
template <class T>
nested<T> make_block(const block_range& r, std::span<const std::int64_t> offsets, array<T> data) {
  if (r.piece >= 0) return nested<T>::from_lengths(array<std::int64_t>{r.elements}, std::move(data));
  auto lengths = buffer<std::int64_t>::for_overwrite(r.segments);
  for (std::int64_t i = 0; i < r.segments; ++i)
    lengths.data()[i] = offsets[static_cast<std::size_t>(i) + 1] - offsets[static_cast<std::size_t>(i)];
  return nested<T>::from_lengths(std::move(lengths).freeze(), std::move(data));
}

}  // namespace detail

template <class T>
class blocked {
 public:
  using value_type = T;
  // Computes one block from the loaded leaves (in leaves() order).
  using eval_fn = std::function<nested<T>(std::int64_t, std::span<const std::any>)>;

  blocked(std::shared_ptr<const std::vector<block_range>> plan, std::int64_t segments,
          std::vector<std::shared_ptr<const detail::leaf>> leaves, std::shared_ptr<const detail::expr_node> expr,
          eval_fn eval, std::int64_t block_bytes)
      : plan_(std::move(plan)), segments_(segments), leaves_(std::move(leaves)), expr_(std::move(expr)),
        eval_(std::move(eval)), block_bytes_(block_bytes) {}

  // Number of segments. O(1).
  std::int64_t size() const noexcept { return segments_; }
  // The blocks. O(1).
  const std::vector<block_range>& blocks() const noexcept { return *plan_; }
  // The shared plan (arrays from one plan can be zipped). O(1).
  const std::shared_ptr<const std::vector<block_range>>& plan() const noexcept { return plan_; }
  // The inputs loaded per block. O(1).
  const std::vector<std::shared_ptr<const detail::leaf>>& leaves() const noexcept { return leaves_; }
  // The expression, for graphs. O(1).
  const std::shared_ptr<const detail::expr_node>& expression() const noexcept { return expr_; }
  // Bytes one block holds at most while computed (inputs and results). O(1).
  std::int64_t block_bytes() const noexcept { return block_bytes_; }

  // Loads block b's leaves. O(block). Not thread-safe (one reader at a time).
  std::vector<std::any> load(std::int64_t b) const {
    std::vector<std::any> loaded;
    for (const auto& l : leaves_) loaded.push_back(l->load((*plan_)[static_cast<std::size_t>(b)]));
    return loaded;
  }
  // Computes block b from its loaded leaves. O(block).
  nested<T> compute(std::int64_t b, std::span<const std::any> loaded) const { return eval_(b, loaded); }

 private:
  std::shared_ptr<const std::vector<block_range>> plan_;
  std::int64_t segments_;
  std::vector<std::shared_ptr<const detail::leaf>> leaves_;
  std::shared_ptr<const detail::expr_node> expr_;
  eval_fn eval_;
  std::int64_t block_bytes_;
};

// ---------------------------------------------------------------------------
// Sources

namespace detail {

template <class T>
blocked<T> leaf_array(std::shared_ptr<const std::vector<block_range>> plan, std::int64_t segments, std::string name,
                      std::function<std::any(const block_range&)> load, std::int64_t block_elements) {
  auto l = std::make_shared<const leaf>(leaf{name, std::move(load)});
  auto e = std::make_shared<const expr_node>(expr_node{"load " + name, {}});
  return blocked<T>(std::move(plan), segments, {l}, e,
                    [](std::int64_t, std::span<const std::any> loaded) { return std::any_cast<nested<T>>(loaded[0]); },
                    block_elements * static_cast<std::int64_t>(sizeof(T)) + 8 * block_elements);
}

}  // namespace detail

// The field `field` of a depth-1 array in an HDF5 file, in blocks of at
// most block_elements elements plus segments. O(segments) to plan; each
// block is read when the scheduler loads it. Throws hdf5::error for a bad
// file, another depth or element type.
template <class T>
blocked<T> from_file(std::shared_ptr<const hdf5::reader> file, std::int64_t block_elements,
                     const std::string& field = "values") {
  if (file->depth() != 1)
    throw hdf5::error("vseg::ooc::from_file: file '" + file->path() + "': depth " + std::to_string(file->depth()) +
                      ", blocked arrays read depth 1");
  const std::size_t f = file->field_index(field, hdf5::element_type_of<T>());
  auto plan = std::make_shared<const std::vector<block_range>>(plan_blocks(
      file->segments(0), [&](std::int64_t lo, std::int64_t hi, std::int64_t* out) { file->read_offsets(0, lo, hi, out); },
      block_elements));
  auto load = [file, f](const block_range& r) -> std::any {
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(r.segments + 1));
    if (r.piece < 0) file->read_offsets(0, r.first_segment, r.first_segment + r.segments + 1, offsets.data());
    auto data = buffer<T>::for_overwrite(r.elements);
    file->read_values(f, r.first_element, r.first_element + r.elements, data.data());
    return detail::make_block<T>(r, offsets, std::move(data).freeze());
  };
  return detail::leaf_array<T>(std::move(plan), file->segments(0), file->path() + ":" + field, load, block_elements);
}

// An in-memory nested array in blocks, as from_file would give it (its
// virtual elements are concatenated once). O(virtual elements).
template <class T>
blocked<T> from_nested(const nested<T>& xss, std::int64_t block_elements) {
  const segd shape = xss.shape();
  const array<T> data = concat(xss);
  auto plan = std::make_shared<const std::vector<block_range>>(plan_blocks(
      xss.size(),
      [&](std::int64_t lo, std::int64_t hi, std::int64_t* out) {
        for (std::int64_t s = lo; s < hi; ++s) out[s - lo] = s < shape.segments() ? shape.start(s) : shape.elements();
      },
      block_elements));
  auto load = [shape, data](const block_range& r) -> std::any {
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(r.segments + 1));
    for (std::int64_t i = 0; i <= r.segments && r.piece < 0; ++i)
      offsets[static_cast<std::size_t>(i)] = r.first_segment + i < shape.segments() ? shape.start(r.first_segment + i) : shape.elements();
    auto block = buffer<T>::for_overwrite(r.elements);
    std::copy(data.data() + r.first_element, data.data() + r.first_element + r.elements, block.data());
    return detail::make_block<T>(r, offsets, std::move(block).freeze());
  };
  return detail::leaf_array<T>(std::move(plan), xss.size(), "memory", load, block_elements);
}

}  // namespace vseg::ooc

#include "vseg/ooc/blocked_ops.hpp"
