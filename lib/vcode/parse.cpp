// The VCODE lexer and parser: source text -> vseg::vcode::program.
//
// Tokens follow NESL's lexer (nesl/vcode/tokens.flex): words are runs of
// [-+*/%<>=!._A-Za-z0-9]; a word that looks like [-+]?digits is an integer,
// [-+]?digits.digits*([eE][-+]?digits)? a float; `{...}` is a comment;
// `"..."` a string (it may span lines); `(` and `)` delimit vector constants.
#include "vseg/vcode/program.hpp"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace vseg::vcode {

namespace {

// What follows an operation's keyword on its line.
enum class operands : std::uint8_t {
  none,         // nothing (the type is implied)
  int_float,    // INT | FLOAT
  int_bool,     // INT | BOOL
  any_scalar,   // INT | BOOL | FLOAT
  any_type,     // INT | BOOL | FLOAT | SEGDES | CHAR
  int_only,     // INT
  two_ints,     // COPY/POP/CPOP count depth
  callee,       // CALL name
  constant,     // CONST ...
};

struct op_info {
  opcode op;
  operands kind;
  type implied;  // the type recorded when no type word is given
};

const std::unordered_map<std::string_view, op_info>& keywords() {
  using o = opcode;
  using k = operands;
  using t = type;
  static const std::unordered_map<std::string_view, op_info> table = {
      {"+", {o::add, k::int_float, t::none}},
      {"-", {o::sub, k::int_float, t::none}},
      {"*", {o::mul, k::int_float, t::none}},
      {"/", {o::div, k::int_float, t::none}},
      {"%", {o::mod, k::none, t::int_}},
      {"<", {o::lt, k::int_float, t::none}},
      {"<=", {o::le, k::int_float, t::none}},
      {">", {o::gt, k::int_float, t::none}},
      {">=", {o::ge, k::int_float, t::none}},
      {"=", {o::eq, k::int_float, t::none}},
      {"!=", {o::ne, k::int_float, t::none}},
      {"LSHIFT", {o::lshift, k::none, t::int_}},
      {"RSHIFT", {o::rshift, k::none, t::int_}},
      {"NOT", {o::not_, k::int_bool, t::none}},
      {"AND", {o::and_, k::int_bool, t::none}},
      {"OR", {o::or_, k::int_bool, t::none}},
      {"XOR", {o::xor_, k::int_bool, t::none}},
      {"SELECT", {o::select, k::any_scalar, t::none}},
      {"RAND", {o::rand, k::none, t::int_}},
      {"FLOOR", {o::floor, k::none, t::float_}},
      {"CEIL", {o::ceil, k::none, t::float_}},
      {"TRUNC", {o::trunc, k::none, t::float_}},
      {"ROUND", {o::round, k::none, t::float_}},
      {"LOG", {o::log, k::none, t::float_}},
      {"SQRT", {o::sqrt, k::none, t::float_}},
      {"EXP", {o::exp, k::none, t::float_}},
      {"SIN", {o::sin, k::none, t::float_}},
      {"COS", {o::cos, k::none, t::float_}},
      {"TAN", {o::tan, k::none, t::float_}},
      {"ASIN", {o::asin, k::none, t::float_}},
      {"ACOS", {o::acos, k::none, t::float_}},
      {"ATAN", {o::atan, k::none, t::float_}},
      {"SINH", {o::sinh, k::none, t::float_}},
      {"COSH", {o::cosh, k::none, t::float_}},
      {"TANH", {o::tanh, k::none, t::float_}},
      {"I_TO_F", {o::i_to_f, k::none, t::int_}},
      {"I_TO_B", {o::i_to_b, k::none, t::int_}},
      {"B_TO_I", {o::b_to_i, k::none, t::bool_}},
      {"+_SCAN", {o::plus_scan, k::int_float, t::none}},
      {"*_SCAN", {o::mult_scan, k::int_float, t::none}},
      {"MAX_SCAN", {o::max_scan, k::int_float, t::none}},
      {"MIN_SCAN", {o::min_scan, k::int_float, t::none}},
      {"AND_SCAN", {o::and_scan, k::int_bool, t::none}},
      {"OR_SCAN", {o::or_scan, k::int_bool, t::none}},
      {"XOR_SCAN", {o::xor_scan, k::int_bool, t::none}},
      {"+_REDUCE", {o::plus_reduce, k::int_float, t::none}},
      {"*_REDUCE", {o::mult_reduce, k::int_float, t::none}},
      {"MAX_REDUCE", {o::max_reduce, k::int_float, t::none}},
      {"MIN_REDUCE", {o::min_reduce, k::int_float, t::none}},
      {"AND_REDUCE", {o::and_reduce, k::int_bool, t::none}},
      {"OR_REDUCE", {o::or_reduce, k::int_bool, t::none}},
      {"XOR_REDUCE", {o::xor_reduce, k::int_bool, t::none}},
      {"PERMUTE", {o::permute, k::any_scalar, t::none}},
      {"DPERMUTE", {o::dpermute, k::any_scalar, t::none}},
      {"FPERMUTE", {o::fpermute, k::any_scalar, t::none}},
      {"BPERMUTE", {o::bpermute, k::any_scalar, t::none}},
      {"BFPERMUTE", {o::bfpermute, k::any_scalar, t::none}},
      {"DFPERMUTE", {o::dfpermute, k::any_scalar, t::none}},
      {"EXTRACT", {o::extract, k::any_scalar, t::none}},
      {"REPLACE", {o::replace, k::any_scalar, t::none}},
      {"DIST", {o::dist, k::any_scalar, t::none}},
      {"INDEX", {o::index, k::none, t::int_}},
      {"RANK_UP", {o::rank_up, k::int_float, t::none}},
      {"RANK_DOWN", {o::rank_down, k::int_float, t::none}},
      {"PACK", {o::pack, k::any_scalar, t::none}},
      {"LENGTH", {o::length, k::any_scalar, t::none}},
      {"MAKE_SEGDES", {o::make_segdes, k::none, t::segdes}},
      {"LENGTHS", {o::lengths, k::none, t::int_}},
      {"COPY", {o::copy, k::two_ints, t::none}},
      {"POP", {o::pop, k::two_ints, t::none}},
      {"CPOP", {o::cpop, k::two_ints, t::none}},
      {"PAIR", {o::pair, k::none, t::none}},
      {"UNPAIR", {o::unpair, k::none, t::none}},
      {"CALL", {o::call, k::callee, t::none}},
      {"RET", {o::ret, k::none, t::none}},
      {"IF", {o::if_, k::none, t::none}},
      {"ELSE", {o::else_, k::none, t::none}},
      {"CONST", {o::const_, k::constant, t::none}},
      {"EXIT", {o::exit, k::none, t::none}},
      {"START_TIMER", {o::start_timer, k::none, t::none}},
      {"STOP_TIMER", {o::stop_timer, k::none, t::none}},
      {"READ", {o::read, k::any_type, t::none}},
      {"WRITE", {o::write, k::any_type, t::none}},
      {"FOPEN", {o::fopen, k::none, t::none}},
      {"FCLOSE", {o::fclose, k::none, t::none}},
      {"FREAD", {o::fread, k::any_type, t::none}},
      {"FREAD_CHAR", {o::fread_char, k::none, t::none}},
      {"FWRITE", {o::fwrite, k::any_type, t::none}},
      {"SPAWN", {o::spawn, k::none, t::none}},
      {"SRAND", {o::srand, k::int_only, t::int_}},
  };
  return table;
}

std::optional<type> type_word(std::string_view w) {
  if (w == "INT") return type::int_;
  if (w == "BOOL") return type::bool_;
  if (w == "FLOAT") return type::float_;
  if (w == "SEGDES") return type::segdes;
  if (w == "CHAR") return type::chars;
  return std::nullopt;
}

bool allowed(operands kind, type t) {
  switch (kind) {
    case operands::int_float: return t == type::int_ || t == type::float_;
    case operands::int_bool: return t == type::int_ || t == type::bool_;
    case operands::any_scalar: return t == type::int_ || t == type::bool_ || t == type::float_;
    case operands::any_type: return t != type::none;
    case operands::int_only: return t == type::int_;
    default: return false;
  }
}

std::string_view allowed_words(operands kind) {
  switch (kind) {
    case operands::int_float: return "INT or FLOAT";
    case operands::int_bool: return "INT or BOOL";
    case operands::any_scalar: return "INT, BOOL or FLOAT";
    case operands::any_type: return "INT, BOOL, FLOAT, SEGDES or CHAR";
    case operands::int_only: return "INT";
    default: return "no type word";
  }
}

enum class token_kind : std::uint8_t { word, integer, real, string, open, close, end };

struct token {
  token_kind kind = token_kind::end;
  std::string_view text;  // the word, or the string's contents without quotes
  int line = 0;
};

bool is_word_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '+' || c == '*' || c == '/' || c == '%' || c == '<' || c == '>' ||
         c == '=' || c == '!' || c == '.' || c == '_';
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// [-+]?digits
bool looks_integer(std::string_view w) {
  std::size_t i = (!w.empty() && (w[0] == '-' || w[0] == '+')) ? 1 : 0;
  if (i == w.size()) return false;
  for (; i < w.size(); ++i)
    if (!is_digit(w[i])) return false;
  return true;
}

// [-+]?digits.digits*([eE][-+]?digits)?
bool looks_real(std::string_view w) {
  std::size_t i = (!w.empty() && (w[0] == '-' || w[0] == '+')) ? 1 : 0;
  std::size_t digits = 0;
  while (i < w.size() && is_digit(w[i])) ++i, ++digits;
  if (digits == 0 || i == w.size() || w[i] != '.') return false;
  ++i;
  while (i < w.size() && is_digit(w[i])) ++i;
  if (i == w.size()) return true;
  if (w[i] != 'e' && w[i] != 'E') return false;
  ++i;
  if (i < w.size() && (w[i] == '-' || w[i] == '+')) ++i;
  std::size_t exp_digits = 0;
  while (i < w.size() && is_digit(w[i])) ++i, ++exp_digits;
  return exp_digits > 0 && i == w.size();
}

class lexer {
 public:
  explicit lexer(std::string_view src) : src_(src) {}

  token next() {
    for (;;) {
      if (pos_ >= src_.size()) return {token_kind::end, {}, line_};
      const char c = src_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '{') {
        const int start = line_;
        ++pos_;
        while (pos_ < src_.size() && src_[pos_] != '}') {
          if (src_[pos_] == '\n') ++line_;
          ++pos_;
        }
        if (pos_ >= src_.size()) throw error(start, "unterminated comment");
        ++pos_;
      } else {
        break;
      }
    }
    const char c = src_[pos_];
    const int line = line_;
    if (c == '(') return {token_kind::open, src_.substr(pos_++, 1), line};
    if (c == ')') return {token_kind::close, src_.substr(pos_++, 1), line};
    if (c == '"') {
      const std::size_t start = ++pos_;
      while (pos_ < src_.size() && src_[pos_] != '"') {
        if (src_[pos_] == '\n') ++line_;
        ++pos_;
      }
      if (pos_ >= src_.size()) throw error(line, "unterminated string constant");
      return {token_kind::string, src_.substr(start, pos_++ - start), line};
    }
    if (!is_word_char(c)) {
      const auto code = static_cast<unsigned>(static_cast<unsigned char>(c));
      throw error(line, "unexpected character (code " + std::to_string(code) + ")");
    }
    const std::size_t start = pos_;
    while (pos_ < src_.size() && is_word_char(src_[pos_])) ++pos_;
    const std::string_view w = src_.substr(start, pos_ - start);
    if (looks_integer(w)) return {token_kind::integer, w, line};
    if (looks_real(w)) return {token_kind::real, w, line};
    return {token_kind::word, w, line};
  }

 private:
  std::string_view src_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

std::string quoted(std::string_view w) {
  std::string s = "\"";
  s.append(w.substr(0, 60));
  if (w.size() > 60) s += "...";
  return s + "\"";
}

std::string describe(const token& t) {
  switch (t.kind) {
    case token_kind::end: return "end of file";
    case token_kind::string: return "a string constant";
    default: return quoted(t.text);
  }
}

// A C int, as NESL's lexer reads it with sscanf("%d") on glibc: the digits
// are read as a long (saturating at the long's limits) and the low 32 bits
// are kept, so 23209834902834 reads as -168364750 (qs-orig.vcode relies on it).
std::int32_t to_int(const token& t) {
  std::string_view w = t.text;
  const bool negative = !w.empty() && w[0] == '-';
  if (!w.empty() && (w[0] == '+' || w[0] == '-')) w.remove_prefix(1);
  std::uint64_t v = 0;
  bool saturated = false;
  for (char c : w) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::uint64_t{1} << 63) / 10 || v * 10 + d > (std::uint64_t{1} << 63)) saturated = true;
    else v = v * 10 + d;
  }
  std::int64_t l = 0;
  if (saturated || (!negative && v == (std::uint64_t{1} << 63)))
    l = negative ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
  else
    l = negative ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(l)));
}

double to_real(const token& t) {
  const std::string s(t.text);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) throw error(t.line, "malformed float constant " + quoted(t.text));
  return v;  // overflow gives +-inf, as sscanf("%lf") does
}

class parser {
 public:
  explicit parser(std::string_view src) : lex_(src) { advance(); }

  program run() {
    if (cur_.kind == token_kind::end) throw error(cur_.line, "empty program: no FUNC");
    while (cur_.kind != token_kind::end) parse_function();
    link();
    return std::move(prog_);
  }

 private:
  void advance() { cur_ = lex_.next(); }

  [[noreturn]] void fail(const token& t, const std::string& what) { throw error(t.line, what); }

  std::string_view expect_word(std::string_view what) {
    if (cur_.kind != token_kind::word) fail(cur_, "expected " + std::string(what) + ", found " + describe(cur_));
    const std::string_view w = cur_.text;
    advance();
    return w;
  }

  std::int32_t expect_integer(std::string_view what) {
    if (cur_.kind != token_kind::integer)
      fail(cur_, "expected " + std::string(what) + ", found " + describe(cur_));
    const std::int32_t v = to_int(cur_);
    advance();
    return v;
  }

  void parse_function() {
    const token func = cur_;
    if (cur_.kind != token_kind::word || cur_.text != "FUNC")
      fail(cur_, "expected FUNC, found " + describe(cur_));
    advance();
    if (cur_.kind != token_kind::word && cur_.kind != token_kind::integer)
      fail(cur_, "expected a function name after FUNC, found " + describe(cur_));
    const std::string name(cur_.text);
    advance();
    if (auto it = by_name_.find(name); it != by_name_.end())
      fail(func, "function " + name + " is defined twice (first at line " +
                     std::to_string(prog_.functions[static_cast<std::size_t>(it->second)].line) + ")");
    const auto index = static_cast<std::int64_t>(prog_.functions.size());
    by_name_.emplace(name, index);
    prog_.functions.push_back({name, func.line, static_cast<std::int64_t>(prog_.code.size())});
    if (name == "MAIN") prog_.main = index;
    skip_type_info();

    std::vector<std::pair<std::int64_t, bool>> ifs;  // pending IF (false) or ELSE (true)
    for (;;) {
      if (cur_.kind == token_kind::end)
        fail(cur_, "function " + name + " (line " + std::to_string(func.line) + ") has no RET");
      if (cur_.kind != token_kind::word) fail(cur_, "expected an operation, found " + describe(cur_));
      const token op_tok = cur_;
      if (op_tok.text == "FUNC")
        fail(op_tok, "FUNC inside function " + name + " (line " + std::to_string(func.line) +
                         "): the previous function has no RET");
      if (op_tok.text == "ENDIF") {
        advance();
        if (ifs.empty()) fail(op_tok, "ENDIF without a matching IF");
        prog_.code[static_cast<std::size_t>(ifs.back().first)].a = static_cast<std::int64_t>(prog_.code.size());
        ifs.pop_back();
        continue;
      }
      const auto it = keywords().find(op_tok.text);
      if (it == keywords().end()) fail(op_tok, "unknown operation " + quoted(op_tok.text));
      const op_info info = it->second;
      advance();
      instruction ins{info.op, info.implied, op_tok.line, 0, 0};
      if (info.op == opcode::else_) {
        if (ifs.empty() || ifs.back().second) fail(op_tok, "ELSE without a matching IF");
        prog_.code[static_cast<std::size_t>(ifs.back().first)].a = static_cast<std::int64_t>(prog_.code.size()) + 1;
        ifs.back() = {static_cast<std::int64_t>(prog_.code.size()), true};
      } else if (info.op == opcode::if_) {
        ifs.emplace_back(static_cast<std::int64_t>(prog_.code.size()), false);
      } else if (info.op == opcode::ret) {
        if (!ifs.empty())
          fail(op_tok, "RET inside an IF (the IF or ELSE at line " +
                           std::to_string(prog_.code[static_cast<std::size_t>(ifs.back().first)].line) +
                           " has no ENDIF)");
        prog_.code.push_back(ins);
        return;
      }
      parse_operands(info, ins, op_tok);
      prog_.code.push_back(ins);
    }
  }

  // FUNC name I <types> O <types>: the declared types are informational only.
  void skip_type_info() {
    if (cur_.kind != token_kind::word || cur_.text != "I") return;
    advance();
    while (cur_.kind == token_kind::word && type_word(cur_.text)) advance();
    if (cur_.kind != token_kind::word || cur_.text != "O")
      fail(cur_, "expected O after the input types, found " + describe(cur_));
    advance();
    while (cur_.kind == token_kind::word && type_word(cur_.text)) advance();
  }

  void parse_operands(const op_info& info, instruction& ins, const token& op_tok) {
    switch (info.kind) {
      case operands::none:
        return;
      case operands::two_ints: {
        ins.a = expect_integer("a count");
        ins.b = expect_integer("a stack depth");
        if (ins.a < 0 || ins.b < 0)
          fail(op_tok, std::string(op_tok.text) + " " + std::to_string(ins.a) + " " + std::to_string(ins.b) +
                           ": negative operand");
        return;
      }
      case operands::callee: {
        if (cur_.kind != token_kind::word && cur_.kind != token_kind::integer)
          fail(cur_, "expected a function name after CALL, found " + describe(cur_));
        calls_.emplace_back(static_cast<std::int64_t>(prog_.code.size()), std::string(cur_.text));
        advance();
        return;
      }
      case operands::constant:
        parse_constant(ins);
        return;
      default: {
        const token tw = cur_;
        std::optional<type> t;
        if (tw.kind == token_kind::word) t = type_word(tw.text);
        if (!t || !allowed(info.kind, *t))
          fail(tw, std::string(op_tok.text) + " needs the type word " + std::string(allowed_words(info.kind)) +
                       ", found " + describe(tw));
        ins.ty = *t;
        advance();
        return;
      }
    }
  }

  void parse_constant(instruction& ins) {
    const token tw = cur_;
    std::optional<type> t;
    if (tw.kind == token_kind::word) t = type_word(tw.text);
    if (!t) fail(tw, "CONST needs a type word (INT, BOOL, FLOAT, SEGDES or CHAR), found " + describe(tw));
    advance();
    constant c;
    c.ty = *t;
    ins.ty = *t;
    if (*t == type::chars) {
      if (cur_.kind != token_kind::string) fail(cur_, "CONST CHAR needs a string, found " + describe(cur_));
      for (char ch : cur_.text) c.ints.push_back(static_cast<std::int32_t>(static_cast<unsigned char>(ch)));
      advance();
    } else if (cur_.kind == token_kind::open) {
      advance();
      while (cur_.kind != token_kind::close) {
        if (cur_.kind == token_kind::end) fail(cur_, "vector constant without a closing )");
        add_value(c, cur_);
        advance();
      }
      advance();
    } else {
      add_value(c, cur_);
      advance();
    }
    if (c.ty == type::segdes)
      for (std::int32_t len : c.ints)
        if (len < 0) fail(tw, "CONST SEGDES with the negative length " + std::to_string(len));
    ins.a = static_cast<std::int64_t>(prog_.constants.size());
    prog_.constants.push_back(std::move(c));
  }

  void add_value(constant& c, const token& t) {
    switch (c.ty) {
      case type::int_:
        if (t.kind == token_kind::word) {
          if (t.text == "STDIN") return c.ints.push_back(0);
          if (t.text == "STDOUT") return c.ints.push_back(1);
          if (t.text == "STDERR") return c.ints.push_back(2);
          if (t.text == "NULL_STREAM") return c.ints.push_back(-1);
        }
        [[fallthrough]];
      case type::segdes:
        if (t.kind != token_kind::integer) fail(t, "expected an INT value, found " + describe(t));
        return c.ints.push_back(to_int(t));
      case type::float_:
        if (t.kind != token_kind::real) fail(t, "expected a FLOAT value, found " + describe(t));
        return c.floats.push_back(to_real(t));
      case type::bool_:
        if (t.kind == token_kind::word && t.text == "T") return c.bools.push_back(true);
        if (t.kind == token_kind::word && t.text == "F") return c.bools.push_back(false);
        fail(t, "expected a BOOL value (T or F), found " + describe(t));
      default:
        fail(t, "bad constant type");
    }
  }

  void link() {
    for (const auto& [at, name] : calls_) {
      auto it = by_name_.find(name);
      auto& ins = prog_.code[static_cast<std::size_t>(at)];
      if (it == by_name_.end()) throw error(ins.line, "CALL of the undefined function " + name);
      ins.a = prog_.functions[static_cast<std::size_t>(it->second)].entry;
      ins.b = it->second;
    }
  }

  lexer lex_;
  token cur_;
  program prog_;
  std::unordered_map<std::string, std::int64_t> by_name_;
  std::vector<std::pair<std::int64_t, std::string>> calls_;
};

}  // namespace

std::string_view name(type t) {
  switch (t) {
    case type::int_: return "INT";
    case type::bool_: return "BOOL";
    case type::float_: return "FLOAT";
    case type::segdes: return "SEGDES";
    case type::chars: return "CHAR";
    case type::none: break;
  }
  return "PAIR";
}

std::string_view name(opcode op) {
  for (const auto& [word, info] : keywords())
    if (info.op == op) return word;
  return "?";
}

program parse(std::string_view source) { return parser(source).run(); }

}  // namespace vseg::vcode
