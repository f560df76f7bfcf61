// Collective error agreement: every rank validates its own input, then one
// MPI_Allreduce tells all ranks whether any rank failed, and the lowest failing
// rank broadcasts its message. Every rank then throws the same exception, so no
// rank is left waiting in an exchange the others never enter.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "vseg/detail/error.hpp"

namespace vseg::dist::detail {

// The exception class a failed check turns into on every rank.
enum class error_kind : int { invalid_argument = 0, out_of_range = 1 };

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

// Records an error unless two sizes agree; O(1).
inline void check_same_size_into(error_collector& errors, std::string_view what_a, std::int64_t a,
                                 std::string_view what_b, std::int64_t b) {
  if (a != b) errors.invalid(what_a, " has size ", a, " but ", what_b, " is ", b);
}

// A value every rank must pass identically (such as `count`), and its name.
struct must_match {
  std::string_view what;
  std::int64_t value;
};

// Collective: throws the lowest failing rank's error on every rank if any rank
// failed, or std::invalid_argument on every rank if `same` differs between
// ranks; otherwise returns the maximum of `local_extent` over all ranks (the
// callers use it to choose between int-count and large-count exchanges).
// Cost: one MPI_Allreduce of four integers, plus two broadcasts on failure.
std::int64_t agree(MPI_Comm comm, const error_collector& errors, std::int64_t local_extent = 0,
                   must_match same = {"", 0});

}  // namespace vseg::dist::detail
