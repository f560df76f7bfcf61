// A PMPI profiling layer for the tests: the MPI calls of a program linked
// with pmpi_count.cpp are counted (calls and bytes this rank sends to other
// ranks, per function) before they go on to the MPI library's PMPI_ entry
// points. Used to show that an operation sends nothing, or what a reshard
// or an SpMV sends.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace vseg::dist::testing {

struct mpi_traffic {
  std::int64_t calls = 0;
  std::int64_t bytes = 0;
  // Point-to-point messages to other ranks: one per MPI_Send/MPI_Isend, one
  // per peer with a non-empty block in an MPI_Alltoall(v).
  std::int64_t messages = 0;
  // Per MPI function name: calls and bytes.
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> by_function;
};

// The traffic counted since the last reset on this rank; O(functions).
mpi_traffic counted_traffic();
// Starts counting afresh; O(1).
void reset_traffic();

}  // namespace vseg::dist::testing
