// The MPI datatype that carries a C++ type: predefined types for arithmetic
// types, a committed derived type (sizeof(T) contiguous bytes) for every other
// trivially copyable type. Derived types are created on first use and freed
// when MPI_Finalize runs.
#pragma once

#include <mpi.h>

#include <complex>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace vseg::dist {

// Items that travel as raw MPI elements, with no serialisation.
template <class T>
concept mpi_item = std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>;

namespace detail {

// A committed MPI type of `bytes` contiguous bytes, shared by every type of
// that size; created once per size, freed at MPI_Finalize. O(1) after the first call.
MPI_Datatype committed_bytes_type(std::size_t bytes);

template <class T>
MPI_Datatype predefined_or_null() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::same_as<U, char>) return MPI_CHAR;
  else if constexpr (std::same_as<U, signed char>) return MPI_SIGNED_CHAR;
  else if constexpr (std::same_as<U, unsigned char>) return MPI_UNSIGNED_CHAR;
  else if constexpr (std::same_as<U, std::byte>) return MPI_BYTE;
  else if constexpr (std::same_as<U, wchar_t>) return MPI_WCHAR;
  else if constexpr (std::same_as<U, short>) return MPI_SHORT;
  else if constexpr (std::same_as<U, unsigned short>) return MPI_UNSIGNED_SHORT;
  else if constexpr (std::same_as<U, int>) return MPI_INT;
  else if constexpr (std::same_as<U, unsigned>) return MPI_UNSIGNED;
  else if constexpr (std::same_as<U, long>) return MPI_LONG;
  else if constexpr (std::same_as<U, unsigned long>) return MPI_UNSIGNED_LONG;
  else if constexpr (std::same_as<U, long long>) return MPI_LONG_LONG;
  else if constexpr (std::same_as<U, unsigned long long>) return MPI_UNSIGNED_LONG_LONG;
  else if constexpr (std::same_as<U, float>) return MPI_FLOAT;
  else if constexpr (std::same_as<U, double>) return MPI_DOUBLE;
  else if constexpr (std::same_as<U, long double>) return MPI_LONG_DOUBLE;
  else if constexpr (std::same_as<U, bool>) return MPI_CXX_BOOL;
  else if constexpr (std::same_as<U, std::complex<float>>) return MPI_CXX_FLOAT_COMPLEX;
  else if constexpr (std::same_as<U, std::complex<double>>) return MPI_CXX_DOUBLE_COMPLEX;
  else return MPI_DATATYPE_NULL;
}

}  // namespace detail

// The MPI datatype for T; O(1) (a map lookup the first time for derived types).
template <mpi_item T>
MPI_Datatype datatype() {
  MPI_Datatype predefined = detail::predefined_or_null<T>();
  if (predefined != MPI_DATATYPE_NULL) return predefined;
  static const MPI_Datatype derived = detail::committed_bytes_type(sizeof(T));
  return derived;
}

}  // namespace vseg::dist
