// All-to-all exchanges with 64-bit counts and displacements.
//
// MPI-4 libraries (MPICH 4) get MPI_Alltoallv_c directly. MPI-3.1 libraries
// (Open MPI 4.1) have int counts and int displacements only: while every
// count and displacement on every rank fits in an int, MPI_Alltoallv is used;
// otherwise (the ranks agree on it collectively) the exchange is made of
// point-to-point messages of at most `message_limit()` elements each, sent
// straight from where the data lie, so neither counts nor displacements are
// ever truncated.
#pragma once

#include <mpi.h>

#include <concepts>
#include <cstdint>
#include <span>
#include <type_traits>

namespace vseg::dist::detail {

// Per-rank counts and displacements of one side of an exchange, in elements.
struct layout {
  std::span<const std::int64_t> counts;
  std::span<const std::int64_t> displs;
};

// Local work an exchange runs once while its messages are in flight (after
// posting them, before waiting): it must touch neither buffer of the
// exchange nor start another one. A callable held by reference, valid for
// the call it is passed to; empty: the exchange just blocks.
class meanwhile {
 public:
  meanwhile() = default;
  template <class F>
    requires(!std::same_as<std::remove_cvref_t<F>, meanwhile>)
  meanwhile(const F& f) : call_([](const void* c) { (*static_cast<const F*>(c))(); }), context_(&f) {}
  // Whether there is work to run. O(1).
  explicit operator bool() const noexcept { return call_ != nullptr; }
  // Runs the work (nothing if empty). O(the work).
  void operator()() const {
    if (call_) call_(context_);
  }

 private:
  void (*call_)(const void*) = nullptr;
  const void* context_ = nullptr;
};

// True when this MPI library has the MPI-4 large-count collectives.
inline constexpr bool has_large_count_collectives = MPI_VERSION >= 4;

// Tag used by the point-to-point fallback; collectives never match it.
inline constexpr int exchange_tag = 0x7653;  // "vS"

// The largest count or displacement an int-count call is used for; above it
// the large-count path runs. Defaults to INT_MAX.
std::int64_t message_limit();

// Lowers the limit so tests exercise the large-count path on small data.
// Must be set to the same value on every rank; 0 restores the default.
void set_message_limit_for_testing(std::int64_t limit);

// Collective: element i of `send` block r goes to rank r, arriving in block
// `rank` of `recv`. `global_extent` is the largest total count on either side over all ranks
// (agreed beforehand, e.g. by agree_extent). With `work`, the exchange is
// posted nonblocking (MPI_Ialltoallv, or the point-to-point messages), work
// runs, then it waits: local work hides the wait for a late peer. Cost: the
// MPI exchange itself.
void alltoallv(const void* send, const layout& send_layout, void* recv, const layout& recv_layout,
               MPI_Datatype type, std::int64_t global_extent, MPI_Comm comm, meanwhile work = {});

// Collective: the maximum of `local` over all ranks; one MPI_Allreduce.
std::int64_t max_over_ranks(std::int64_t local, MPI_Comm comm);

// Collective: the global extent alltoallv needs to choose its path. With
// MPI-4 large-count calls (and the default limit) no agreement is needed and
// `local` is returned without communication; otherwise max_over_ranks(local).
std::int64_t agree_extent(std::int64_t local, MPI_Comm comm);

// Throws std::runtime_error naming `operation` if an MPI call failed.
void check_mpi(int code, const char* operation);

}  // namespace vseg::dist::detail
