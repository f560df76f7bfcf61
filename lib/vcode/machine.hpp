// The VCODE stack machine's class (internal to lib/vcode): its stack of
// shared values with the -m word count, the checked argument access every
// operation uses, and the declarations of its operation groups. The members
// are defined by concern in interpreter.cpp, execute.cpp, reduce_ops.cpp,
// permute_ops.cpp, replication.cpp, io_ops.cpp and profile.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/smart_ptr/intrusive_ptr.hpp>

#include "gathered.hpp"
#include "io.hpp"
#include "lazy.hpp"
#include "lcg48.hpp"
#include "shuffle.hpp"
#include "value.hpp"
#include "vseg/array.hpp"
#include "vseg/segd.hpp"
#include "vseg/segmented/rank.hpp"
#include "vseg/vcode/interpreter.hpp"

namespace vseg::vcode::detail {

// A stack entry: a handle to a value that COPY shares rather than copies.
// COPY is one (non-atomic, see value) reference-count increment, CPOP and
// POP move 8-byte handles (a value is 192 bytes: its vector or descriptor
// and the caches below),
// which matters where the vectors are short: radix spends 160k of its 254k
// instructions on stack moves. A value shared by two entries is never
// written in place (see reusable()).
using slot = boost::intrusive_ptr<value>;

// A new stack entry holding v.
inline slot make_slot(value v) { return slot(new value(std::move(v))); }

// The operations that reach outside the run: SPAWN runs a command, the
// F-operations open and use files. run_options::sandbox refuses them.
constexpr bool reaches_outside(opcode op) {
  return op == opcode::spawn || op == opcode::fopen || op == opcode::fclose || op == opcode::fread ||
         op == opcode::fread_char || op == opcode::fwrite;
}

// Whether an I/O op succeeded (the BOOL it leaves on top).
enum class io_outcome : std::uint8_t { failed, succeeded };

// FPERMUTE leaves the positions no flag writes 0; DFPERMUTE takes them from
// its defaults argument.
enum class unset_positions : std::uint8_t { zero, from_defaults };

class machine {
 public:
  // A machine for prog: its constants made and its runs of stack moves
  // planned (plan_shuffle). O(program length).
  machine(const program& prog, const run_options& opt);

  // Runs the program from its main function until its final RET or EXIT.
  run_result run();

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
  // checked to be of kind k; a splat or lazy entry is materialised first
  // (the entry is replaced, see materialize), so every op but the ones that
  // know those forms sees a stored vector. Not const: it may rewrite the entry.
  const value& arg(std::size_t argc, std::size_t argno, value::kind k) {
    need(argc);
    slot& entry = stack_[stack_.size() - 1 - (argc - argno)];
    if (entry->which() != k)
      fail("argument " + std::to_string(argno) + " is " + std::string(detail::kind_name(entry->which())) +
           ", expected " + std::string(detail::kind_name(k)));
    if (!entry->is_stored()) materialize(entry);
    return *entry;
  }

  // A splat or lazy entry made into the vector it stands for: a new value
  // (another entry may share the old one), counted at its real size.
  void materialize(slot& entry);

  // The scalar of a splat argument of kind T, or nullptr when the argument
  // is not a splat of one value (or not of that kind: arg() reports the
  // error).
  template <class T>
  const T* splat_scalar(std::size_t depth) const {
    return at(depth).splat_scalar<T>();
  }

  // arg() of a kind, as its vector or descriptor (materialising, so not const).
  template <class T>
  const typename vec_of<T>::type& vec(std::size_t argc, std::size_t argno) {
    return arg(argc, argno, vec_of<T>::kind).template as<typename vec_of<T>::type>();
  }
  const int_vec& ints(std::size_t argc, std::size_t argno) { return vec<std::int32_t>(argc, argno); }
  const bool_vec& bools(std::size_t argc, std::size_t argno) { return vec<bool>(argc, argno); }
  const segd& segdes(std::size_t argc, std::size_t argno) { return arg(argc, argno, value::segdes).as<segd>(); }

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
  void check_room(std::int64_t words, std::int64_t held) const;
  // The same for n T's replacing the top `argc` arguments.
  template <class T>
  void room_for(std::size_t argc, std::int64_t n) const {
    need(argc);
    std::int64_t held = words_;
    for (std::size_t d = 0; d < argc; ++d) held -= at(d).words();
    check_room(detail::words_for<T>(n), held);
  }

  void push(slot entry) {
    if (counting_) count_push(*entry);
    stack_.push_back(std::move(entry));
  }
  void count_push(const value& v) {
    words_ += v.words();
    if (words_ > opt_.memory_words)
      fail("memory limit exceeded: the stack holds " + std::to_string(words_) + " words, the limit (-m) is " +
           std::to_string(opt_.memory_words));
  }
  void push(value v) { push(make_slot(std::move(v))); }

  void drop(std::size_t n) {
    if (counting_)
      for (std::size_t i = 0; i < n; ++i) words_ -= stack_[stack_.size() - 1 - i]->words();
    stack_.resize(stack_.size() - n);
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

  // The storage of a stack entry when a result of n U's may overwrite it
  // (value::write_in_place: no other entry shares it, its buffer has no
  // other owner; its cached facts are dropped). Otherwise an empty span.
  template <class U>
  static std::span<U> reusable(const slot& entry, std::int64_t n) {
    return entry->template write_in_place<U>(n);
  }

  // --- Control and stack moves (interpreter.cpp). ---

  // IF's test: pops the BOOL scalar on top.
  bool condition();
  // One COPY, POP or CPOP of ins.a entries ins.b below the top.
  void stack_move(const instruction& ins);
  // Does a run of stack moves at once; false, doing nothing, when the stack
  // is too short for it or its copies could pass the -m limit.
  bool shuffle(const stack_shuffle& s);
  // The value of a CONST instruction's operand.
  static value make_constant(const constant& c);
  // --trace: the instruction and the shape of every stack entry, to opt_.err.
  void trace(const instruction& ins) const;
  // The final stack, printed to opt_.out as vinterp prints it.
  void dump();

  // --- The operation switch and the element-wise operations (execute.cpp). ---

  // Every instruction but the control ones (CALL, RET, IF, ELSE, EXIT).
  void execute(const instruction& ins);
  // The result of an element-wise op, written into a reusable argument's storage if one is.
  template <class U, class Fill>
  slot elementwise_result(std::int64_t n, std::initializer_list<std::size_t> depths, Fill&& fill);
  // f applied to the top entry's elements (T's), element by element.
  template <class T, class F>
  void unary(F f);
  // f applied to the top two entries' elements (T's), pairwise.
  template <class T, class F>
  void binary(F f);
  template <class FI, class FF>
  void arith(const instruction& ins, FI fi, FF ff);
  template <class F>
  void compare(const instruction& ins, F f);
  template <class T>
  void select_typed();
  // RAND: lrand48()'s next values, each mod its bound, the same on any thread count.
  void rand();
  // --- Scans and reductions (reduce_ops.cpp). ---

  // The _SCAN and _REDUCE ops: data, then the descriptor on top.
  void scan_or_reduce(const instruction& ins);
  // Segmented scan and reduction of data by the descriptor on top, with monoid m.
  template <class T, class M>
  void scan(const M& m);
  template <class T, class M>
  void reduce(const M& m);
  template <class F>
  void by_type(const instruction& ins, F&& f);

  // --- Permutations and friends, dispatched on the element type
  // (permute_ops.cpp, instantiated there for INT, BOOL and FLOAT). ---

  template <class T>
  void permute();
  // PERMUTE of an INDEX sequence over one segment: its scaled inverse permutation.
  bool permute_sequence();
  template <class T>
  void dpermute();
  // DPERMUTE's defaults (the entry at depth 2, checked to be T's, of
  // `defaults` elements) in a fresh buffer of n, for the scatter to write
  // over: a splat filled in, not written out and copied (no pass reads it),
  // stored ones copied; in parallel. `splat`: the splat's scalar, or nullptr.
  template <class T>
  buffer<T> fresh_defaults(std::int64_t n, const T* splat);
  // DPERMUTE's shape checks, in its order (both of its paths): the data and
  // the indices, the data and the source, the defaults and the destination,
  // the two descriptors' segments.
  void check_dpermute(std::int64_t data, std::int64_t indices, std::int64_t defaults, const segd& src,
                      const segd& dst) const {
    same_length(data, indices, "the data", "the indices");
    covers(src, data, "the data");
    covers(dst, defaults, "the defaults");
    same_length(src.segments(), dst.segments(), "the source descriptor", "the destination descriptor");
  }
  template <class T>
  void flagged_permute(unset_positions unset);
  template <class T>
  void bpermute();
  template <class T>
  void bfpermute();
  template <class T>
  void extract();
  template <class T>
  void replace();
  template <class T>
  void dist();
  template <class T>
  void pack();
  std::shared_ptr<const pack_plan> pack_plan_for(std::size_t depth, const segd& s);
  template <class T>
  void rank(rank_order order);

  // --- Replication on virtual segments (replication.cpp, lazy.hpp). Each
  // returns false, doing nothing, when its arguments are not of its form. ---

  // DIST lazy (`expanded`) when it writes many copies or its values are a replication; over 1-element segments, them.
  template <class T> bool dist_lazily();
  // INDEX over many elements kept lazy (`affine`); over one-element segments, its starts.
  bool index_lazily();
  // PERMUTE of a lazy DIST by a lazy transposing INDEX: a replication.
  template <class T> bool permute_to_replication();
  // EXTRACT and BPERMUTE from a replication: read from the physical copy.
  template <class T> bool extract_replicated();
  template <class T> bool bpermute_replicated();
  // MAKE_SEGDES of one length repeated (a splat, or a lazy DIST of equal values): uniform, the lengths not written.
  bool descriptor_of_one_length();
  // BPERMUTE by a lazy INDEX: each segment's indices computed, not read.
  template <class T> bool bpermute_by_index();
  // DPERMUTE by a lazy INDEX: each segment's targets computed, not read; a stride of 1 copied.
  template <class T> bool dpermute_by_index();
  // A flat BPERMUTE from a small source deferred (gathered.hpp, gathered.cpp);
  // a BPERMUTE or PERMUTE of a deferred one, its index composed.
  template <class T> bool bpermute_deferred();
  template <class T> bool permute_deferred();
  // PERMUTE of a replication's virtual segments, moved whole (NESL's SEGPERMUTE): their vsegids reordered.
  template <class T> bool permute_replicated_segments();
  // PERMUTE over one segment by a lazy transposing INDEX: a tiled transpose, unchecked (transposition.cpp).
  template <class T> bool permute_transposition();
  // PERMUTE over one segment by a lazy INDEX of stride 1 (SEGPERMUTE): runs copied whole, checked
  // in O(segments) (segment_moves.cpp).
  template <class T> bool permute_by_segment_moves();
  // A uniform descriptor's LENGTHS as a splat; PERMUTE of an INT splat by a permutation; +_SCAN and
  // +_REDUCE INT of one over a uniform descriptor (uniform_lengths.cpp: NESL's SEGPERMUTE of copies).
  bool lengths_as_splat();
  bool permute_splat();
  bool plus_scan_of_splat();
  bool plus_reduce_of_splat();
  // BPERMUTE of an INT sequence (a splat with a step) over one segment: each element computed from its index.
  bool bpermute_sequence();
  // EXTRACT INT from a lazy INDEX over the same segments (start + i * stride per segment) or from a splat.
  bool extract_affine();
  // A reduction over virtual segments: each physical segment once, then replicated (DPH's fold_vs).
  template <class T, class M> bool reduce_replicated(const M& m);
  // A FLOAT element-wise op with a lazy argument kept as its op and operands (fused.hpp).
  template <class T, class F> bool binary_fused();
  // A reduction of a fused value, each segment's elements evaluated block by block, left to right.
  template <class T, class M> bool reduce_fused(const M& m);
  // An element-wise op with a lazy argument, read block by block.
  template <class T, class F> bool binary_lazily(F f);
  // Whether s has the replication r's virtual segments. O(segments).
  static bool same_layout(const segd& s, const replicated& r);
  // A vector of T's materialised from a lazy value. O(length).
  template <class T> static array<T> materialized(const value& v);

  // --- I/O (io_ops.cpp). ---

  // WRITE, READ, the F-operations and SPAWN.
  void execute_io(const instruction& ins);

  // The error string and success flag every I/O op leaves on top.
  void push_status(io_outcome outcome, const std::string& message);
  // An INT vector argument read as a string of character codes.
  std::string string_arg(std::size_t argc, std::size_t argno);
  // An argument that must be a one-element INT vector.
  std::int32_t scalar_int(std::size_t argc, std::size_t argno);
  // WRITE and FWRITE: the top entry printed to stream, then the status.
  void write_to(std::FILE* stream, const instruction& ins);
  // READ and FREAD: a value of ins.ty read from stream (empty on error), then the status.
  void read_from(std::FILE* stream, const instruction& ins);
  // An empty vector (or descriptor) of type t.
  static value empty_of(type t);

  // --- Profile (run_options::profile): time per operation and type word (profile.cpp). ---

  static constexpr std::size_t type_words = static_cast<std::size_t>(type::none) + 1;
  // The index of ins's opcode and type word in op_seconds_ and op_counts_.
  static std::size_t profile_slot(const instruction& ins);
  // execute(), timed into the profile.
  void execute_timed(const instruction& ins);
  // The operation and the shapes of the top three stack entries before it,
  // deepest first: "DIST INT INT[262144] INT[1] SEGDES[1:262144]".
  std::string shape_key(const instruction& ins) const;
  static void sort_by_time(std::vector<run_result::op_time>& times);
  // The profile's times, slowest first, into result.
  void report_profile(run_result& result) const;

  const program& prog_;
  run_options opt_;
  std::vector<slot> stack_;
  // The smallest DIST that becomes a splat. Element-wise ops use a splat as
  // a scalar, so even a short one saves writing and reading its elements:
  // radix's 4,000 DISTs of 1000 INTs and the adds that read them, 2.9 -> 1.3
  // ms (--stats-shapes). Below 256 a fill is as cheap.
  static constexpr std::int64_t dist_splat_min = 256;
  // The smallest INDEX over one segment that becomes a splat with a step.
  // Only PERMUTE reads one without writing it out, so a short one would
  // mostly cost a second value.
  static constexpr std::int64_t index_splat_min = std::int64_t{1} << 16;
  // A DIST or INDEX of at least lazy_min elements and lazy_ratio times
  // its segments stays lazy (lazy.hpp): the replicating DISTs write each
  // value r times (treeLookup's, twice). Smaller ones are written at once, as cheap as a value.
  static constexpr std::int64_t lazy_min = std::int64_t{1} << 14;
  static constexpr std::int64_t lazy_ratio = 2;
  // The largest source a BPERMUTE is deferred from (gathered.hpp): 2 MiB of
  // FLOATs, so reading it again per consumer stays in cache.
  static constexpr std::int64_t gather_source_max = std::int64_t{1} << 18;
  // Elements per block when a lazy value is written out or read by an
  // element-wise op; virtual segments per task in BPERMUTE.
  static constexpr std::int64_t lazy_block = 4096;
  static constexpr std::int64_t lazy_segment_grain = 64;
  composed_indices composed_;  // for bpermute_deferred and permute_deferred
  std::vector<slot> constants_;
  // Runs of stack moves (plan_shuffle): the plan for a run starting at each
  // pc, or -1; and the new top a plan builds before it replaces the old.
  std::vector<std::int32_t> shuffle_at_;
  std::vector<stack_shuffle> shuffles_;
  std::vector<slot> scratch_;
  // Words held by the stack's entries (an entry shared by two is counted
  // twice), kept only under a -m limit (counting_): without one nothing
  // reads it, and the count reads every value pushed, dropped or moved
  // (Delaunay: 1.95M instructions on short vectors, the stack moves' cost
  // was mostly these reads).
  bool counting_ = true;
  std::int64_t words_ = 0;
  detail::file_table files_;
  detail::lcg48 rng_;
  std::chrono::steady_clock::time_point timer_ = std::chrono::steady_clock::now();
  const instruction* ins_ = nullptr;
  std::vector<double> op_seconds_;
  std::vector<std::int64_t> op_counts_;
  std::map<std::string, std::pair<std::int64_t, double>> shape_times_;  // key -> (count, seconds)
};

}  // namespace vseg::vcode::detail
