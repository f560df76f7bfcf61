// The messages of a chain along a process row (fold_chain in
// detail/mesh_chain.hpp, scan_chain in detail/scan_chain.hpp): per chunk of
// rows, the values received from the previous process column and those
// sent to the next, tagged with the chunk's index.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "vseg/dist/datatype.hpp"
#include "vseg/dist/detail/exchange.hpp"

namespace vseg::dist::detail {

template <class T>
class chain_messages {
 public:
  // Posts every chunk's receive at once (in_count[k] values, none if 0): a
  // state arriving while this rank works on other rows is taken in without
  // waiting for it to enter MPI. Sizes the send buffers (out_count[k]).
  chain_messages(const std::vector<int>& in_count, const std::vector<int>& out_count, int col, MPI_Comm row_comm)
      : in_count_(in_count), out_count_(out_count), col_(col), row_comm_(row_comm),
        received_(in_count.size()), sent_(in_count.size()), arriving_(in_count.size(), MPI_REQUEST_NULL) {
    for (std::size_t k = 0; k < in_count.size(); ++k) {
      sent_[k].resize(static_cast<std::size_t>(out_count[k]));
      if (in_count[k] == 0) continue;
      received_[k].resize(static_cast<std::size_t>(in_count[k]));
      check_mpi(MPI_Irecv(received_[k].data(), in_count[k], datatype<T>(), col - 1, static_cast<int>(k), row_comm,
                          &arriving_[k]),
                "MPI_Irecv");
    }
  }
  chain_messages(const chain_messages&) = delete;
  chain_messages& operator=(const chain_messages&) = delete;

  // Chunk k's values: received (after wait(k)) and to send; O(1).
  const T* received(std::size_t k) const { return received_[k].data(); }
  T* sent(std::size_t k) { return sent_[k].data(); }

  // Waits for chunk k's values to arrive; none expected: returns at once.
  void wait(std::size_t k) {
    if (in_count_[k] > 0) check_mpi(MPI_Wait(&arriving_[k], MPI_STATUS_IGNORE), "MPI_Wait");
  }

  // Sends chunk k's values to the next process column (MPI_Isend), if any.
  void send(std::size_t k) {
    if (out_count_[k] == 0) return;
    requests_.emplace_back();
    check_mpi(MPI_Isend(sent_[k].data(), out_count_[k], datatype<T>(), col_ + 1, static_cast<int>(k), row_comm_,
                        &requests_.back()),
              "MPI_Isend");
  }

  // Waits for every send to complete; call once every chunk was sent.
  void finish() {
    check_mpi(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  }

 private:
  const std::vector<int>& in_count_;
  const std::vector<int>& out_count_;
  int col_;
  MPI_Comm row_comm_;
  std::vector<std::vector<T>> received_, sent_;
  std::vector<MPI_Request> arriving_, requests_;
};

}  // namespace vseg::dist::detail
