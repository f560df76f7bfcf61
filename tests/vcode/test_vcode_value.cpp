// Unit tests of the stack value's representations and cached facts
// (lib/vcode/value.hpp): a write in place is the only way a value's
// elements change, and it drops every cached fact; the facts are refused
// where they cannot belong.
#include <doctest/doctest.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include <boost/smart_ptr/intrusive_ptr.hpp>

#include "../../lib/vcode/value.hpp"

using vseg::segd;
using vseg::vcode::detail::descriptor_of;
using vseg::vcode::detail::int_vec;
using vseg::vcode::detail::lengths_of;
using vseg::vcode::detail::value;

namespace {

using handle = boost::intrusive_ptr<value>;

// An INT vector 0..n-1 in a buffer of its own, held by one handle.
handle ints_0_to(std::int64_t n) {
  std::vector<std::int32_t> xs(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) xs[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(n - 1 - i);
  // Through a range (not a std::vector, which an array holds as foreign,
  // never writable memory): the elements are copied into a buffer.
  return handle(new value(int_vec(std::span<const std::int32_t>(xs))));
}

// An INT vector holding every cached fact an INT vector can hold.
handle with_every_fact(std::int64_t n) {
  handle v = ints_0_to(n);
  v->remember_descriptor(segd::from_lengths(vseg::fill<std::int64_t>(n, 1)));
  v->remember_inverse(vseg::iota<std::int32_t>(n, 0, 1));
  return v;
}

}  // namespace

TEST_CASE("value: a write in place drops every cached fact") {
  handle v = with_every_fact(5);
  REQUIRE(v->cached_descriptor() != nullptr);
  REQUIRE(v->cached_inverse() != nullptr);
  REQUIRE(v->known_permutation());
  const auto out = v->write_in_place<std::int32_t>(5);
  REQUIRE(out.size() == 5);
  CHECK(out.data() == v->as<int_vec>().data());  // the value's own elements
  CHECK(v->cached_descriptor() == nullptr);
  CHECK(v->cached_inverse() == nullptr);
  CHECK_FALSE(v->known_permutation());
  out[0] = 42;
  CHECK(v->as<int_vec>()[0] == 42);
}

TEST_CASE("value: no write in place when anything else could see it; the facts stay") {
  SUBCASE("a second handle (another stack entry)") {
    handle v = with_every_fact(4);
    handle other = v;
    CHECK(v->write_in_place<std::int32_t>(4).empty());
    CHECK(v->known_permutation());
    CHECK(v->cached_inverse() != nullptr);
  }
  SUBCASE("another owner of the buffer") {
    handle v = with_every_fact(4);
    const int_vec copy = v->as<int_vec>();
    CHECK(v->write_in_place<std::int32_t>(4).empty());
    CHECK(v->cached_descriptor() != nullptr);
  }
  SUBCASE("a value held by no handle (a pair's part)") {
    value v{vseg::iota<std::int32_t>(4, 0, 1)};
    CHECK(v.write_in_place<std::int32_t>(4).empty());
  }
  SUBCASE("the wrong element type or length") {
    handle v = with_every_fact(4);
    CHECK(v->write_in_place<double>(4).empty());
    CHECK(v->write_in_place<std::int32_t>(3).empty());
    CHECK(v->known_permutation());
  }
  SUBCASE("a splat or a lazy value") {
    handle s(new value(value::splat<std::int32_t>(7, 1000)));
    CHECK(s->is_splat());
    CHECK_FALSE(s->is_stored());
    CHECK(s->length() == 1000);
    CHECK(s->words() == 1);
    CHECK(s->write_in_place<std::int32_t>(1).empty());
    CHECK(s->write_in_place<std::int32_t>(1000).empty());
    handle q(new value(value::sequence(3, 2, 100)));
    CHECK(q->splat_step() == 2);
    CHECK(q->splat_scalar<std::int32_t>() == nullptr);  // a sequence is not one repeated scalar
    CHECK(*s->splat_scalar<std::int32_t>() == 7);
    CHECK(s->splat_scalar<double>() == nullptr);
  }
  SUBCASE("a descriptor is never written") {
    handle d(new value(segd::from_lengths(vseg::fill<std::int64_t>(3, 2))));
    d->remember_lengths(vseg::fill<std::int32_t>(3, 2));
    CHECK(d->write_in_place<std::int32_t>(3).empty());
    CHECK(d->cached_lengths() != nullptr);
  }
}

TEST_CASE("value: flags keep a pack plan, which never blocks their write in place") {
  const segd s = segd::from_lengths(vseg::fill<std::int64_t>(2, 2));
  const auto flags_of = [] { return handle(new value(vseg::array<bool>{true, false, false, true})); };
  handle f = flags_of();
  f->remember_pack_plan(std::make_shared<const vseg::pack_plan>(s, f->as<vseg::vcode::detail::bool_vec>()));
  REQUIRE(f->cached_pack_plan() != nullptr);
  CHECK(f->cached_pack_plan()->made_for(s));
  // The plan shares the flags' buffer; the only handle may still write.
  const auto out = f->write_in_place<bool>(4);
  CHECK(out.size() == 4);
  CHECK(f->cached_pack_plan() == nullptr);
  // Refused: not BOOL, or a plan of other flags' length.
  handle ints = ints_0_to(4);
  const vseg::array<bool> two{true, false};
  const vseg::array<bool> four{true, true, false, false};
  CHECK_THROWS_AS(ints->remember_pack_plan(std::make_shared<const vseg::pack_plan>(segd::single(4), four)),
                  std::logic_error);
  CHECK_THROWS_AS(flags_of()->remember_pack_plan(std::make_shared<const vseg::pack_plan>(segd::single(2), two)),
                  std::logic_error);
}

TEST_CASE("value: a fact that cannot belong to the value is refused") {
  handle v = ints_0_to(4);
  CHECK_THROWS_AS(v->remember_inverse(vseg::iota<std::int32_t>(3, 0, 1)), std::logic_error);  // length
  CHECK_THROWS_AS(v->remember_descriptor(segd::from_lengths(vseg::fill<std::int64_t>(2, 2))), std::logic_error);
  CHECK_THROWS_AS(v->remember_lengths(vseg::fill<std::int32_t>(4, 1)), std::logic_error);  // not a descriptor
  handle s(new value(value::splat<std::int32_t>(0, 300)));
  CHECK_THROWS_AS(s->mark_permutation(), std::logic_error);  // not stored
  handle f(new value(vseg::fill<double>(4, 1.0)));
  CHECK_THROWS_AS(f->mark_permutation(), std::logic_error);  // not INT
  CHECK(v->cached_inverse() == nullptr);
  CHECK_FALSE(v->known_permutation());
}

TEST_CASE("value: descriptor_of and lengths_of use a cached fact or compute the same") {
  const std::vector<std::int32_t> ls{3, 0, 2, 5};
  handle lengths(new value(int_vec(std::span<const std::int32_t>(ls))));
  const segd made = descriptor_of(*lengths);  // computed
  CHECK(made.segments() == 4);
  CHECK(made.elements() == 10);
  handle d(new value(made));
  CHECK(d->cached_lengths() == nullptr);
  const int_vec computed = lengths_of(*d);
  CHECK(vseg::to_vector(computed) == ls);
  d->remember_lengths(lengths->as<int_vec>());
  CHECK(lengths_of(*d).shares_buffer_with(lengths->as<int_vec>()));  // cached: O(1), shared
  lengths->remember_descriptor(made);
  CHECK(descriptor_of(*lengths).starts().data() == made.starts().data());
  // A uniform descriptor's lengths are made without reading its arrays.
  handle u(new value(segd::from_lengths(vseg::fill<std::int64_t>(3, 4))));
  CHECK(vseg::to_vector(lengths_of(*u)) == std::vector<std::int32_t>{4, 4, 4});
}
