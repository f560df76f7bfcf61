// The machine's side of VCODE's I/O ops: reading their string and scalar
// arguments, writing and reading values (through io.hpp's formats) and the
// error string and success flag each op leaves on the stack.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io.hpp"
#include "machine.hpp"
#include "value.hpp"
#include "vseg/segd.hpp"

namespace vseg::vcode::detail {

void machine::push_status(io_outcome outcome, const std::string& message) {
  const bool ok = outcome == io_outcome::succeeded;
  std::vector<std::int32_t> chars;
  if (!ok)
    for (char c : message) chars.push_back(static_cast<unsigned char>(c));
  push(value{int_vec(std::move(chars))});
  push(value{bool_vec({ok})});
}

std::string machine::string_arg(std::size_t argc, std::size_t argno) {
  std::string s;
  for (std::int32_t c : ints(argc, argno)) s.push_back(static_cast<char>(c));
  return s;
}

std::int32_t machine::scalar_int(std::size_t argc, std::size_t argno) {
  const int_vec& v = ints(argc, argno);
  if (v.size() != 1) fail("argument " + std::to_string(argno) + " must be an INT scalar");
  return v[0];
}

void machine::write_to(std::FILE* stream, const instruction& ins) {
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
  push_status(ok ? io_outcome::succeeded : io_outcome::failed, ok ? "" : std::strerror(errno));
}

void machine::read_from(std::FILE* stream, const instruction& ins) {
  std::string message;
  auto v = stream ? detail::read_value(stream, ins.ty, message) : std::nullopt;
  if (!stream) message = "illegal VCODE file descriptor for FREAD";
  if (v) push(std::move(*v));
  else push(empty_of(ins.ty));
  push_status(v.has_value() ? io_outcome::succeeded : io_outcome::failed, message);
}

value machine::empty_of(type t) {
  switch (t) {
    case type::float_: return value{float_vec()};
    case type::bool_: return value{bool_vec()};
    case type::segdes: return value{segd()};
    default: return value{int_vec()};
  }
}

}  // namespace vseg::vcode::detail
