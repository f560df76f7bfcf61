// All-to-all exchanges with 64-bit counts (see vseg/dist/detail/exchange.hpp).
#include "vseg/dist/detail/exchange.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <stdexcept>
#include <string>
#include <vector>

namespace vseg::dist::detail {

namespace {

// Runs `work` while `requests` are in flight, then waits for them all; if
// the work throws, the requests are still completed before it propagates
// (their buffers may go away with the exception).
void work_then_wait(const meanwhile& work, std::vector<MPI_Request>& requests) {
  try {
    work();
  } catch (...) {
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    throw;
  }
  check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

std::atomic<std::int64_t> testing_limit{0};

// Point-to-point exchange in messages of at most `limit` elements, each sent
// from (received into) its place in the buffer: no count or displacement is
// ever narrowed to int. Message i of a block carries the same elements on
// both sides, so the matching order of MPI (same source, same tag) suffices.
void alltoallv_chunked(const char* send, const layout& send_layout, char* recv, const layout& recv_layout,
                       MPI_Datatype type, std::int64_t limit, MPI_Comm comm, const meanwhile& work) {
  MPI_Aint lower = 0, extent = 0;
  check_mpi(MPI_Type_get_extent(type, &lower, &extent), "MPI_Type_get_extent");
  const int nranks = static_cast<int>(send_layout.counts.size());
  std::vector<MPI_Request> requests;
  auto post = [&](bool sending, int peer, std::int64_t count, std::int64_t displ) {
    for (std::int64_t done = 0; done < count; done += limit) {
      const int n = static_cast<int>(std::min(limit, count - done));
      const std::int64_t byte_offset = (displ + done) * static_cast<std::int64_t>(extent);
      MPI_Request request;
      if (sending)
        check_mpi(MPI_Isend(send + byte_offset, n, type, peer, exchange_tag, comm, &request), "MPI_Isend");
      else
        check_mpi(MPI_Irecv(recv + byte_offset, n, type, peer, exchange_tag, comm, &request), "MPI_Irecv");
      requests.push_back(request);
    }
  };
  for (int r = 0; r < nranks; ++r) post(false, r, recv_layout.counts[r], recv_layout.displs[r]);
  for (int r = 0; r < nranks; ++r) post(true, r, send_layout.counts[r], send_layout.displs[r]);
  work_then_wait(work, requests);
}

}  // namespace

void check_mpi(int code, const char* operation) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string("vseg::dist: ") + operation + " failed: " + std::string(text, length));
}

std::int64_t message_limit() {
  std::int64_t limit = testing_limit.load(std::memory_order_relaxed);
  return limit > 0 ? limit : INT_MAX;
}

void set_message_limit_for_testing(std::int64_t limit) { testing_limit.store(limit, std::memory_order_relaxed); }

std::int64_t max_over_ranks(std::int64_t local, MPI_Comm comm) {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
  return local;
}

std::int64_t agree_extent(std::int64_t local, MPI_Comm comm) {
  if (has_large_count_collectives && testing_limit.load(std::memory_order_relaxed) == 0) return local;
  return max_over_ranks(local, comm);
}

void alltoallv(const void* send, const layout& send_layout, void* recv, const layout& recv_layout,
               MPI_Datatype type, std::int64_t global_extent, MPI_Comm comm, meanwhile work) {
  const std::size_t nranks = send_layout.counts.size();
  const std::int64_t limit = message_limit();
  // Some MPI libraries reject null buffers even for empty messages.
  static char dummy = 0;
  const void* send_buffer = send ? send : &dummy;
  void* recv_buffer = recv ? recv : &dummy;

#if MPI_VERSION >= 4
  if (testing_limit.load(std::memory_order_relaxed) == 0) {
    // Per thread for a blocking exchange; a posted one owns its arrays
    // until it completes.
    thread_local std::vector<MPI_Count> kept_counts;
    thread_local std::vector<MPI_Aint> kept_displs;
    std::vector<MPI_Count> own_counts;
    std::vector<MPI_Aint> own_displs;
    std::vector<MPI_Count>& counts = work ? own_counts : kept_counts;
    std::vector<MPI_Aint>& displs = work ? own_displs : kept_displs;
    counts.resize(2 * nranks);
    displs.resize(2 * nranks);
    MPI_Count* sc = counts.data();
    MPI_Count* rc = sc + nranks;
    MPI_Aint* sd = displs.data();
    MPI_Aint* rd = sd + nranks;
    for (std::size_t r = 0; r < nranks; ++r) {
      sc[r] = static_cast<MPI_Count>(send_layout.counts[r]);
      sd[r] = static_cast<MPI_Aint>(send_layout.displs[r]);
      rc[r] = static_cast<MPI_Count>(recv_layout.counts[r]);
      rd[r] = static_cast<MPI_Aint>(recv_layout.displs[r]);
    }
    if (!work) {
      check_mpi(MPI_Alltoallv_c(send_buffer, sc, sd, type, recv_buffer, rc, rd, type, comm), "MPI_Alltoallv_c");
      return;
    }
    std::vector<MPI_Request> request(1);
    check_mpi(MPI_Ialltoallv_c(send_buffer, sc, sd, type, recv_buffer, rc, rd, type, comm, request.data()),
              "MPI_Ialltoallv_c");
    work_then_wait(work, request);
    return;
  }
#endif
  if (global_extent > limit) {
    alltoallv_chunked(static_cast<const char*>(send_buffer), send_layout, static_cast<char*>(recv_buffer),
                      recv_layout, type, limit, comm, work);
    return;
  }
  // Every count and displacement on every rank fits in an int here. The int
  // arrays are kept per thread: a blocking exchange allocates nothing of its
  // own; a posted one owns its arrays until it completes.
  thread_local std::vector<int> kept;
  std::vector<int> own;
  std::vector<int>& narrowed = work ? own : kept;
  narrowed.resize(4 * nranks);
  int* sc = narrowed.data();
  int* sd = sc + nranks;
  int* rc = sd + nranks;
  int* rd = rc + nranks;
  for (std::size_t r = 0; r < nranks; ++r) {
    sc[r] = static_cast<int>(send_layout.counts[r]);
    sd[r] = static_cast<int>(send_layout.displs[r]);
    rc[r] = static_cast<int>(recv_layout.counts[r]);
    rd[r] = static_cast<int>(recv_layout.displs[r]);
  }
  if (!work) {
    check_mpi(MPI_Alltoallv(send_buffer, sc, sd, type, recv_buffer, rc, rd, type, comm), "MPI_Alltoallv");
    return;
  }
  std::vector<MPI_Request> request(1);
  check_mpi(MPI_Ialltoallv(send_buffer, sc, sd, type, recv_buffer, rc, rd, type, comm, request.data()),
            "MPI_Ialltoallv");
  work_then_wait(work, request);
}

}  // namespace vseg::dist::detail
