// The stack-move planner: before the program runs, each run of consecutive
// COPY, POP and CPOP instructions is worked out once as one shuffle of the
// top stack entries (plan_shuffle), which machine::shuffle then does in one step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "vseg/vcode/program.hpp"

namespace vseg::vcode::detail {

// Whether op is one of the stack moves COPY, POP and CPOP.
inline bool is_stack_move(opcode op) { return op == opcode::copy || op == opcode::pop || op == opcode::cpop; }

// A run of consecutive stack moves (COPY, POP, CPOP) done as one step: its
// effect on the entries it touches, worked out once before the program
// runs. radix's 160k stack moves come in 65k runs; a run done at once
// saves the dispatch and the intermediate shifts of all but its first move.
// The run reads the top `window` entries; the first `keep` of them (from
// the bottom) stay where they are, and the rest of the window is replaced
// by `from` (window positions, 0 = deepest, bottom first; a position may
// repeat, a COPY, or be missing, a POP). `changed` lists the positions that
// appear other than once, with how many more (or fewer) times, for the
// memory count; `copied` the position of every entry a COPY of the run
// makes, for the -m check (the moves one by one would check after each
// COPY, so a run is done at once only when all its copies fit together).
struct stack_shuffle {
  std::int64_t length = 0;
  std::size_t window = 0;
  std::size_t keep = 0;
  std::vector<std::uint8_t> from;
  std::vector<std::pair<std::uint8_t, std::int8_t>> changed;
  std::vector<std::uint8_t> copied;
  // Bit i (i < 64): from[i] is the last use of its window position, so the
  // run may move that entry there instead of sharing it. `from` may be
  // longer than 64 (a run's COPYs add to its window); those places share.
  std::uint64_t last_use = 0;

  // Whether from[i] is the last use of its position. O(1).
  bool moves(std::size_t i) const noexcept { return i < 64 && ((last_use >> i) & 1u) != 0; }
};

// The shuffle of the run of stack moves starting at code[pc], if it is at
// least two moves long and touches at most 64 entries. O(run length * 64).
std::optional<stack_shuffle> plan_shuffle(const std::vector<instruction>& code, std::size_t pc);

}  // namespace vseg::vcode::detail
