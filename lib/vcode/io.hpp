// VCODE's I/O: printing values as NESL does, reading them back, and the
// table of open files that FOPEN, FREAD, FWRITE, FCLOSE and SPAWN use.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "value.hpp"
#include "vseg/vcode/program.hpp"

namespace vseg::vcode::detail {

// Writes v as one line: "( 1 2 )", "( T F )", "( 1.00000000000000e+00 )",
// "[ 2 3 ]" (a descriptor's lengths), or "pair(INT,BOOL) " for a pair.
void write_value(std::FILE* stream, const value& v);

// Writes an INT vector of character codes as characters.
void write_chars(std::FILE* stream, const int_vec& chars);

// Reads a vector of type t in the format write_value produces ("string" for
// CHAR). Returns nullopt and sets `error` when the input is malformed.
std::optional<value> read_value(std::FILE* stream, type t, std::string& error);

// Reads characters until EOF, one of the delimiters, or max_chars (negative:
// no limit). `stop` becomes -1 at EOF, -2 at the limit, else the delimiter.
int_vec read_chars(std::FILE* stream, const int_vec& delimiters, std::int32_t max_chars,
                   std::int32_t& stop);

// VCODE file descriptors: small integers naming open streams; 0, 1 and 2 are
// the run's standard streams and are never closed.
class file_table {
 public:
  static constexpr int null_stream = -1;

  file_table(std::FILE* in, std::FILE* out, std::FILE* err);
  ~file_table();
  file_table(const file_table&) = delete;
  file_table& operator=(const file_table&) = delete;

  // The stream of descriptor fd, or nullptr when fd is not open.
  std::FILE* get(std::int64_t fd) const noexcept;
  // Opens name with mode 1 (read), 2 (write) or 3 (append); returns the new
  // descriptor, or -1 with `error` set.
  int open(const std::string& name, int mode, std::string& error);
  // Closes fd; false with `error` set when fd is not an open file.
  bool close(std::int64_t fd, std::string& error);
  // Starts `command` (split at spaces, searched in PATH) with the given
  // descriptors as its standard streams; a null_stream descriptor is replaced
  // by a new pipe whose other end is returned in its place.
  bool spawn(const std::string& command, std::array<int, 3>& fds, std::string& error);

 private:
  int insert(std::FILE* f);
  static constexpr int max_files = 256;
  std::array<std::FILE*, max_files> files_{};
};

}  // namespace vseg::vcode::detail
