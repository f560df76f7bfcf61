// libFuzzer target for the VCODE parser: any input must either parse or be
// rejected with vseg::vcode::error (never a crash, a hang or another
// exception). Built and run by scripts/fuzz-vcode.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "vseg/vcode/program.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const vseg::vcode::program p = vseg::vcode::parse(text);
    // A parsed program is linked: every call and branch lands inside the code.
    for (const auto& ins : p.code)
      if ((ins.op == vseg::vcode::opcode::call || ins.op == vseg::vcode::opcode::if_ ||
           ins.op == vseg::vcode::opcode::else_) &&
          (ins.a < 0 || ins.a > static_cast<std::int64_t>(p.code.size())))
        __builtin_trap();
  } catch (const vseg::vcode::error&) {
  }
  return 0;
}
