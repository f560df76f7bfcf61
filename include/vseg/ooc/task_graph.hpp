// A task graph as plain data, like dask's: every task names its operation,
// the block it works on and the tasks whose results it reads. Built by the
// blocked arrays (vseg/ooc/blocked.hpp) from their expression; inspectable,
// countable, and printable as Graphviz DOT (dask's visualize).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace vseg::ooc {

// One task: op on block `block` (-1 for a task over all blocks), reading the
// results of the tasks `inputs` (ids, all smaller than this task's id).
struct task {
  std::int64_t id = 0;
  std::string op;
  std::int64_t block = -1;
  std::vector<std::int64_t> inputs;
};

struct task_graph {
  std::vector<task> tasks;  // in a topological order: inputs come first

  // Appends a task and returns its id. O(inputs).
  std::int64_t add(std::string op, std::int64_t block, std::vector<std::int64_t> inputs) {
    const auto id = static_cast<std::int64_t>(tasks.size());
    tasks.push_back({id, std::move(op), block, std::move(inputs)});
    return id;
  }

  // How many tasks do op. O(tasks).
  std::int64_t count(const std::string& op) const {
    std::int64_t n = 0;
    for (const task& t : tasks) n += t.op == op ? 1 : 0;
    return n;
  }

  // The graph in Graphviz DOT: one node per task ("op [block]"), one edge per
  // input, blocks as clusters-free ranks. O(tasks + edges).
  std::string to_dot() const {
    std::ostringstream out;
    out << "digraph vseg {\n  rankdir=LR;\n  node [shape=box];\n";
    for (const task& t : tasks) {
      out << "  t" << t.id << " [label=\"" << t.op;
      if (t.block >= 0) out << " [" << t.block << "]";
      out << "\"];\n";
      for (std::int64_t i : t.inputs) out << "  t" << i << " -> t" << t.id << ";\n";
    }
    out << "}\n";
    return out.str();
  }
};

}  // namespace vseg::ooc
