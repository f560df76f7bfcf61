// The VCODE stack machine's loop (the machine class is in machine.hpp): the
// dispatch of pre-linked instructions, control (CALL, RET, IF), the stack
// moves done one by one or as planned runs, the -m word accounting, and the
// writing out of lazy splats. Every other operation goes to execute().
//
// Argument order follows NESL's op table (nesl/vcode/vcode_table.c): an op
// with k arguments takes them from the top k stack entries, the deepest being
// argument 1, e.g. `a b -` computes a - b, and the segment descriptor of a
// segmented op is always the last (top) argument.
#include "vseg/vcode/interpreter.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <limits>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "io.hpp"
#include "machine.hpp"
#include "shuffle.hpp"
#include "value.hpp"
#include "vseg/flat/tabulate.hpp"
#include "vseg/segd.hpp"

namespace vseg::vcode {

namespace detail {

machine::machine(const program& prog, const run_options& opt)
    : prog_(prog), opt_(opt), counting_(opt.memory_words != std::numeric_limits<std::int64_t>::max()),
      files_(opt.in, opt.out, opt.err) {
  constants_.reserve(prog.constants.size());
  for (const constant& c : prog.constants) constants_.push_back(make_slot(make_constant(c)));
  shuffle_at_.assign(prog.code.size(), -1);
  for (std::size_t pc = 0; pc < prog.code.size(); ++pc)
    if (is_stack_move(prog.code[pc].op))
      if (auto plan = plan_shuffle(prog.code, pc)) {
        shuffle_at_[pc] = static_cast<std::int32_t>(shuffles_.size());
        shuffles_.push_back(std::move(*plan));
      }
}

run_result machine::run() {
  run_result result;
  std::vector<std::int64_t> returns;
  std::int64_t pc = prog_.functions.at(static_cast<std::size_t>(prog_.main)).entry;
  const instruction* code = prog_.code.data();
  try {
    for (;;) {
      const instruction& ins = code[pc];
      ins_ = &ins;
      if (++result.instructions > opt_.max_instructions)
        fail("the run passed its budget of " + std::to_string(opt_.max_instructions) + " instructions");
      if (opt_.trace) trace(ins);
      ++pc;
      switch (ins.op) {
        case opcode::call:
          if (static_cast<std::int64_t>(returns.size()) >= opt_.max_call_depth)
            fail("CALL nesting deeper than " + std::to_string(opt_.max_call_depth) + " (runaway recursion?)");
          returns.push_back(pc);
          pc = ins.a;
          break;
        case opcode::ret:
          if (returns.empty()) {
            dump();
            report_profile(result);
            return result;
          }
          pc = returns.back();
          returns.pop_back();
          break;
        case opcode::if_:
          if (!condition()) pc = ins.a;
          break;
        case opcode::else_:
          pc = ins.a;
          break;
        case opcode::exit:
          result.exited = true;
          report_profile(result);
          return result;
        // Stack moves are most of NESL's instructions (radix: 160k of
        // 254k): run them here, not through execute()'s second switch,
        // unless each op is being timed.
        case opcode::copy:
        case opcode::pop:
        case opcode::cpop:
          if (!opt_.profile) {
            // A run of moves at once, unless each is traced (or the run
            // would fail: then move by move, so the error names its line).
            const std::int32_t at = shuffle_at_[static_cast<std::size_t>(pc - 1)];
            if (at >= 0 && !opt_.trace && shuffle(shuffles_[static_cast<std::size_t>(at)])) {
              const std::int64_t more = shuffles_[static_cast<std::size_t>(at)].length - 1;
              pc += more;
              result.instructions += more;
            } else {
              stack_move(ins);
            }
            break;
          }
          [[fallthrough]];
        default:
          if (opt_.profile) execute_timed(ins);
          else execute(ins);
      }
    }
  } catch (const error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw error(ins_->line, std::string(name(ins_->op)) + ": out of memory");
  } catch (const std::exception& e) {
    throw error(ins_->line, std::string(name(ins_->op)) + ": " + e.what());
  }
}

void machine::materialize(slot& entry) {
  if (entry->is_stored()) return;
  value v;
  std::visit(
      [&](const auto& x) {
        using X = std::remove_cvref_t<decltype(x)>;
        if constexpr (std::is_same_v<X, int_vec> || std::is_same_v<X, bool_vec> || std::is_same_v<X, float_vec>) {
          using T = typename X::value_type;
          const std::int64_t n = entry->length();
          check_room(detail::words_for<T>(n), words_ - entry->words());
          if (entry->lazy() != nullptr) v = value{materialized<T>(*entry)};
          else if constexpr (std::is_same_v<T, std::int32_t>)
            v = value{entry->splat_step() != 0 ? vseg::iota<std::int32_t>(n, x[0], entry->splat_step())
                                                : vseg::fill(n, x[0])};
          else v = value{vseg::fill(n, x[0])};
        }
      },
      entry->contents());
  if (counting_) words_ += v.words() - entry->words();
  entry = make_slot(std::move(v));
}

void machine::check_room(std::int64_t words, std::int64_t held) const {
  if (counting_ && words > opt_.memory_words - held)
    fail("memory limit exceeded: the result needs " + std::to_string(words) + " words beside the " +
         std::to_string(held) + " the stack holds, the limit (-m) is " + std::to_string(opt_.memory_words));
}

bool machine::condition() {
  const bool_vec& b = bools(1, 1);
  if (b.size() != 1) fail("IF needs a BOOL scalar, found a vector of length " + std::to_string(b.size()));
  const bool taken = b[0];
  drop(1);
  return taken;
}

void machine::stack_move(const instruction& ins) {
  const auto count = static_cast<std::size_t>(ins.a);
  const auto depth = static_cast<std::size_t>(ins.b);
  if (count + depth > stack_.size())
    fail(std::to_string(ins.a) + " " + std::to_string(ins.b) + ": stack underflow, the stack holds " +
         std::to_string(stack_.size()) + " values");
  const std::size_t first = stack_.size() - depth - count;
  switch (ins.op) {
    case opcode::copy:
      for (std::size_t i = 0; i < count; ++i) push(stack_[first + i]);
      break;
    case opcode::pop:
      if (counting_)
        for (std::size_t i = 0; i < count; ++i) words_ -= stack_[first + i]->words();
      stack_.erase(stack_.begin() + static_cast<std::ptrdiff_t>(first),
                   stack_.begin() + static_cast<std::ptrdiff_t>(first + count));
      break;
    default:  // cpop: move the entries to the top, in order
      std::rotate(stack_.begin() + static_cast<std::ptrdiff_t>(first),
                  stack_.begin() + static_cast<std::ptrdiff_t>(first + count), stack_.end());
  }
}

bool machine::shuffle(const stack_shuffle& s) {
  if (stack_.size() < s.window) return false;
  const std::size_t bottom = stack_.size() - s.window;
  if (counting_) {
    std::int64_t copies = 0;
    for (std::uint8_t p : s.copied) copies += stack_[bottom + p]->words();
    if (copies > opt_.memory_words - words_) return false;
    for (const auto& [p, extra] : s.changed) words_ += extra * stack_[bottom + p]->words();
  }
  // An entry's last use in the new top takes the handle; earlier uses (a
  // COPY) share it. So a moved entry's value is not touched at all.
  scratch_.clear();
  for (std::size_t i = 0; i < s.from.size(); ++i) {
    slot& e = stack_[bottom + s.from[i]];
    if (s.moves(i)) scratch_.push_back(std::move(e));
    else scratch_.push_back(e);
  }
  stack_.resize(bottom + s.keep);
  for (slot& e : scratch_) stack_.push_back(std::move(e));
  return true;
}

value machine::make_constant(const constant& c) {
  switch (c.ty) {
    case type::float_: return value{float_vec(std::vector<double>(c.floats))};
    case type::bool_: return value{bool_vec(std::vector<bool>(c.bools))};
    case type::segdes: {
      std::vector<std::int64_t> lengths(c.ints.begin(), c.ints.end());
      return value{segd::from_lengths(array<std::int64_t>(std::move(lengths)))};
    }
    default: return value{int_vec(std::vector<std::int32_t>(c.ints))};
  }
}

void machine::trace(const instruction& ins) const {
  std::fprintf(opt_.err, "line %d: %.*s", ins.line, static_cast<int>(name(ins.op).size()), name(ins.op).data());
  if (ins.ty != type::none)
    std::fprintf(opt_.err, " %.*s", static_cast<int>(name(ins.ty).size()), name(ins.ty).data());
  std::fputs("   stack:", opt_.err);
  for (const slot& entry : stack_) {
    const value& v = *entry;
    const std::string_view k = detail::kind_name(v.which());
    std::fprintf(opt_.err, " %.*s[%lld", static_cast<int>(k.size()), k.data(), static_cast<long long>(v.length()));
    // A descriptor shows its element count too: SEGDES[segments:elements].
    if (const auto* s = v.get_if<segd>()) std::fprintf(opt_.err, ":%lld", static_cast<long long>(s->elements()));
    std::fputc(']', opt_.err);
  }
  std::fputc('\n', opt_.err);
}

void machine::dump() {
  for (slot& entry : stack_) {
    materialize(entry);
    detail::write_value(opt_.out, *entry);
  }
}

}  // namespace detail

run_result run(const program& prog, const run_options& options) {
  if (prog.functions.empty()) throw error(0, "the program has no functions");
  detail::machine m(prog, options);
  return m.run();
}

}  // namespace vseg::vcode
