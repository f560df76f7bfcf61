// libFuzzer target for the VCODE interpreter: any input that parses must run
// to its end or stop with vseg::vcode::error (never a crash, a hang or
// another exception). The run is sandboxed (no SPAWN, no files) and bounded:
// -m of 4096 words, 64 nested calls and 20,000 instructions, so a fuzzed
// runaway recursion ends quickly. Built and run by scripts/fuzz vcode-run.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include <tbb/global_control.h>

#include "vseg/vcode/interpreter.hpp"
#include "vseg/vcode/program.hpp"

namespace {

// The run's standard streams: nothing to read, output discarded.
struct streams {
  std::FILE* in = std::fopen("/dev/null", "r");
  std::FILE* out = std::fopen("/dev/null", "w");
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const streams io;
  // One thread: a reproducer then replays exactly.
  static tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
  if (io.in == nullptr || io.out == nullptr) __builtin_trap();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  vseg::vcode::program p;
  try {
    p = vseg::vcode::parse(text);
  } catch (const vseg::vcode::error&) {
    return 0;
  }
  vseg::vcode::run_options options;
  options.memory_words = 4096;
  options.max_call_depth = 64;
  options.max_instructions = 20'000;
  options.sandbox = true;
  options.in = io.in;
  options.out = io.out;
  options.err = io.out;
  try {
    const auto result = vseg::vcode::run(p, options);
    if (result.instructions > options.max_instructions) __builtin_trap();
  } catch (const vseg::vcode::error&) {
  }
  return 0;
}
