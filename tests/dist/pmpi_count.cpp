// The PMPI profiling layer of the tests (see pmpi_count.hpp). Bytes are what
// this rank sends to *other* ranks: a point-to-point payload, the blocks of
// an alltoall(v) addressed to other ranks, an allgather's block times
// (p - 1), a broadcast root's buffer times (p - 1), and the buffer of a
// reduction or scan (its contribution, whatever the algorithm).
#include "pmpi_count.hpp"

#include <mpi.h>

namespace vseg::dist::testing {

namespace {

mpi_traffic& traffic() {
  static mpi_traffic t;
  return t;
}

std::int64_t size_of(MPI_Datatype type) {
  int bytes = 0;
  PMPI_Type_size(type, &bytes);
  return bytes;
}

struct place {
  int rank = 0;
  int size = 1;
};

place where(MPI_Comm comm) {
  place p;
  PMPI_Comm_rank(comm, &p.rank);
  PMPI_Comm_size(comm, &p.size);
  return p;
}

void note(const char* function, std::int64_t bytes, std::int64_t messages = 0) {
  auto& t = traffic();
  ++t.calls;
  t.messages += messages;
  t.bytes += bytes;
  auto& entry = t.by_function[function];
  ++entry.first;
  entry.second += bytes;
}

}  // namespace

mpi_traffic counted_traffic() { return traffic(); }
void reset_traffic() { traffic() = mpi_traffic{}; }

}  // namespace vseg::dist::testing

using vseg::dist::testing::note;

namespace {
// Notes an all-to-all of sendcounts[r] items to each rank r: the bytes and
// the peers sent to, this rank's own block left out.
void note_alltoallv(const char* call, const int sendcounts[], MPI_Datatype sendtype, MPI_Comm comm) {
  const auto p = vseg::dist::testing::where(comm);
  std::int64_t items = 0, peers = 0;
  for (int r = 0; r < p.size; ++r)
    if (r != p.rank) {
      items += sendcounts[r];
      peers += sendcounts[r] > 0 ? 1 : 0;
    }
  note(call, items * vseg::dist::testing::size_of(sendtype), peers);
}
}  // namespace

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  note("MPI_Send", count * vseg::dist::testing::size_of(type), 1);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  note("MPI_Isend", count * vseg::dist::testing::size_of(type), 1);
  return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  const auto p = vseg::dist::testing::where(comm);
  note("MPI_Alltoall", std::int64_t{sendcount} * vseg::dist::testing::size_of(sendtype) * (p.size - 1),
       sendcount > 0 ? p.size - 1 : 0);
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  note_alltoallv("MPI_Alltoallv", sendcounts, sendtype, comm);
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

// The nonblocking form (dist::index_l's take, overlapped with the own x
// copy): counted the same way, under its own name, when posted.
int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request) {
  note_alltoallv("MPI_Ialltoallv", sendcounts, sendtype, comm);
  return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                         request);
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  note("MPI_Allreduce", count * vseg::dist::testing::size_of(type));
  return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  note("MPI_Exscan", count * vseg::dist::testing::size_of(type));
  return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  const auto p = vseg::dist::testing::where(comm);
  note("MPI_Allgather", std::int64_t{sendcount} * vseg::dist::testing::size_of(sendtype) * (p.size - 1));
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const auto p = vseg::dist::testing::where(comm);
  note("MPI_Allgatherv", std::int64_t{sendcount} * vseg::dist::testing::size_of(sendtype) * (p.size - 1));
  return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const auto p = vseg::dist::testing::where(comm);
  note("MPI_Bcast", p.rank == root ? count * vseg::dist::testing::size_of(type) * (p.size - 1) : 0);
  return PMPI_Bcast(buffer, count, type, root, comm);
}

int MPI_Barrier(MPI_Comm comm) {
  note("MPI_Barrier", 0);
  return PMPI_Barrier(comm);
}

}  // extern "C"
