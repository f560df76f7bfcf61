// Byte serialisation of generic items (std::string, std::vector<U>, nested
// combinations of them and of trivially copyable types), so that take and put
// can move them as variable-length byte items. A length is an int64 prefix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace vseg::dist {

template <class T>
struct is_serialisable : std::bool_constant<std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>> {};
template <class C, class Traits, class Alloc>
struct is_serialisable<std::basic_string<C, Traits, Alloc>> : std::is_trivially_copyable<C> {};
template <class U, class Alloc>
struct is_serialisable<std::vector<U, Alloc>> : is_serialisable<U> {};

// Items take and put move by serialisation rather than as MPI elements.
template <class T>
concept generic_item = is_serialisable<T>::value && !std::is_trivially_copyable_v<T>;

}  // namespace vseg::dist

namespace vseg::dist::detail {

// Appends the bytes of `value` to `out`; O(size of value).
template <class T>
void serialise(const T& value, std::vector<std::byte>& out) {
  auto append_raw = [&out](const void* p, std::size_t n) {
    std::size_t old = out.size();
    out.resize(old + n);
    if (n != 0) std::memcpy(out.data() + old, p, n);
  };
  if constexpr (std::is_trivially_copyable_v<T>) {
    append_raw(&value, sizeof(T));
  } else {
    using element = typename T::value_type;
    std::int64_t length = static_cast<std::int64_t>(value.size());
    append_raw(&length, sizeof length);
    if constexpr (std::is_trivially_copyable_v<element>) {
      append_raw(value.data(), value.size() * sizeof(element));
    } else {
      for (const auto& e : value) serialise(e, out);
    }
  }
}

// Reads one value from bytes[pos...] into `value`, advancing pos; throws
// std::runtime_error if the bytes end early. O(size of value).
template <class T>
void deserialise(const std::byte* bytes, std::size_t size, std::size_t& pos, T& value) {
  auto read_raw = [&](void* p, std::size_t n) {
    if (n > size - pos) throw std::runtime_error("vseg::dist::deserialise: truncated item");
    if (n != 0) std::memcpy(p, bytes + pos, n);
    pos += n;
  };
  if constexpr (std::is_trivially_copyable_v<T>) {
    read_raw(&value, sizeof(T));
  } else {
    using element = typename T::value_type;
    std::int64_t length = 0;
    read_raw(&length, sizeof length);
    if (length < 0) throw std::runtime_error("vseg::dist::deserialise: negative length");
    value.resize(static_cast<std::size_t>(length));
    if constexpr (std::is_trivially_copyable_v<element>) {
      read_raw(value.data(), value.size() * sizeof(element));
    } else {
      for (auto& e : value) deserialise(bytes, size, pos, e);
    }
  }
}

}  // namespace vseg::dist::detail
