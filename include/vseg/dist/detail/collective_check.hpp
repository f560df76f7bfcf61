// Collective error agreement: every rank validates its own input, then one
// MPI_Allreduce tells all ranks whether any rank failed and whether the values
// every rank must pass identically (count, put_mode, a distribution's offsets)
// agree. On failure the lowest failing rank broadcasts its message, or every
// rank works out the same message naming a rank whose value is in the
// minority. Every rank then throws the same exception, so no rank is left
// waiting in an exchange the others never enter.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "vseg/detail/error.hpp"

namespace vseg::dist::detail {

// The exception class a failed check turns into on every rank.
enum class error_kind : int { invalid_argument = 0, out_of_range = 1, overflow = 2 };

// One rank's finding: what kind of error and the full message.
struct local_error {
  error_kind kind;
  std::string message;
};

// Records the first error found on this rank; later ones are ignored so that
// the message names the first offending value.
class error_collector {
 public:
  error_collector(std::string_view operation, int rank) : operation_(operation), rank_(rank) {}

  // Records an invalid-argument error (sizes, counts, distributions); O(message).
  template <class... Parts>
  void invalid(const Parts&... parts) {
    if (!error_) error_ = local_error{error_kind::invalid_argument, format(parts...)};
  }

  // Records an out-of-range error (indices); O(message).
  template <class... Parts>
  void out_of_range(const Parts&... parts) {
    if (!error_) error_ = local_error{error_kind::out_of_range, format(parts...)};
  }

  // Records an overflow error (a sum or product past int64); O(message).
  template <class... Parts>
  void overflow(const Parts&... parts) {
    if (!error_) error_ = local_error{error_kind::overflow, format(parts...)};
  }

  bool failed() const { return error_.has_value(); }
  const std::string& operation() const { return operation_; }
  const std::optional<local_error>& error() const { return error_; }

 private:
  template <class... Parts>
  std::string format(const Parts&... parts) const {
    return vseg::detail::message(operation_, "rank ", rank_, ": ", parts...);
  }

  std::string operation_;
  int rank_;
  std::optional<local_error> error_;
};

// a + b into `sum`, or false (sum unspecified) if it overflows int64; O(1).
inline bool add_checked(std::int64_t a, std::int64_t b, std::int64_t& sum) {
  return !__builtin_add_overflow(a, b, &sum);
}

// a * b into `product`, or false (product unspecified) if it overflows int64; O(1).
inline bool multiply_checked(std::int64_t a, std::int64_t b, std::int64_t& product) {
  return !__builtin_mul_overflow(a, b, &product);
}

// Records an error unless two sizes agree; O(1).
inline void check_same_size_into(error_collector& errors, std::string_view what_a, std::int64_t a,
                                 std::string_view what_b, std::int64_t b) {
  if (a != b) errors.invalid(what_a, " has size ", a, " but ", what_b, " is ", b);
}

// Records an error unless `what` has items * count elements, where the
// product is checked for overflow first; O(1).
inline void check_group_size_into(error_collector& errors, std::string_view what, std::int64_t size,
                                  std::string_view items_name, std::int64_t items, std::int64_t count) {
  std::int64_t expected = 0;
  if (!multiply_checked(items, count, expected))
    errors.overflow(items_name, "*count overflows int64: ", items, " * ", count, " (", what, " has size ", size, ")");
  else if (size != expected)
    errors.invalid(what, " has size ", size, " but ", items_name, "*count is ", expected);
}

// A value every rank must pass identically (such as `count`), its name, and
// optionally how to print it (an enumerator's name).
struct must_match {
  std::string_view what;
  std::int64_t value;
  std::string (*show)(std::int64_t) = nullptr;
};

// Values every rank must pass identically element by element (such as a
// distribution's offsets), named what[i]. `values` must have the same length
// on every rank: callers size it from the communicator.
struct must_match_each {
  std::string_view what;
  std::span<const std::int64_t> values;
};

// Collective: throws the lowest failing rank's error on every rank if any rank
// failed; otherwise std::invalid_argument on every rank if a value of `same`
// or `same_each` differs between ranks (the message names the lowest rank
// holding a minority value and a rank holding the most common one); otherwise
// returns the maximum of `local_extent` over all ranks (the callers use it to
// choose between int-count and large-count exchanges).
// Cost: one MPI_Allreduce of 2 + 2*(values) integers; on failure two
// broadcasts, or one MPI_Allgather of one integer.
std::int64_t agree(MPI_Comm comm, const error_collector& errors, std::int64_t local_extent = 0,
                   std::initializer_list<must_match> same = {}, must_match_each same_each = {});

}  // namespace vseg::dist::detail
