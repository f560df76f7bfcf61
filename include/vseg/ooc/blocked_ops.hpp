// The lazy operations on blocked arrays (included by vseg/ooc/blocked.hpp):
// each returns a new blocked array whose blocks are computed from the same
// blocks of its inputs, and records itself in the expression for graph().
#pragma once

#include <algorithm>
#include <any>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "vseg/array.hpp"
#include "vseg/detail/error.hpp"
#include "vseg/nested.hpp"
#include "vseg/ooc/blocked.hpp"
#include "vseg/ooc/task_graph.hpp"

namespace vseg::ooc {

namespace detail {

inline std::shared_ptr<const expr_node> node(std::string op, std::vector<std::shared_ptr<const expr_node>> inputs) {
  return std::make_shared<const expr_node>(expr_node{std::move(op), std::move(inputs)});
}

}  // namespace detail

// [[f(x) | x <- xs] | xs <- xss], block by block with vseg::map. O(1) to build.
template <class F, class T>
auto map(F f, const blocked<T>& xss) {
  using U = std::invoke_result_t<F&, const T&>;
  return blocked<U>(xss.plan(), xss.size(), xss.leaves(), detail::node("map", {xss.expression()}),
                    [xss, f](std::int64_t b, std::span<const std::any> loaded) {
                      return nested<U>(vseg::map(f, xss.compute(b, loaded)));
                    },
                    xss.block_bytes() * 2);
}

// Element-wise f over two blocked arrays of one plan (built from the same
// file or array, or from each other), block by block with vseg::zip_with.
// O(blocks) to build; throws std::invalid_argument when the plans differ.
template <class F, class A, class B>
auto zip_with(F f, const blocked<A>& xss, const blocked<B>& yss) {
  using U = std::invoke_result_t<F&, const A&, const B&>;
  if (xss.plan() != yss.plan() && xss.blocks() != yss.blocks())
    vseg::detail::throw_invalid("ooc::zip_with", "the arrays are in different blocks (", xss.blocks().size(), " and ",
                                yss.blocks().size(), " blocks, or other boundaries)");
  auto leaves = xss.leaves();
  leaves.insert(leaves.end(), yss.leaves().begin(), yss.leaves().end());
  const std::size_t split = xss.leaves().size();
  return blocked<U>(xss.plan(), xss.size(), std::move(leaves), detail::node("zip_with", {xss.expression(), yss.expression()}),
                    [xss, yss, f, split](std::int64_t b, std::span<const std::any> loaded) {
                      return nested<U>(vseg::zip_with(f, xss.compute(b, loaded.first(split)),
                                                      yss.compute(b, loaded.subspan(split))));
                    },
                    xss.block_bytes() + yss.block_bytes());
}

// Lifted indexing into one in-memory vector: [[xs[i] | i <- is] | is <- iss],
// block by block as vseg::index_l(replicate(segments, xs), iss) (the vector is
// replicated by descriptor, never copied). O(1) to build; a bad index
// throws std::out_of_range when its block runs.
template <class T, class I>
blocked<T> index_l(const array<T>& xs, const blocked<I>& iss) {
  return blocked<T>(iss.plan(), iss.size(), iss.leaves(), detail::node("index_l", {iss.expression()}),
                    [xs, iss](std::int64_t b, std::span<const std::any> loaded) {
                      const nested<I> is = iss.compute(b, loaded);
                      return nested<T>(vseg::index_l(vseg::replicate(is.size(), xs), is));
                    },
                    iss.block_bytes() + iss.block_bytes() / static_cast<std::int64_t>(sizeof(I)) * static_cast<std::int64_t>(sizeof(T)));
}

// The segments whose flag is true (one in-memory flag per segment), block by
// block with vseg::pack; the result keeps the plan, its blocks hold fewer
// segments. O(segments) to build. Throws std::invalid_argument unless
// there is one flag per segment, or when xss is itself packed (its blocks
// no longer hold the plan's segments).
template <class T>
blocked<T> pack(const blocked<T>& xss, const array<bool>& flags) {
  auto packed = [](auto& self, const detail::expr_node& e) -> bool {
    if (e.op == "pack") return true;
    for (const auto& in : e.inputs)
      if (self(self, *in)) return true;
    return false;
  };
  if (packed(packed, *xss.expression()))
    vseg::detail::throw_invalid("ooc::pack", "the array is already packed: pack once, with the flags combined");
  vseg::detail::check_same_size("ooc::pack", "flags", flags.size(), "segments", xss.size());
  std::int64_t kept = 0;
  for (bool f : flags) kept += f ? 1 : 0;
  return blocked<T>(xss.plan(), kept, xss.leaves(), detail::node("pack", {xss.expression()}),
                    [xss, flags](std::int64_t b, std::span<const std::any> loaded) {
                      const block_range& r = xss.blocks()[static_cast<std::size_t>(b)];
                      return vseg::pack(xss.compute(b, loaded), flags.slice(r.first_segment, r.segments));
                    },
                    xss.block_bytes());
}

// The task graph of computing every block of xss and then `consumer` over
// all of them: per block a load task per input, a task per operation, and
// the consumer's per-block task; then one task combining the blocks.
// O(blocks * expression size).
template <class T>
task_graph graph(const blocked<T>& xss, const std::string& consumer = "collect") {
  task_graph g;
  for (std::int64_t b = 0; b < static_cast<std::int64_t>(xss.blocks().size()); ++b) {
    // Post-order over the expression: inputs first.
    auto add = [&](auto& self, const detail::expr_node& e) -> std::int64_t {
      std::vector<std::int64_t> inputs;
      for (const auto& in : e.inputs) inputs.push_back(self(self, *in));
      return g.add(e.op, b, std::move(inputs));
    };
    const std::int64_t last = add(add, *xss.expression());
    g.add(consumer, b, {last});
  }
  std::vector<std::int64_t> ends;
  for (const task& t : g.tasks)
    if (t.op == consumer) ends.push_back(t.id);
  g.add("combine " + consumer, -1, std::move(ends));
  return g;
}

}  // namespace vseg::ooc
