// Committed derived datatypes for trivially copyable types without a
// predefined MPI type (see vseg/dist/datatype.hpp).
#include "vseg/dist/datatype.hpp"

#include <map>
#include <mutex>

#include "vseg/dist/detail/exchange.hpp"

namespace vseg::dist::detail {

namespace {

std::mutex registry_mutex;
std::map<std::size_t, MPI_Datatype> registry;

// Runs inside MPI_Finalize (attributes of MPI_COMM_SELF are deleted first),
// while freeing types is still allowed.
int free_registered_types(MPI_Comm, int, void*, void*) {
  std::lock_guard lock(registry_mutex);
  for (auto& [bytes, type] : registry) MPI_Type_free(&type);
  registry.clear();
  return MPI_SUCCESS;
}

}  // namespace

MPI_Datatype committed_bytes_type(std::size_t bytes) {
  std::lock_guard lock(registry_mutex);
  if (auto found = registry.find(bytes); found != registry.end()) return found->second;
  if (registry.empty()) {
    int keyval = MPI_KEYVAL_INVALID;
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_registered_types, &keyval, nullptr),
              "MPI_Comm_create_keyval");
    check_mpi(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr), "MPI_Comm_set_attr");
    // The key is needed no more: freeing it now is allowed while the attribute
    // is in use (the callback still runs), and releases the key's storage
    // with the attribute (AddressSanitizer reported it as leaked otherwise).
    check_mpi(MPI_Comm_free_keyval(&keyval), "MPI_Comm_free_keyval");
  }
  MPI_Datatype type = MPI_DATATYPE_NULL;
  check_mpi(MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type), "MPI_Type_contiguous");
  check_mpi(MPI_Type_commit(&type), "MPI_Type_commit");
  registry.emplace(bytes, type);
  return type;
}

}  // namespace vseg::dist::detail
