// The stack-move planner (shuffle.hpp): a pure function of the program's
// code, run once per stack move before the program starts.
#include "shuffle.hpp"

#include <algorithm>

namespace vseg::vcode::detail {

std::optional<stack_shuffle> plan_shuffle(const std::vector<instruction>& code, std::size_t pc) {
  constexpr std::size_t most = 64;
  std::vector<std::size_t> depths;  // the run's stack, bottom first: depth of the entry before the run (0 = top)
  std::vector<std::size_t> copied;  // depths, one per entry a COPY made
  std::size_t originals = 0;
  std::size_t k = pc;
  for (; k < code.size() && is_stack_move(code[k].op); ++k) {
    const instruction& ins = code[k];
    if (ins.a < 0 || ins.b < 0 || ins.a + ins.b > static_cast<std::int64_t>(most)) break;
    const auto count = static_cast<std::size_t>(ins.a);
    const auto depth = static_cast<std::size_t>(ins.b);
    const std::size_t pulled = count + depth > depths.size() ? count + depth - depths.size() : 0;
    if (originals + pulled > most || depths.size() + count > most) break;
    for (std::size_t i = 0; i < pulled; ++i) depths.insert(depths.begin(), originals++);
    const auto first = static_cast<std::ptrdiff_t>(depths.size() - depth - count);
    const auto last = first + static_cast<std::ptrdiff_t>(count);
    if (ins.op == opcode::copy) {
      const std::vector<std::size_t> copies(depths.begin() + first, depths.begin() + last);
      depths.insert(depths.end(), copies.begin(), copies.end());
      copied.insert(copied.end(), copies.begin(), copies.end());
    } else if (ins.op == opcode::pop) {
      depths.erase(depths.begin() + first, depths.begin() + last);
    } else {
      std::rotate(depths.begin() + first, depths.begin() + last, depths.end());
    }
  }
  if (k - pc < 2) return std::nullopt;
  stack_shuffle s;
  s.length = static_cast<std::int64_t>(k - pc);
  s.window = originals;
  for (std::size_t d : depths) s.from.push_back(static_cast<std::uint8_t>(originals - 1 - d));
  for (std::size_t d : copied) s.copied.push_back(static_cast<std::uint8_t>(originals - 1 - d));
  std::vector<int> uses(originals, 0);
  for (std::uint8_t p : s.from) ++uses[p];
  for (std::size_t p = 0; p < originals; ++p)
    if (uses[p] != 1) s.changed.emplace_back(static_cast<std::uint8_t>(p), static_cast<std::int8_t>(uses[p] - 1));
  while (s.keep < s.from.size() && s.from[s.keep] == s.keep && uses[s.keep] == 1) ++s.keep;
  s.from.erase(s.from.begin(), s.from.begin() + static_cast<std::ptrdiff_t>(s.keep));
  std::vector<bool> seen(originals, false);
  for (std::size_t i = s.from.size(); i-- > 0;) {
    if (!seen[s.from[i]] && i < 64) s.last_use |= std::uint64_t{1} << i;
    seen[s.from[i]] = true;
  }
  return s;
}

}  // namespace vseg::vcode::detail
