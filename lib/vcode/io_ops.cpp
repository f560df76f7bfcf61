// The machine's side of VCODE's I/O ops: reading their string and scalar
// arguments, writing and reading values (through io.hpp's formats) and the
// error string and success flag each op leaves on the stack.
#include <array>
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

void machine::execute_io(const instruction& ins) {
  using i32 = std::int32_t;
  switch (ins.op) {
    case opcode::write: return write_to(opt_.err, ins);
    case opcode::read: return read_from(opt_.in, ins);
    case opcode::fwrite: {
      need(2);
      const i32 fd = scalar_int(2, 2);
      std::FILE* f = files_.get(fd);
      drop(1);
      if (f == nullptr) {
        drop(1);
        return push_status(io_outcome::failed, "illegal VCODE file descriptor in FWRITE");
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
      return push_status(fd >= 0 ? io_outcome::succeeded : io_outcome::failed, message);
    }
    case opcode::fclose: {
      const i32 fd = scalar_int(1, 1);
      drop(1);
      std::string message;
      const bool ok = files_.close(fd, message);
      return push_status(ok ? io_outcome::succeeded : io_outcome::failed, message);
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
        return push_status(io_outcome::failed, "illegal VCODE file descriptor in FREAD_CHAR");
      }
      i32 stop = 0;
      push(value{detail::read_chars(f, delimiters, max_chars, stop)});
      push(value{int_vec({stop})});
      return push_status(io_outcome::succeeded, "");
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
      return push_status(ok ? io_outcome::succeeded : io_outcome::failed, message);
    }
    default: fail("not an I/O operation");
  }
}

}  // namespace vseg::vcode::detail
