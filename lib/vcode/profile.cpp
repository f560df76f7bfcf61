// The machine's profile (run_options::profile, vseg-vcode --stats): the time
// of each operation by opcode and type word, or by the shapes of its
// arguments, summed over the run and sorted for the report.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "machine.hpp"
#include "value.hpp"
#include "vseg/segd.hpp"

namespace vseg::vcode::detail {

std::size_t machine::profile_slot(const instruction& ins) {
  return static_cast<std::size_t>(ins.op) * type_words + static_cast<std::size_t>(ins.ty);
}

void machine::execute_timed(const instruction& ins) {
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

std::string machine::shape_key(const instruction& ins) const {
  std::string key(name(ins.op));
  if (ins.ty != type::none && ins.op != opcode::const_) key.append(" ").append(name(ins.ty));
  for (std::size_t d = std::min<std::size_t>(3, stack_.size()); d-- > 0;) {
    const value& v = at(d);
    char shape[64];
    if (const auto* s = v.get_if<segd>())
      std::snprintf(shape, sizeof shape, "[%lld:%lld]", static_cast<long long>(s->segments()),
                    static_cast<long long>(s->elements()));
    else
      std::snprintf(shape, sizeof shape, "[%lld]", static_cast<long long>(v.length()));
    key.append(" ").append(detail::kind_name(v.which())).append(shape);
  }
  return key;
}

void machine::sort_by_time(std::vector<run_result::op_time>& times) {
  std::sort(times.begin(), times.end(),
            [](const run_result::op_time& a, const run_result::op_time& b) { return a.seconds > b.seconds; });
}

void machine::report_profile(run_result& result) const {
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

}  // namespace vseg::vcode::detail
