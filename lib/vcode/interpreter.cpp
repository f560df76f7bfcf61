// The VCODE stack machine. Control (CALL, RET, IF, stack moves) is a switch
// over pre-linked instructions; every vector operation is one or two calls of
// vseg's flat and segmented primitives on the operands' shared arrays.
//
// Argument order follows NESL's op table (nesl/vcode/vcode_table.c): an op
// with k arguments takes them from the top k stack entries, the deepest being
// argument 1, e.g. `a b -` computes a - b, and the segment descriptor of a
// segmented op is always the last (top) argument.
#include "vseg/vcode/interpreter.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/smart_ptr/intrusive_ptr.hpp>

#include "io.hpp"
#include "lcg48.hpp"
#include "value.hpp"
#include "vseg/detail/parallel.hpp"
#include "vseg/flat/map.hpp"
#include "vseg/flat/permute.hpp"
#include "vseg/flat/reduce.hpp"
#include "vseg/flat/tabulate.hpp"
#include "vseg/monoid.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/bpermute.hpp"
#include "vseg/segmented/bpermute_flagged.hpp"
#include "vseg/segmented/extract.hpp"
#include "vseg/segmented/fold.hpp"
#include "vseg/segmented/iota.hpp"
#include "vseg/segmented/pack.hpp"
#include "vseg/segmented/permute.hpp"
#include "vseg/segmented/rank.hpp"
#include "vseg/segmented/replace.hpp"
#include "vseg/segmented/replicate.hpp"
#include "vseg/segmented/scan.hpp"

namespace vseg::vcode {

namespace {

using detail::bool_vec;
using detail::float_vec;
using detail::int_vec;
using detail::value;

// A stack entry: a handle to a value that COPY shares rather than copies.
// COPY is one (non-atomic, see value) reference-count increment, CPOP and
// POP move 8-byte handles (a value is 192 bytes: its vector or descriptor
// and the caches below),
// which matters where the vectors are short: radix spends 160k of its 254k
// instructions on stack moves. A value shared by two entries is never
// written in place (see reusable()).
using slot = boost::intrusive_ptr<value>;

slot make_slot(value v) { return slot(new value(std::move(v))); }

// --- Scalar semantics of VCODE INT (a wrapping 32-bit C int) and FLOAT. ---

std::int32_t wrap(std::uint32_t x) { return static_cast<std::int32_t>(x); }
std::uint32_t bits(std::int32_t x) { return static_cast<std::uint32_t>(x); }

// A double converted to int as x86's cvttsd2si does: truncation, and
// INT_MIN for NaN or a value out of range (C leaves that undefined).
std::int32_t to_int32(double x) {
  if (!(x >= -2147483648.0 && x < 2147483648.0)) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(x);
}

struct division_by_zero : std::exception {
  const char* what() const noexcept override { return "division by zero"; }
};

// Monoids with NESL's exact operators and identities (nesl/cvl/serial).
struct wrapping_plus {
  static constexpr std::int32_t identity() { return 0; }
  std::int32_t operator()(std::int32_t a, std::int32_t b) const { return wrap(bits(a) + bits(b)); }
};
struct wrapping_times {
  static constexpr std::int32_t identity() { return 1; }
  std::int32_t operator()(std::int32_t a, std::int32_t b) const { return wrap(bits(a) * bits(b)); }
};
// max(i,j) = i > j ? i : j, identity MIN_INT, or (double)(float)-1e36 for FLOAT.
template <class T>
struct nesl_max {
  static constexpr T identity() {
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(-1.0e36f);
    else return std::numeric_limits<T>::min();
  }
  T operator()(T a, T b) const { return a > b ? a : b; }
};
template <class T>
struct nesl_min {
  static constexpr T identity() {
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(1.0e36f);
    else return std::numeric_limits<T>::max();
  }
  T operator()(T a, T b) const { return a < b ? a : b; }
};

template <class T>
struct vec_of;
template <>
struct vec_of<std::int32_t> {
  using type = int_vec;
  static constexpr value::kind kind = value::int_;
};
template <>
struct vec_of<bool> {
  using type = bool_vec;
  static constexpr value::kind kind = value::bool_;
};
template <>
struct vec_of<double> {
  using type = float_vec;
  static constexpr value::kind kind = value::float_;
};

value::kind kind_of(type t) {
  switch (t) {
    case type::int_:
    case type::chars: return value::int_;
    case type::bool_: return value::bool_;
    case type::float_: return value::float_;
    case type::segdes: return value::segdes;
    case type::none: break;
  }
  return value::pair;
}

bool is_stack_move(opcode op) { return op == opcode::copy || op == opcode::pop || op == opcode::cpop; }

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
};

// The shuffle of the run of stack moves starting at code[pc], if it is at
// least two moves long and touches at most 64 entries.
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
  return s;
}

// The operations that reach outside the run: SPAWN runs a command, the
// F-operations open and use files. run_options::sandbox refuses them.
constexpr bool reaches_outside(opcode op) {
  return op == opcode::spawn || op == opcode::fopen || op == opcode::fclose || op == opcode::fread ||
         op == opcode::fread_char || op == opcode::fwrite;
}

class machine {
 public:
  machine(const program& prog, const run_options& opt)
      : prog_(prog), opt_(opt), files_(opt.in, opt.out, opt.err) {
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

  run_result run() {
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

 private:
  // --- Stack access with the checks that keep a bad program from crashing. ---

  [[noreturn]] void fail(const std::string& what) const {
    std::string op(name(ins_->op));
    if (ins_->ty != type::none && ins_->op != opcode::const_) op += " " + std::string(name(ins_->ty));
    throw error(ins_->line, op + ": " + what);
  }

  void need(std::size_t n) const {
    if (stack_.size() < n)
      fail("stack underflow: needs " + std::to_string(n) + " values, the stack holds " +
           std::to_string(stack_.size()));
  }

  // The value `depth` entries below the top (0 is the top).
  const value& at(std::size_t depth) const { return *stack_[stack_.size() - 1 - depth]; }

  // Argument `argno` (1-based, deepest first) of an op with `argc` arguments,
  // checked to be of kind k; a splat is materialised (see value::splat), so
  // every op but the element-wise ones sees plain vectors.
  const value& arg(std::size_t argc, std::size_t argno, value::kind k) const {
    need(argc);
    slot& entry = stack_[stack_.size() - 1 - (argc - argno)];
    if (entry->which() != k)
      fail("argument " + std::to_string(argno) + " is " + std::string(detail::kind_name(entry->which())) +
           ", expected " + std::string(detail::kind_name(k)));
    materialize(entry);
    return *entry;
  }

  // A splat entry made into the vector it stands for: a new value (another
  // entry may share the splat), counted at its real size.
  void materialize(slot& entry) const {
    if (entry->splat < 0) return;
    const std::int64_t n = entry->splat;
    value v;
    std::visit(
        [&](const auto& x) {
          using X = std::remove_cvref_t<decltype(x)>;
          if constexpr (std::is_same_v<X, int_vec> || std::is_same_v<X, bool_vec> || std::is_same_v<X, float_vec>) {
            check_room(detail::words_for<typename X::value_type>(n), words_ - entry->words());
            if constexpr (std::is_same_v<X, int_vec>) {
              if (entry->step != 0) {
                v = value{vseg::iota<std::int32_t>(n, x[0], entry->step)};
                return;
              }
            }
            v = value{vseg::fill(n, x[0])};
          }
        },
        entry->v);
    words_ += v.words() - entry->words();
    entry = make_slot(std::move(v));
  }

  // The scalar of a splat argument of kind T, or nullptr when the argument
  // is not a splat of one value (or not of that kind: arg() reports the
  // error).
  template <class T>
  const T* splat_scalar(std::size_t depth) const {
    const value& v = at(depth);
    if (v.splat < 0 || v.step != 0) return nullptr;
    const auto* a = std::get_if<typename vec_of<T>::type>(&v.v);
    return a == nullptr ? nullptr : a->data();
  }

  template <class T>
  const typename vec_of<T>::type& vec(std::size_t argc, std::size_t argno) const {
    return std::get<typename vec_of<T>::type>(arg(argc, argno, vec_of<T>::kind).v);
  }
  const int_vec& ints(std::size_t argc, std::size_t argno) const { return vec<std::int32_t>(argc, argno); }
  const bool_vec& bools(std::size_t argc, std::size_t argno) const { return vec<bool>(argc, argno); }
  const segd& segdes(std::size_t argc, std::size_t argno) const {
    return std::get<segd>(arg(argc, argno, value::segdes).v);
  }

  // An element-wise op's later argument must be at least as long as its
  // first: the result has the first argument's length, as in NESL's CVL
  // (batcher.vcode compares a vector with a longer one). A shorter one would
  // make NESL read past its end; here it is an error.
  template <class T>
  std::span<const T> prefix_span(const array<T>& first, const array<T>& later, const char* what) const {
    if (later.size() < first.size())
      fail("vector length mismatch: argument 1 has " + std::to_string(first.size()) + " elements, " + what +
           " has " + std::to_string(later.size()));
    return later.span().first(static_cast<std::size_t>(first.size()));
  }

  void same_length(std::int64_t a, std::int64_t b, const char* what_a, const char* what_b) const {
    if (a != b)
      fail("vector length mismatch: " + std::string(what_a) + " has " + std::to_string(a) + " elements, " +
           what_b + " has " + std::to_string(b));
  }

  void covers(const segd& s, std::int64_t n, const char* what) const {
    if (s.elements() != n)
      fail("vector length mismatch: the segment descriptor covers " + std::to_string(s.elements()) +
           " elements, " + what + " has " + std::to_string(n));
  }

  // Fails before an operation allocates a result of `words` that would take
  // the stack over the -m limit beside the `held` words that stay (push()
  // counts again when the result exists): an INDEX, a DIST or a splat's
  // writing out over 2^31 elements must stop here, not after filling 8 GB.
  void check_room(std::int64_t words, std::int64_t held) const {
    if (words > opt_.memory_words - held)
      fail("memory limit exceeded: the result needs " + std::to_string(words) + " words beside the " +
           std::to_string(held) + " the stack holds, the limit (-m) is " + std::to_string(opt_.memory_words));
  }
  // The same for n T's replacing the top `argc` arguments.
  template <class T>
  void room_for(std::size_t argc, std::int64_t n) const {
    need(argc);
    std::int64_t held = words_;
    for (std::size_t d = 0; d < argc; ++d) held -= at(d).words();
    check_room(detail::words_for<T>(n), held);
  }

  void push(slot entry) {
    words_ += entry->words();
    if (words_ > opt_.memory_words)
      fail("memory limit exceeded: the stack holds " + std::to_string(words_) + " words, the limit (-m) is " +
           std::to_string(opt_.memory_words));
    stack_.push_back(std::move(entry));
  }
  void push(value v) { push(make_slot(std::move(v))); }

  void drop(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      words_ -= stack_.back()->words();
      stack_.pop_back();
    }
  }

  // Replaces the top `argc` entries by `result`.
  void finish(std::size_t argc, slot result) {
    drop(argc);
    push(std::move(result));
  }
  void finish(std::size_t argc, value result) { finish(argc, make_slot(std::move(result))); }

  template <class Vec>
  static value wrap_value(Vec v) {
    return value{std::move(v)};
  }

  // --- Control. ---

  bool condition() {
    const bool_vec& b = bools(1, 1);
    if (b.size() != 1) fail("IF needs a BOOL scalar, found a vector of length " + std::to_string(b.size()));
    const bool taken = b[0];
    drop(1);
    return taken;
  }

  void stack_move(const instruction& ins) {
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
        for (std::size_t i = 0; i < count; ++i) words_ -= stack_[first + i]->words();
        stack_.erase(stack_.begin() + static_cast<std::ptrdiff_t>(first),
                     stack_.begin() + static_cast<std::ptrdiff_t>(first + count));
        break;
      default:  // cpop: move the entries to the top, in order
        std::rotate(stack_.begin() + static_cast<std::ptrdiff_t>(first),
                    stack_.begin() + static_cast<std::ptrdiff_t>(first + count), stack_.end());
    }
  }

  // Does a run of stack moves at once; false, doing nothing, when the stack
  // is too short for it or its copies could pass the -m limit.
  bool shuffle(const stack_shuffle& s) {
    if (stack_.size() < s.window) return false;
    const std::size_t bottom = stack_.size() - s.window;
    if (opt_.memory_words != std::numeric_limits<std::int64_t>::max()) {
      std::int64_t copies = 0;
      for (std::uint8_t p : s.copied) copies += stack_[bottom + p]->words();
      if (copies > opt_.memory_words - words_) return false;
    }
    std::int64_t delta = 0;
    for (const auto& [p, extra] : s.changed) delta += extra * stack_[bottom + p]->words();
    scratch_.clear();
    for (std::uint8_t p : s.from) scratch_.push_back(stack_[bottom + p]);
    stack_.resize(bottom + s.keep);
    for (slot& e : scratch_) stack_.push_back(std::move(e));
    words_ += delta;
    return true;
  }

  static value make_constant(const constant& c) {
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

  void trace(const instruction& ins) const {
    std::fprintf(opt_.err, "line %d: %.*s", ins.line, static_cast<int>(name(ins.op).size()), name(ins.op).data());
    if (ins.ty != type::none)
      std::fprintf(opt_.err, " %.*s", static_cast<int>(name(ins.ty).size()), name(ins.ty).data());
    std::fputs("   stack:", opt_.err);
    for (const slot& entry : stack_) {
      const value& v = *entry;
      const std::string_view k = detail::kind_name(v.which());
      std::fprintf(opt_.err, " %.*s[%lld", static_cast<int>(k.size()), k.data(), static_cast<long long>(v.length()));
      // A descriptor shows its element count too: SEGDES[segments:elements].
      if (const auto* s = std::get_if<segd>(&v.v)) std::fprintf(opt_.err, ":%lld", static_cast<long long>(s->elements()));
      std::fputc(']', opt_.err);
    }
    std::fputc('\n', opt_.err);
  }

  void dump() {
    for (slot& entry : stack_) {
      materialize(entry);
      detail::write_value(opt_.out, *entry);
    }
  }

  // --- Element-wise operations. ---

  // The storage of a stack entry when a result of n U's may overwrite it:
  // no other entry shares the value, and its vector is the only owner of a
  // buffer (array::writable_if_unique), so nothing else can see the write.
  // Otherwise an empty span.
  template <class U>
  static std::span<U> reusable(const slot& entry, std::int64_t n) {
    value& v = *entry;
    auto* a = std::get_if<array<U>>(&v.v);
    if (entry->use_count() != 1 || a == nullptr || v.splat >= 0 || a->size() != n) return {};
    return a->writable_if_unique();
  }

  // An element-wise result of n U's, computed by fill(span) into the storage
  // of one of the arguments when it is reusable, else into a new buffer.
  // Chains of element-wise ops (black-scholes: 3,000 of them over 10M
  // elements) then run in a few warm buffers instead of allocating and
  // faulting in one per op, and write to lines they have just read.
  // `depths` are the stack depths of the arguments that may be reused.
  template <class U, class Fill>
  slot elementwise_result(std::int64_t n, std::initializer_list<std::size_t> depths, Fill&& fill) {
    for (std::size_t depth : depths) {
      const slot& entry = stack_[stack_.size() - 1 - depth];
      if (auto out = reusable<U>(entry, n); out.data() != nullptr) {
        fill(out);
        entry->written_in_place();
        return entry;
      }
    }
    auto out = buffer<U>::for_overwrite(n);
    fill(out.span());
    return make_slot(std::move(out).freeze());
  }

  template <class T, class F>
  void unary(F f) {
    using U = std::remove_cvref_t<std::invoke_result_t<F&, const T&>>;
    need(1);
    if (const T* s = splat_scalar<T>(0)) return finish(1, make_splat<U>(f(*s), at(0).splat));
    const auto& a = vec<T>(1, 1);
    finish(1, elementwise_result<U>(a.size(), {0}, [&](std::span<U> out) { vseg::map_into(f, a, out); }));
  }

  // A splat of n copies of x.
  template <class U>
  static value make_splat(U x, std::int64_t n) {
    value v{array<U>{x}};
    v.splat = n;
    return v;
  }

  template <class T, class F>
  void binary(F f) {
    using U = std::remove_cvref_t<std::invoke_result_t<F&, const T&, const T&>>;
    need(2);
    const T* sa = splat_scalar<T>(1);
    const T* sb = splat_scalar<T>(0);
    if (sa != nullptr || sb != nullptr) {
      // A splat argument is used as its scalar: argument 1's length, and
      // argument 2 at least as long, as below.
      const std::int64_t n = at(1).length();
      if (at(0).length() < n)
        fail("vector length mismatch: argument 1 has " + std::to_string(n) + " elements, argument 2 has " +
             std::to_string(at(0).length()));
      if (sa != nullptr && sb != nullptr) return finish(2, make_splat<U>(f(*sa, *sb), n));
      if (sa != nullptr) {
        const T x = *sa;
        const std::span<const T> b = vec<T>(2, 2).span().first(static_cast<std::size_t>(n));
        return finish(2, elementwise_result<U>(n, {0}, [&](std::span<U> out) {
                        vseg::map_into([&](const T& y) { return f(x, y); }, b, out);
                      }));
      }
      const T y = *sb;
      const auto& a = vec<T>(2, 1);
      return finish(2, elementwise_result<U>(n, {1}, [&](std::span<U> out) {
                      vseg::map_into([&](const T& x) { return f(x, y); }, a, out);
                    }));
    }
    const auto& a = vec<T>(2, 1);
    // A view of argument 2's prefix, not a copy of the array: a copy would
    // share its buffer and keep it from being reused.
    const std::span<const T> b = prefix_span(a, vec<T>(2, 2), "argument 2");
    finish(2, elementwise_result<U>(a.size(), {1, 0},
                                    [&](std::span<U> out) { vseg::zip_with_into(f, a, b, out); }));
  }

  // An op defined on INT and FLOAT: fi on ints, ff on doubles.
  template <class FI, class FF>
  void arith(const instruction& ins, FI fi, FF ff) {
    if (ins.ty == type::int_) binary<std::int32_t>(fi);
    else binary<double>(ff);
  }

  template <class F>
  void compare(const instruction& ins, F f) {
    if (ins.ty == type::int_) binary<std::int32_t>([f](std::int32_t a, std::int32_t b) { return f(a, b); });
    else binary<double>([f](double a, double b) { return f(a, b); });
  }

  template <class T>
  void select_typed() {
    const bool_vec& flags = bools(3, 1);
    const auto& a = vec<T>(3, 2);
    const auto& b = vec<T>(3, 3);
    for (const auto* later : {&a, &b})
      if (later->size() < flags.size())
        fail("vector length mismatch: argument 1 has " + std::to_string(flags.size()) + " elements, argument " +
             (later == &a ? "2" : "3") + " has " + std::to_string(later->size()));
    const bool* f = flags.data();
    const T* x = a.data();
    const T* y = b.data();
    // Both values are loaded before the choice, so the loop is a vector blend.
    finish(3, wrap_value(vseg::tabulate(flags.size(), [=](std::int64_t i) {
             const T a = x[i];
             const T b = y[i];
             return f[i] ? a : b;
           })));
  }

  void rand() {
    need(1);
    // The usual bound is one value for the whole vector, a DIST: as a splat
    // it is used as its scalar, never written out.
    const std::int32_t* scalar = splat_scalar<std::int32_t>(0);
    int_vec bound;
    if (scalar == nullptr) bound = ints(1, 1);
    const std::int64_t n = scalar != nullptr ? at(0).splat : bound.size();
    const bool zero = scalar != nullptr ? *scalar == 0 && n > 0 : std::find(bound.begin(), bound.end(), 0) != bound.end();
    if (zero) fail("RAND with a bound of 0 (division by zero)");
    const std::int32_t* m = bound.data();
    auto out = buffer<std::int32_t>::for_overwrite(n);
    std::int32_t* o = out.data();
    // Each fixed block starts from the generator jumped to its first element,
    // so the result is the serial lrand48() sequence on any thread count.
    const detail::lcg48 start = rng_;
    vseg::detail::for_each_block(n, tuning::flat_block, [&](std::int64_t, std::int64_t lo, std::int64_t hi) {
      detail::lcg48 g = start.jumped(static_cast<std::uint64_t>(lo));
      std::int32_t* ob = o + lo;
      const std::int32_t d = scalar != nullptr ? *scalar : m[lo];
      if (d > 0 && (scalar != nullptr || std::all_of(m + lo, m + hi, [d](std::int32_t x) { return x == d; }))) {
        // One positive bound: a multiply-shift, not a division (lcg48.hpp).
        detail::generate_mod(g, ob, hi - lo, detail::mod_by(d));
      } else if (scalar != nullptr) {
        g.generate(hi - lo, [=](std::int64_t k, std::int32_t x) { ob[k] = x % d; });
      } else {
        const std::int32_t* mb = m + lo;
        g.generate(hi - lo, [=](std::int64_t k, std::int32_t x) { ob[k] = x % mb[k]; });
      }
    });
    rng_ = start.jumped(static_cast<std::uint64_t>(n));
    finish(1, wrap_value(std::move(out).freeze()));
  }

  // --- Scans and reductions: data, then the descriptor on top. ---

  template <class T, class M>
  void scan(const M& m) {
    const auto& data = vec<T>(2, 1);
    const segd& s = segdes(2, 2);
    covers(s, data.size(), "the data");
    finish(2, wrap_value(vseg::scan_s(s, data, m)));
  }

  template <class T, class M>
  void reduce(const M& m) {
    const auto& data = vec<T>(2, 1);
    const segd& s = segdes(2, 2);
    covers(s, data.size(), "the data");
    finish(2, wrap_value(vseg::fold_s(s, data, m)));
  }

  // --- Permutations and friends, dispatched on the element type. ---

  template <class F>
  void by_type(const instruction& ins, F&& f) {
    switch (ins.ty) {
      case type::int_: return f(std::int32_t{});
      case type::bool_: return f(bool{});
      default: return f(double{});
    }
  }

  template <class T>
  void permute() {  // data index segd
    if constexpr (std::is_same_v<T, std::int32_t>) {
      if (permute_positions()) return;
    }
    const auto& data = vec<T>(3, 1);
    const int_vec& index = ints(3, 2);
    const segd& s = segdes(3, 3);
    same_length(data.size(), index.size(), "the data", "the indices");
    covers(s, data.size(), "the data");
    // Over one segment, an index known to be a permutation needs no check;
    // once checked, it is known (for every entry sharing the value).
    value& index_value = *stack_[stack_.size() - 2];
    const bool one = s.segments() == 1;
    if (one && index_value.permutation) return finish(3, wrap_value(vseg::permute_unchecked(data, index)));
    auto result = vseg::permute_s(s, data, index);
    if (one) index_value.permutation = true;
    finish(3, wrap_value(std::move(result)));
  }

  // PERMUTE of INDEX's positions x, x + step, ... over one segment: the
  // inverse permutation of the index, scaled, without writing or reading the
  // positions. False (nothing done) for any other data.
  bool permute_positions() {
    need(3);
    const value& data = at(2);
    if (data.splat < 0 || data.step == 0 || data.which() != value::int_) return false;
    const int_vec& index = ints(3, 2);
    const segd& s = segdes(3, 3);
    if (s.segments() != 1) return false;
    same_length(data.length(), index.size(), "the data", "the indices");
    covers(s, index.size(), "the data");
    const std::int32_t first = std::get<int_vec>(data.v)[0];
    const std::int32_t step = data.step;
    value& index_value = *stack_[stack_.size() - 2];
    // An index that is itself an inverse permutation keeps the permutation
    // it inverted (value::inverse): that is its inverse, shared, not
    // recomputed.
    int_vec inverse = index_value.inverse.size() == index.size() ? index_value.inverse
                      : index_value.permutation                  ? vseg::inverse_permutation_unchecked(index)
                                                                 : vseg::inverse_permutation(index);
    index_value.permutation = true;
    const bool plain = first == 0 && step == 1;
    if (!plain) {
      // Position i holds first + inverse[i] * step, wrapping: in place when
      // the inverse is this op's own buffer.
      const auto f = [first, step](std::int32_t q) { return wrap(bits(first) + bits(q) * bits(step)); };
      if (const auto out = inverse.writable_if_unique(); out.data() != nullptr) vseg::map_into(f, inverse, out);
      else inverse = vseg::map(f, inverse);
    }
    value result{std::move(inverse)};
    if (plain) {
      result.permutation = true;  // the inverse of a permutation is one
      result.inverse = index;
    }
    finish(3, std::move(result));
    return true;
  }

  template <class T>
  void dpermute() {  // data index defaults src_segd dst_segd
    const auto& data = vec<T>(5, 1);
    const int_vec& index = ints(5, 2);
    const auto& defaults = vec<T>(5, 3);
    const segd& src = segdes(5, 4);
    const segd& dst = segdes(5, 5);
    same_length(data.size(), index.size(), "the data", "the indices");
    covers(src, data.size(), "the data");
    covers(dst, defaults.size(), "the defaults");
    same_length(src.segments(), dst.segments(), "the source descriptor", "the destination descriptor");
    finish(5, wrap_value(vseg::permute_default_s(src, data, index, dst, defaults)));
  }

  // FPERMUTE and DFPERMUTE: only the flagged elements are written.
  template <class T>
  void flagged_permute(bool with_defaults) {
    const std::size_t argc = with_defaults ? 6 : 5;
    const auto& data = vec<T>(argc, 1);
    const int_vec& index = ints(argc, 2);
    const bool_vec& flags = bools(argc, 3);
    const segd& src = segdes(argc, argc - 1);
    const segd& dst = segdes(argc, argc);
    same_length(data.size(), index.size(), "the data", "the indices");
    same_length(data.size(), flags.size(), "the data", "the flags");
    covers(src, data.size(), "the data");
    same_length(src.segments(), dst.segments(), "the source descriptor", "the destination descriptor");
    array<T> defaults;
    if (with_defaults) {
      defaults = vec<T>(argc, 4);
      covers(dst, defaults.size(), "the defaults");
    } else {
      defaults = vseg::fill(dst.elements(), T{});  // CVL leaves these unset; we give 0
    }
    auto kept = vseg::pack_s(src, data, flags);
    auto kept_index = vseg::pack(index, flags);
    finish(argc, wrap_value(vseg::permute_default_s(kept.descriptor, kept.data, kept_index, dst, defaults)));
  }

  template <class T>
  void bpermute() {  // data index src_segd dst_segd
    const auto& data = vec<T>(4, 1);
    const int_vec& index = ints(4, 2);
    const segd& src = segdes(4, 3);
    const segd& dst = segdes(4, 4);
    covers(src, data.size(), "the data");
    covers(dst, index.size(), "the indices");
    same_length(src.segments(), dst.segments(), "the source descriptor", "the destination descriptor");
    finish(4, wrap_value(vseg::bpermute_s(src, data, dst, index).data));
  }

  template <class T>
  void bfpermute() {  // data index flags src_segd dst_segd
    const auto& data = vec<T>(5, 1);
    const int_vec& index = ints(5, 2);
    const bool_vec& flags = bools(5, 3);
    const segd& src = segdes(5, 4);
    const segd& dst = segdes(5, 5);
    covers(src, data.size(), "the data");
    covers(dst, index.size(), "the indices");
    covers(dst, flags.size(), "the flags");
    same_length(src.segments(), dst.segments(), "the source descriptor", "the destination descriptor");
    finish(5, wrap_value(vseg::bpermute_flagged_s(src, data, dst, index, flags, T{})));
  }

  template <class T>
  void extract() {  // data index segd
    const auto& data = vec<T>(3, 1);
    const segd& s = segdes(3, 3);
    covers(s, data.size(), "the data");
    // A splat index (a DIST of one index: radix's 2,000 EXTRACTs) is used
    // as that index, not written out.
    if (const std::int32_t* k = splat_scalar<std::int32_t>(1)) {
      same_length(s.segments(), at(1).length(), "the descriptor's segments", "the indices");
      return finish(3, wrap_value(vseg::extract_s(s, data, std::int64_t{*k})));
    }
    const int_vec& index = ints(3, 2);
    same_length(s.segments(), index.size(), "the descriptor's segments", "the indices");
    finish(3, wrap_value(vseg::extract_s(s, data, index)));
  }

  template <class T>
  void replace() {  // data index values segd
    const auto& data = vec<T>(4, 1);
    // A splat index is used as that index, not written out (as in EXTRACT).
    const std::int32_t* k = splat_scalar<std::int32_t>(2);
    const int_vec* index = k != nullptr ? nullptr : &ints(4, 2);
    const auto& values = vec<T>(4, 3);
    const segd& s = segdes(4, 4);
    covers(s, data.size(), "the data");
    same_length(s.segments(), at(2).length(), "the descriptor's segments", "the indices");
    same_length(s.segments(), values.size(), "the descriptor's segments", "the values");
    const auto write = [&](std::span<T> out) {
      if (k != nullptr) vseg::replace_s_into(s, out, std::int64_t{*k}, values);
      else vseg::replace_s_into(s, out, *index, values);
    };
    const slot& target = stack_[stack_.size() - 4];
    if (auto storage = reusable<T>(target, data.size()); storage.data() != nullptr) {
      // The only reference: write in place (vseg's replace_s_into), as
      // NESL's vinterp does, so a loop of REPLACEs is O(1) per step, not O(n).
      write(storage);
      target->written_in_place();
      return finish(4, slot(target));
    }
    // Shared: copy once into a new buffer, then replace; the copy is the
    // only reference, so the next REPLACE of it is in place.
    auto out = buffer<T>::for_overwrite(data.size());
    std::copy(data.begin(), data.end(), out.begin());
    write(out.span());
    finish(4, wrap_value(std::move(out).freeze()));
  }

  template <class T>
  void dist() {  // values segd
    const auto& values = vec<T>(2, 1);
    const segd& s = segdes(2, 2);
    same_length(s.segments(), values.size(), "the descriptor's segments", "the values");
    // One value over one big segment: a splat, written only if some
    // operation other than an element-wise one reads it.
    if (s.segments() == 1 && s.elements() >= dist_splat_min) return finish(2, make_splat<T>(values[0], s.elements()));
    room_for<T>(2, s.elements());
    finish(2, wrap_value(vseg::replicate_s(s, values)));
  }

  template <class T>
  void pack() {  // data flags segd -> data segd
    const auto& data = vec<T>(3, 1);
    const bool_vec& flags = bools(3, 2);
    const segd& s = segdes(3, 3);
    same_length(data.size(), flags.size(), "the data", "the flags");
    covers(s, data.size(), "the data");
    auto r = vseg::pack_s(s, data, flags);
    drop(3);
    push(wrap_value(std::move(r.data)));
    push(value{std::move(r.descriptor)});
  }

  template <class T>
  void rank(rank_order order) {
    const auto& data = vec<T>(2, 1);
    const segd& s = segdes(2, 2);
    covers(s, data.size(), "the data");
    finish(2, wrap_value(vseg::rank_s_as<std::int32_t>(s, data, order)));
  }

  // --- I/O helpers. ---

  // The error string and success flag every I/O op leaves on top.
  void push_status(bool ok, const std::string& message) {
    std::vector<std::int32_t> chars;
    if (!ok)
      for (char c : message) chars.push_back(static_cast<unsigned char>(c));
    push(value{int_vec(std::move(chars))});
    push(value{bool_vec({ok})});
  }

  std::string string_arg(std::size_t argc, std::size_t argno) const {
    std::string s;
    for (std::int32_t c : ints(argc, argno)) s.push_back(static_cast<char>(c));
    return s;
  }

  std::int32_t scalar_int(std::size_t argc, std::size_t argno) const {
    const int_vec& v = ints(argc, argno);
    if (v.size() != 1) fail("argument " + std::to_string(argno) + " must be an INT scalar");
    return v[0];
  }

  void write_to(std::FILE* stream, const instruction& ins) {
    need(1);
    materialize(stack_.back());
    const value& v = at(0);
    if (ins.ty == type::chars) {
      detail::write_chars(stream, ints(1, 1));
    } else {
      if (v.which() != kind_of(ins.ty))
        fail("argument 1 is " + std::string(detail::kind_name(v.which())) + ", expected " +
             std::string(detail::kind_name(kind_of(ins.ty))));
      detail::write_value(stream, v);
    }
    const bool ok = std::ferror(stream) == 0;
    drop(1);
    push_status(ok, ok ? "" : std::strerror(errno));
  }

  void read_from(std::FILE* stream, const instruction& ins) {
    std::string message;
    auto v = stream ? detail::read_value(stream, ins.ty, message) : std::nullopt;
    if (!stream) message = "illegal VCODE file descriptor for FREAD";
    if (v) push(std::move(*v));
    else push(empty_of(ins.ty));
    push_status(v.has_value(), message);
  }

  static value empty_of(type t) {
    switch (t) {
      case type::float_: return value{float_vec()};
      case type::bool_: return value{bool_vec()};
      case type::segdes: return value{segd()};
      default: return value{int_vec()};
    }
  }

  void execute(const instruction& ins);

  // --- Profile (run_options::profile): time per operation and type word. ---

  static constexpr std::size_t type_words = static_cast<std::size_t>(type::none) + 1;
  static std::size_t profile_slot(const instruction& ins) {
    return static_cast<std::size_t>(ins.op) * type_words + static_cast<std::size_t>(ins.ty);
  }

  void execute_timed(const instruction& ins) {
    std::string key;
    if (opt_.profile_shapes) key = shape_key(ins);
    const auto t0 = std::chrono::steady_clock::now();
    execute(ins);
    const std::chrono::duration<double> t = std::chrono::steady_clock::now() - t0;
    if (opt_.profile_shapes) {
      auto& [count, seconds] = shape_times_[key];
      ++count;
      seconds += t.count();
    }
    const std::size_t slot = profile_slot(ins);
    if (slot >= op_seconds_.size()) {
      op_seconds_.resize(slot + 1, 0.0);
      op_counts_.resize(slot + 1, 0);
    }
    op_seconds_[slot] += t.count();
    ++op_counts_[slot];
  }

  // The operation and the shapes of the top three stack entries before it,
  // deepest first: "DIST INT INT[262144] INT[1] SEGDES[1:262144]".
  std::string shape_key(const instruction& ins) const {
    std::string key(name(ins.op));
    if (ins.ty != type::none && ins.op != opcode::const_) key.append(" ").append(name(ins.ty));
    for (std::size_t d = std::min<std::size_t>(3, stack_.size()); d-- > 0;) {
      const value& v = at(d);
      char shape[64];
      if (const auto* s = std::get_if<segd>(&v.v))
        std::snprintf(shape, sizeof shape, "[%lld:%lld]", static_cast<long long>(s->segments()),
                      static_cast<long long>(s->elements()));
      else
        std::snprintf(shape, sizeof shape, "[%lld]", static_cast<long long>(v.length()));
      key.append(" ").append(detail::kind_name(v.which())).append(shape);
    }
    return key;
  }

  static void sort_by_time(std::vector<run_result::op_time>& times) {
    std::sort(times.begin(), times.end(),
              [](const run_result::op_time& a, const run_result::op_time& b) { return a.seconds > b.seconds; });
  }

  void report_profile(run_result& result) const {
    for (const auto& [key, time] : shape_times_) result.shapes.push_back({key, time.first, time.second});
    sort_by_time(result.shapes);
    for (std::size_t slot = 0; slot < op_counts_.size(); ++slot) {
      if (op_counts_[slot] == 0) continue;
      const auto op = static_cast<opcode>(slot / type_words);
      const auto ty = static_cast<type>(slot % type_words);
      std::string label(name(op));
      if (ty != type::none && op != opcode::const_) {
        label.push_back(' ');
        label.append(name(ty));
      }
      result.profile.push_back({std::move(label), op_counts_[slot], op_seconds_[slot]});
    }
    sort_by_time(result.profile);
  }

  const program& prog_;
  run_options opt_;
  // Mutable: arg() replaces a splat entry by its materialised vector (the
  // value it stands for does not change).
  mutable std::vector<slot> stack_;
  // The smallest DIST that becomes a splat. Element-wise ops use a splat as
  // a scalar, so even a short one saves writing and reading its elements:
  // radix's 4,000 DISTs of 1000 INTs and the adds that read them, 2.9 -> 1.3
  // ms (--stats-shapes). Below 256 a fill is as cheap.
  static constexpr std::int64_t dist_splat_min = 256;
  // The smallest INDEX over one segment that becomes a splat with a step.
  // Only PERMUTE reads one without writing it out, so a short one would
  // mostly cost a second value.
  static constexpr std::int64_t index_splat_min = std::int64_t{1} << 16;
  std::vector<slot> constants_;
  // Runs of stack moves (plan_shuffle): the plan for a run starting at each
  // pc, or -1; and the new top a plan builds before it replaces the old.
  std::vector<std::int32_t> shuffle_at_;
  std::vector<stack_shuffle> shuffles_;
  std::vector<slot> scratch_;
  // Words held by the stack's entries (an entry shared by two is counted twice).
  mutable std::int64_t words_ = 0;
  detail::file_table files_;
  detail::lcg48 rng_;
  std::chrono::steady_clock::time_point timer_ = std::chrono::steady_clock::now();
  const instruction* ins_ = nullptr;
  std::vector<double> op_seconds_;
  std::vector<std::int64_t> op_counts_;
  std::map<std::string, std::pair<std::int64_t, double>> shape_times_;  // key -> (count, seconds)
};

void machine::execute(const instruction& ins) {
  using i32 = std::int32_t;
  if (opt_.sandbox && reaches_outside(ins.op))
    fail("refused in the sandbox (--sandbox): it runs a command or opens a file");
  switch (ins.op) {
    case opcode::add:
      return arith(ins, wrapping_plus{}, [](double a, double b) { return a + b; });
    case opcode::sub:
      return arith(ins, [](i32 a, i32 b) { return wrap(bits(a) - bits(b)); }, [](double a, double b) { return a - b; });
    case opcode::mul:
      return arith(ins, wrapping_times{}, [](double a, double b) { return a * b; });
    case opcode::div:
      return arith(
          ins,
          [](i32 a, i32 b) -> i32 {
            if (b == 0) throw division_by_zero();
            return b == -1 ? wrap(0u - bits(a)) : a / b;
          },
          [](double a, double b) { return a / b; });
    case opcode::mod:
      return binary<i32>([](i32 a, i32 b) -> i32 {
        if (b == 0) throw division_by_zero();
        return b == -1 ? 0 : a % b;
      });
    case opcode::lt: return compare(ins, [](auto a, auto b) { return a < b; });
    case opcode::le: return compare(ins, [](auto a, auto b) { return a <= b; });
    case opcode::gt: return compare(ins, [](auto a, auto b) { return a > b; });
    case opcode::ge: return compare(ins, [](auto a, auto b) { return a >= b; });
    case opcode::eq: return compare(ins, [](auto a, auto b) { return a == b; });
    case opcode::ne: return compare(ins, [](auto a, auto b) { return a != b; });
    // Shift counts are taken mod 32, as x86 does for a C shift by a register.
    case opcode::lshift: return binary<i32>([](i32 a, i32 b) { return wrap(bits(a) << (bits(b) & 31u)); });
    case opcode::rshift: return binary<i32>([](i32 a, i32 b) { return a >> (bits(b) & 31u); });
    case opcode::not_:
      if (ins.ty == type::int_) return unary<i32>([](i32 a) { return ~a; });
      return unary<bool>([](bool a) { return !a; });
    case opcode::and_:
      if (ins.ty == type::int_) return binary<i32>([](i32 a, i32 b) { return a & b; });
      return binary<bool>([](bool a, bool b) { return a && b; });
    case opcode::or_:
      if (ins.ty == type::int_) return binary<i32>([](i32 a, i32 b) { return a | b; });
      return binary<bool>([](bool a, bool b) { return a || b; });
    case opcode::xor_:
      if (ins.ty == type::int_) return binary<i32>([](i32 a, i32 b) { return a ^ b; });
      return binary<bool>([](bool a, bool b) { return a != b; });
    case opcode::select:
      return by_type(ins, [&](auto t) { select_typed<decltype(t)>(); });
    case opcode::rand: return rand();
    case opcode::floor: return unary<double>([](double x) { return to_int32(std::floor(x)); });
    case opcode::ceil: return unary<double>([](double x) { return to_int32(std::ceil(x)); });
    case opcode::trunc: return unary<double>([](double x) { return to_int32(x); });
    case opcode::round: return unary<double>([](double x) { return to_int32(x + 0.5); });
    case opcode::log: return unary<double>([](double x) { return std::log(x); });
    case opcode::sqrt: return unary<double>([](double x) { return std::sqrt(x); });
    case opcode::exp: return unary<double>([](double x) { return std::exp(x); });
    case opcode::sin: return unary<double>([](double x) { return std::sin(x); });
    case opcode::cos: return unary<double>([](double x) { return std::cos(x); });
    case opcode::tan: return unary<double>([](double x) { return std::tan(x); });
    case opcode::asin: return unary<double>([](double x) { return std::asin(x); });
    case opcode::acos: return unary<double>([](double x) { return std::acos(x); });
    case opcode::atan: return unary<double>([](double x) { return std::atan(x); });
    case opcode::sinh: return unary<double>([](double x) { return std::sinh(x); });
    case opcode::cosh: return unary<double>([](double x) { return std::cosh(x); });
    case opcode::tanh: return unary<double>([](double x) { return std::tanh(x); });
    case opcode::i_to_f: return unary<i32>([](i32 a) { return static_cast<double>(a); });
    case opcode::i_to_b: return unary<i32>([](i32 a) { return a != 0; });
    // A bool's byte is 0 or 1. Read as that byte: GCC 12 does not vectorise
    // a conversion from bool, and radix converts 2,000 flag vectors.
    case opcode::b_to_i:
      return unary<bool>([](const bool& a) { return static_cast<i32>(std::bit_cast<unsigned char>(a)); });

    case opcode::plus_scan:
    case opcode::plus_reduce: {
      const bool s = ins.op == opcode::plus_scan;
      if (ins.ty == type::int_) return s ? scan<i32>(wrapping_plus{}) : reduce<i32>(wrapping_plus{});
      return s ? scan<double>(vseg::plus<double>{}) : reduce<double>(vseg::plus<double>{});
    }
    case opcode::mult_scan:
    case opcode::mult_reduce: {
      const bool s = ins.op == opcode::mult_scan;
      if (ins.ty == type::int_) return s ? scan<i32>(wrapping_times{}) : reduce<i32>(wrapping_times{});
      return s ? scan<double>(vseg::multiplies<double>{}) : reduce<double>(vseg::multiplies<double>{});
    }
    case opcode::max_scan:
    case opcode::max_reduce: {
      const bool s = ins.op == opcode::max_scan;
      if (ins.ty == type::int_) return s ? scan<i32>(nesl_max<i32>{}) : reduce<i32>(nesl_max<i32>{});
      return s ? scan<double>(nesl_max<double>{}) : reduce<double>(nesl_max<double>{});
    }
    case opcode::min_scan:
    case opcode::min_reduce: {
      const bool s = ins.op == opcode::min_scan;
      if (ins.ty == type::int_) return s ? scan<i32>(nesl_min<i32>{}) : reduce<i32>(nesl_min<i32>{});
      return s ? scan<double>(nesl_min<double>{}) : reduce<double>(nesl_min<double>{});
    }
    case opcode::and_scan:
    case opcode::and_reduce: {
      const bool s = ins.op == opcode::and_scan;
      if (ins.ty == type::int_) return s ? scan<i32>(vseg::bit_and<i32>{}) : reduce<i32>(vseg::bit_and<i32>{});
      return s ? scan<bool>(vseg::logical_and{}) : reduce<bool>(vseg::logical_and{});
    }
    case opcode::or_scan:
    case opcode::or_reduce: {
      const bool s = ins.op == opcode::or_scan;
      if (ins.ty == type::int_) return s ? scan<i32>(vseg::bit_or<i32>{}) : reduce<i32>(vseg::bit_or<i32>{});
      return s ? scan<bool>(vseg::logical_or{}) : reduce<bool>(vseg::logical_or{});
    }
    case opcode::xor_scan:
    case opcode::xor_reduce: {
      const bool s = ins.op == opcode::xor_scan;
      if (ins.ty == type::int_) return s ? scan<i32>(vseg::bit_xor<i32>{}) : reduce<i32>(vseg::bit_xor<i32>{});
      return s ? scan<bool>(vseg::logical_xor{}) : reduce<bool>(vseg::logical_xor{});
    }

    case opcode::permute: return by_type(ins, [&](auto t) { permute<decltype(t)>(); });
    case opcode::dpermute: return by_type(ins, [&](auto t) { dpermute<decltype(t)>(); });
    case opcode::fpermute: return by_type(ins, [&](auto t) { flagged_permute<decltype(t)>(false); });
    case opcode::dfpermute: return by_type(ins, [&](auto t) { flagged_permute<decltype(t)>(true); });
    case opcode::bpermute: return by_type(ins, [&](auto t) { bpermute<decltype(t)>(); });
    case opcode::bfpermute: return by_type(ins, [&](auto t) { bfpermute<decltype(t)>(); });
    case opcode::extract: return by_type(ins, [&](auto t) { extract<decltype(t)>(); });
    case opcode::replace: return by_type(ins, [&](auto t) { replace<decltype(t)>(); });
    case opcode::dist: return by_type(ins, [&](auto t) { dist<decltype(t)>(); });
    case opcode::pack: return by_type(ins, [&](auto t) { pack<decltype(t)>(); });
    case opcode::rank_up:
    case opcode::rank_down: {
      const auto order = ins.op == opcode::rank_up ? rank_order::up : rank_order::down;
      if (ins.ty == type::int_) return rank<i32>(order);
      return rank<double>(order);
    }
    case opcode::index: {  // start stride segd
      const int_vec& start = ints(3, 1);
      const int_vec& stride = ints(3, 2);
      const segd& s = segdes(3, 3);
      same_length(s.segments(), start.size(), "the descriptor's segments", "the starts");
      same_length(s.segments(), stride.size(), "the descriptor's segments", "the strides");
      room_for<i32>(3, s.elements());
      // One big segment: a splat with a step, written out only if some
      // operation other than PERMUTE reads it.
      if (s.segments() == 1 && s.elements() >= index_splat_min) {
        value v = make_splat<i32>(start[0], s.elements());
        v.step = stride[0];
        return finish(3, std::move(v));
      }
      return finish(3, wrap_value(vseg::iota_s(s, start, stride)));
    }

    case opcode::length: {
      need(1);
      const value& v = at(0);
      if (v.which() != kind_of(ins.ty))
        fail("argument 1 is " + std::string(detail::kind_name(v.which())) + ", expected " +
             std::string(detail::kind_name(kind_of(ins.ty))));
      return finish(1, value{int_vec({static_cast<i32>(v.length())})});
    }
    case opcode::make_segdes: {
      const value& v = arg(1, 1, value::int_);
      const int_vec& lengths = std::get<int_vec>(v.v);
      value result{v.descriptor ? *v.descriptor : segd::from_int32_lengths(lengths)};
      result.lengths = lengths;
      return finish(1, std::move(result));
    }
    case opcode::lengths: {
      const value& v = arg(1, 1, value::segdes);
      const segd& s = std::get<segd>(v.v);
      value result{v.lengths.size() == s.segments() ? v.lengths
                   : s.uniform_length() >= 0
                       ? vseg::fill(s.segments(), static_cast<i32>(s.uniform_length()))
                       : vseg::map([](std::int64_t l) { return static_cast<i32>(l); }, s.lengths())};
      result.descriptor = std::make_shared<const segd>(s);
      return finish(1, std::move(result));
    }

    case opcode::copy:
    case opcode::pop:
    case opcode::cpop: return stack_move(ins);
    case opcode::pair: {
      need(2);
      // A pair's parts are plain vectors (write_value prints them directly).
      materialize(stack_[stack_.size() - 1]);
      materialize(stack_[stack_.size() - 2]);
      auto p = std::make_shared<detail::pair_value>(detail::pair_value{at(1), at(0)});
      return finish(2, value{detail::pair_ptr(std::move(p))});
    }
    case opcode::unpair: {
      const value& v = arg(1, 1, value::pair);
      const detail::pair_ptr p = std::get<detail::pair_ptr>(v.v);
      drop(1);
      push(p->first);
      return push(p->second);
    }
    case opcode::const_: return push(constants_[static_cast<std::size_t>(ins.a)]);

    case opcode::start_timer:
      timer_ = std::chrono::steady_clock::now();
      return;
    case opcode::stop_timer: {
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - timer_;
      return push(value{float_vec({elapsed.count()})});
    }
    case opcode::srand: {
      rng_ = detail::lcg48::seeded(scalar_int(1, 1));
      drop(1);
      return push(value{bool_vec({true})});
    }

    case opcode::write: return write_to(opt_.err, ins);
    case opcode::read: return read_from(opt_.in, ins);
    case opcode::fwrite: {
      need(2);
      const i32 fd = scalar_int(2, 2);
      std::FILE* f = files_.get(fd);
      drop(1);
      if (f == nullptr) {
        drop(1);
        return push_status(false, "illegal VCODE file descriptor in FWRITE");
      }
      return write_to(f, ins);
    }
    case opcode::fread: {
      const i32 fd = scalar_int(1, 1);
      drop(1);
      return read_from(files_.get(fd), ins);
    }
    case opcode::fopen: {  // name mode
      const i32 mode = scalar_int(2, 2);
      if (mode < 1 || mode > 3) fail("mode " + std::to_string(mode) + " is not 1 (read), 2 (write) or 3 (append)");
      const std::string file = string_arg(2, 1);
      std::string message;
      const int fd = files_.open(file, mode, message);
      drop(2);
      push(value{int_vec({fd})});
      return push_status(fd >= 0, message);
    }
    case opcode::fclose: {
      const i32 fd = scalar_int(1, 1);
      drop(1);
      std::string message;
      const bool ok = files_.close(fd, message);
      return push_status(ok, message);
    }
    case opcode::fread_char: {  // delimiters max_chars fd
      const int_vec& delims = ints(3, 1);
      const i32 max_chars = scalar_int(3, 2);
      const i32 fd = scalar_int(3, 3);
      std::FILE* f = files_.get(fd);
      const int_vec delimiters = delims;
      drop(3);
      if (f == nullptr) {
        push(value{int_vec()});
        push(value{int_vec()});
        return push_status(false, "illegal VCODE file descriptor in FREAD_CHAR");
      }
      i32 stop = 0;
      push(value{detail::read_chars(f, delimiters, max_chars, stop)});
      push(value{int_vec({stop})});
      return push_status(true, "");
    }
    case opcode::spawn: {  // command in out err
      const std::string command = string_arg(4, 1);
      std::array<int, 3> fds{scalar_int(4, 2), scalar_int(4, 3), scalar_int(4, 4)};
      drop(4);
      std::string message;
      const bool ok = files_.spawn(command, fds, message);
      push(value{int_vec({fds[2]})});
      push(value{int_vec({fds[1]})});
      push(value{int_vec({fds[0]})});
      return push_status(ok, message);
    }
    case opcode::call:
    case opcode::ret:
    case opcode::if_:
    case opcode::else_:
    case opcode::exit:
      break;  // handled by run()
  }
}

}  // namespace

run_result run(const program& prog, const run_options& options) {
  if (prog.functions.empty()) throw error(0, "the program has no functions");
  machine m(prog, options);
  return m.run();
}

}  // namespace vseg::vcode
