// VCODE I/O in NESL's formats (nesl/vcode/io.c is the reference behaviour).
#include "io.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace vseg::vcode::detail {

namespace {

void put(std::FILE* stream, const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stream);
  std::fflush(stream);
}

template <class Range, class Format>
void append_all(std::string& s, const Range& xs, Format fmt) {
  char buf[64];
  for (const auto& x : xs) {
    const int n = fmt(buf, sizeof buf, x);
    s.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace

void write_value(std::FILE* stream, const value& v) {
  std::string s;
  auto ints = [](char* b, std::size_t n, auto x) {
    return std::snprintf(b, n, " %lld", static_cast<long long>(x));
  };
  switch (v.which()) {
    case value::int_:
      s = "(";
      append_all(s, v.as<int_vec>(), ints);
      s += " )\n";
      break;
    case value::bool_:
      s = "(";
      for (bool b : v.as<bool_vec>()) s += b ? " T" : " F";
      s += " )\n";
      break;
    case value::float_:
      s = "(";
      append_all(s, v.as<float_vec>(),
                 [](char* b, std::size_t n, double x) { return std::snprintf(b, n, " %.14e", x); });
      s += " )\n";
      break;
    case value::segdes:
      s = "[";
      append_all(s, v.as<segd>().lengths(), ints);
      s += " ]\n";
      break;
    case value::pair: {
      const auto& p = *v.as<pair_ptr>();
      s = "pair(" + std::string(kind_name(p.first.which())) + "," + std::string(kind_name(p.second.which())) +
          ") \n";
      break;
    }
  }
  put(stream, s);
}

void write_chars(std::FILE* stream, const int_vec& chars) {
  std::string s;
  s.reserve(static_cast<std::size_t>(chars.size()));
  for (std::int32_t c : chars) s.push_back(static_cast<char>(c));
  put(stream, s);
}

std::optional<value> read_value(std::FILE* stream, type t, std::string& error) {
  int c;
  while ((c = std::getc(stream)) != EOF && std::isspace(c)) {
  }
  const char open = t == type::chars ? '"' : t == type::segdes ? '[' : '(';
  const char close = t == type::chars ? '"' : t == type::segdes ? ']' : ')';
  if (c != open) {
    error = std::string("input error: vector must start with ") + open;
    return std::nullopt;
  }
  std::vector<std::int32_t> ints;
  std::vector<double> floats;
  std::vector<bool> bools;
  switch (t) {
    case type::int_:
    case type::segdes:
      for (;;) {
        while ((c = std::getc(stream)) != EOF && std::isspace(c)) {
        }
        bool negative = false;
        if (c == '-' || c == '+') {
          negative = c == '-';
          c = std::getc(stream);
        }
        if (!std::isdigit(c)) break;
        std::uint32_t v = 0;  // wraps like NESL's unsigned accumulator
        while (std::isdigit(c)) {
          v = 10 * v + static_cast<std::uint32_t>(c - '0');
          c = std::getc(stream);
        }
        ints.push_back(static_cast<std::int32_t>(negative ? 0u - v : v));
        if (c != EOF && !std::isspace(c)) break;
      }
      break;
    case type::bool_:
      for (;;) {
        c = std::getc(stream);
        if (c == ' ' || c == '\t' || c == '\n') continue;
        if (c == 'T') bools.push_back(true);
        else if (c == 'F') bools.push_back(false);
        else break;
      }
      break;
    case type::float_:
      for (;;) {
        double v;
        if (std::fscanf(stream, " %lf", &v) != 1) {
          c = std::getc(stream);
          break;
        }
        floats.push_back(v);
      }
      break;
    case type::chars:
      while ((c = std::getc(stream)) != EOF && c != '"') ints.push_back(c);
      break;
    case type::none:
      break;
  }
  if (c != close) {
    error = std::string("input error: vector must end with ") + close;
    return std::nullopt;
  }
  switch (t) {
    case type::float_: return value{float_vec(std::move(floats))};
    case type::bool_: return value{bool_vec(std::move(bools))};
    case type::segdes: {
      std::vector<std::int64_t> lengths;
      for (std::int32_t l : ints) {
        if (l < 0) {
          error = "input error: negative segment length";
          return std::nullopt;
        }
        lengths.push_back(l);
      }
      return value{segd::from_lengths(array<std::int64_t>(std::move(lengths)))};
    }
    default: return value{int_vec(std::move(ints))};
  }
}

int_vec read_chars(std::FILE* stream, const int_vec& delimiters, std::int32_t max_chars,
                   std::int32_t& stop) {
  std::array<bool, 256> is_delim{};
  for (std::int32_t d : delimiters)
    if (d >= 0 && d < 256) is_delim[static_cast<std::size_t>(d)] = true;
  const std::int64_t limit = max_chars < 0 ? std::int64_t{1} << 30 : max_chars;
  std::vector<std::int32_t> chars;
  int c = 0;
  while (static_cast<std::int64_t>(chars.size()) < limit && (c = std::getc(stream)) != EOF &&
         !is_delim[static_cast<std::size_t>(c)])
    chars.push_back(c);
  if (static_cast<std::int64_t>(chars.size()) == limit) stop = -2;
  else if (c == EOF) stop = -1;
  else stop = c;
  return int_vec(std::move(chars));
}

file_table::file_table(std::FILE* in, std::FILE* out, std::FILE* err) {
  files_[0] = in;
  files_[1] = out;
  files_[2] = err;
}

file_table::~file_table() {
  for (int fd = 3; fd < max_files; ++fd)
    if (files_[static_cast<std::size_t>(fd)] != nullptr) std::fclose(files_[static_cast<std::size_t>(fd)]);
}

std::FILE* file_table::get(std::int64_t fd) const noexcept {
  if (fd < 0 || fd >= max_files) return nullptr;
  return files_[static_cast<std::size_t>(fd)];
}

int file_table::insert(std::FILE* f) {
  for (int fd = 0; fd < max_files; ++fd)
    if (files_[static_cast<std::size_t>(fd)] == nullptr) {
      files_[static_cast<std::size_t>(fd)] = f;
      return fd;
    }
  std::fclose(f);
  return -1;
}

int file_table::open(const std::string& name, int mode, std::string& error) {
  const char* how = mode == 1 ? "r" : mode == 2 ? "w" : "a";
  std::FILE* f = std::fopen(name.c_str(), how);
  if (f == nullptr) {
    error = std::strerror(errno);
    return -1;
  }
  const int fd = insert(f);
  if (fd < 0) error = "no room in internal file table";
  return fd;
}

bool file_table::close(std::int64_t fd, std::string& error) {
  std::FILE* f = get(fd);
  if (f == nullptr) {
    error = "illegal VCODE file descriptor in FCLOSE";
    return false;
  }
  if (fd <= 2) return true;  // the run's standard streams stay open
  files_[static_cast<std::size_t>(fd)] = nullptr;
  if (std::fclose(f) != 0) {
    error = "FCLOSE: could not close file";
    return false;
  }
  return true;
}

bool file_table::spawn(const std::string& command, std::array<int, 3>& fds, std::string& error) {
  std::vector<std::string> words;
  for (std::size_t i = 0; i < command.size();) {
    while (i < command.size() && std::isspace(static_cast<unsigned char>(command[i]))) ++i;
    std::size_t j = i;
    while (j < command.size() && !std::isspace(static_cast<unsigned char>(command[j]))) ++j;
    if (j > i) words.push_back(command.substr(i, j - i));
    i = j;
  }
  if (words.empty()) {
    error = "SPAWN: empty command";
    return false;
  }
  // For every null stream, a pipe: the child gets one end, we keep the other.
  std::array<std::array<int, 2>, 3> pipes{};
  std::array<int, 3> child_fd{};
  for (std::size_t k = 0; k < 3; ++k) {
    if (fds[k] == null_stream) {
      if (::pipe(pipes[k].data()) != 0) {
        error = "SPAWN: error opening pipe";
        return false;
      }
      child_fd[k] = k == 0 ? pipes[k][0] : pipes[k][1];
    } else {
      std::FILE* f = get(fds[k]);
      if (f == nullptr) {
        error = "SPAWN: illegal VCODE file descriptor " + std::to_string(fds[k]);
        return false;
      }
      std::fflush(f);
      child_fd[k] = ::fileno(f);
    }
  }
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    error = std::string("SPAWN: error performing fork: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
    for (int k = 0; k < 3; ++k)
      if (::dup2(child_fd[static_cast<std::size_t>(k)], k) < 0) ::_exit(127);
    for (std::size_t k = 0; k < 3; ++k)
      if (fds[k] == null_stream) {
        ::close(pipes[k][0]);
        ::close(pipes[k][1]);
      }
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  for (std::size_t k = 0; k < 3; ++k) {
    if (fds[k] != null_stream) continue;
    const int keep = k == 0 ? pipes[k][1] : pipes[k][0];
    ::close(k == 0 ? pipes[k][0] : pipes[k][1]);
    std::FILE* f = ::fdopen(keep, k == 0 ? "w" : "r");
    if (f == nullptr) {
      ::close(keep);
      error = "SPAWN: fdopen failed";
      return false;
    }
    fds[k] = insert(f);
  }
  // Reap children that have already finished, as NESL does before a spawn.
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
  return true;
}

}  // namespace vseg::vcode::detail
