// Unit tests of the stack-move planner (lib/vcode/shuffle.hpp), a pure
// function of the program's code.
#include <doctest/doctest.h>

#include <vector>

#include "../../lib/vcode/shuffle.hpp"

using vseg::vcode::instruction;
using vseg::vcode::opcode;
using vseg::vcode::detail::plan_shuffle;

namespace {

instruction move(opcode op, int count, int depth) {
  instruction ins{};
  ins.op = op;
  ins.a = count;
  ins.b = depth;
  return ins;
}

}  // namespace

TEST_CASE("plan_shuffle: a single move is not a run") {
  const std::vector<instruction> code{move(opcode::copy, 1, 0), move(opcode::add, 0, 0)};
  CHECK_FALSE(plan_shuffle(code, 0).has_value());
}

TEST_CASE("plan_shuffle: COPY then POP of the original is a move of one entry") {
  // stack ... a b: COPY 1 1 -> a b a; POP 1 2 -> b a.
  const std::vector<instruction> code{move(opcode::copy, 1, 1), move(opcode::pop, 1, 2)};
  const auto s = plan_shuffle(code, 0);
  REQUIRE(s.has_value());
  CHECK(s->length == 2);
  CHECK(s->window == 2);
  CHECK(s->keep == 0);
  CHECK(s->from == std::vector<std::uint8_t>{1, 0});  // b then a
  CHECK(s->copied == std::vector<std::uint8_t>{0});    // the COPY made a copy of a
  CHECK(s->changed.empty());                           // each entry appears once at the end
}

TEST_CASE("plan_shuffle: a COPY that stays is counted in changed") {
  // ... a b: COPY 1 0 -> a b b; CPOP 1 2 -> b b a.
  const std::vector<instruction> code{move(opcode::copy, 1, 0), move(opcode::cpop, 1, 2)};
  const auto s = plan_shuffle(code, 0);
  REQUIRE(s.has_value());
  CHECK(s->window == 2);
  CHECK(s->from == std::vector<std::uint8_t>{1, 1, 0});
  REQUIRE(s->changed.size() == 1);
  CHECK(s->changed[0].first == 1);
  CHECK(s->changed[0].second == 1);
  // b's first place shares it, its last takes it; a is used once, moved.
  CHECK_FALSE(s->moves(0));
  CHECK(s->moves(1));
  CHECK(s->moves(2));
  CHECK(s->last_use == 0b110);
}

TEST_CASE("plan_shuffle: a new top of more than 64 places moves only in its first 64") {
  // CPOP 1 1 swaps the top two; COPY 1 63 then reads 64 entries and makes
  // a 65th place (Barnes-Hut has such runs). Places from 64 on have no
  // bit, so they share.
  const std::vector<instruction> code{move(opcode::cpop, 1, 1), move(opcode::copy, 1, 63)};
  const auto s = plan_shuffle(code, 0);
  REQUIRE(s.has_value());
  CHECK(s->window == 64);
  REQUIRE(s->keep + s->from.size() == 65);
  for (std::size_t i = 64; i < s->from.size(); ++i) CHECK_FALSE(s->moves(i));
  // Every position still used is moved by at most one place.
  std::vector<int> moved(64, 0);
  for (std::size_t i = 0; i < s->from.size(); ++i) moved[s->from[i]] += s->moves(i) ? 1 : 0;
  for (int m : moved) CHECK(m <= 1);
}

TEST_CASE("plan_shuffle: the run stops at the first other instruction and at a move past 64 entries") {
  const std::vector<instruction> code{move(opcode::pop, 1, 0), move(opcode::pop, 1, 0), move(opcode::add, 0, 0),
                                      move(opcode::pop, 1, 0)};
  const auto s = plan_shuffle(code, 0);
  REQUIRE(s.has_value());
  CHECK(s->length == 2);
  CHECK(s->from.empty());
  const std::vector<instruction> deep{move(opcode::copy, 1, 70), move(opcode::pop, 1, 0)};
  CHECK_FALSE(plan_shuffle(deep, 0).has_value());
}
