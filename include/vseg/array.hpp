// vseg::array<T>: a flat, immutable array that shares its buffer.
//
// An array is a slice (pointer + length) of a buffer held by a shared owner.
// Copying an array or slicing it is O(1) and copies no element; the elements
// never change once the array is built. Arrays are built either from existing
// data (initializer list, std::vector, any sized range) or by filling a
// vseg::buffer<T> — storage allocated *without* value-initialisation, for
// callers that are about to overwrite every element — and freezing it.
//
// Sizes and indices are std::int64_t throughout. array<bool> is an ordinary
// array of one-byte bools (never std::vector<bool>'s bit packing), so it has
// data() and spans like every other element type.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "vseg/detail/allocator.hpp"
#include "vseg/detail/error.hpp"

namespace vseg {

template <class T>
class array;

// A mutable, uniquely owned buffer of n elements, filled by its creator and
// then frozen into an array<T> in O(1).
template <class T>
class buffer {
 public:
  using value_type = T;

  buffer() = default;
  // Move-only: the buffer is its elements' only owner until freeze().
  buffer(buffer&& other) noexcept : storage_(std::move(other.storage_)), size_(std::exchange(other.size_, 0)) {}
  buffer& operator=(buffer&& other) noexcept {
    storage_ = std::move(other.storage_);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;

  // n elements left default-initialised: for trivial T their values are
  // indeterminate, so every element must be written before it is read.
  static buffer for_overwrite(std::int64_t n) {
    check_size(n);
    buffer b;
    b.storage_ = std::allocate_shared_for_overwrite<T[]>(detail::buffer_allocator<T>{}, static_cast<std::size_t>(n));
    b.size_ = n;
    return b;
  }

  // n copies of value.
  static buffer filled(std::int64_t n, const T& value) {
    check_size(n);
    buffer b;
    b.storage_ = std::allocate_shared<T[]>(detail::buffer_allocator<T>{}, static_cast<std::size_t>(n), value);
    b.size_ = n;
    return b;
  }

  std::int64_t size() const noexcept { return size_; }
  T* data() noexcept { return storage_.get(); }
  const T* data() const noexcept { return storage_.get(); }
  T& operator[](std::int64_t i) noexcept { return data()[i]; }
  const T& operator[](std::int64_t i) const noexcept { return data()[i]; }
  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + size(); }
  std::span<T> span() noexcept { return {data(), static_cast<std::size_t>(size())}; }

  // Gives the elements to an immutable array; the buffer is left empty.
  array<T> freeze() &&;

 private:
  friend class array<T>;
  // Sizes whose bytes (with the control block) fit comfortably in a size_t.
  static constexpr std::int64_t max_elements = (std::int64_t{1} << 56) / static_cast<std::int64_t>(sizeof(T));
  static void check_size(std::int64_t n) {
    if (n < 0) detail::throw_invalid("buffer", "negative size ", n);
    if (n > max_elements)
      throw std::length_error(detail::message("buffer", "size ", n, " elements of ", sizeof(T),
                                              " bytes is more than the largest buffer (", max_elements, " elements)"));
  }

  // One allocation holds the reference count and the elements, so freezing
  // allocates nothing (a vector plus a shared owner took three allocations;
  // the VCODE interpreter makes ~90,000 small arrays in radix.1000000). The
  // buffer is the only owner until freeze(). The memory comes from vseg's
  // buffer allocator (detail/allocator.hpp), which reuses freed blocks.
  std::shared_ptr<T[]> storage_;
  std::int64_t size_ = 0;
};

// An immutable slice of a shared buffer. O(1) to copy and to slice.
template <class T>
class array {
 public:
  using value_type = T;
  using size_type = std::int64_t;
  using const_iterator = const T*;
  using iterator = const T*;

  // The empty array.
  array() noexcept = default;

  // The given elements, in order.
  array(std::initializer_list<T> values) : array(from_sized(values)) {}

  // Takes the vector's elements over without copying them (for bool, which
  // std::vector packs into bits, they are copied into one byte each).
  explicit array(std::vector<T> values) {
    if constexpr (std::is_same_v<T, bool>) {
      *this = from_sized(values);
    } else {
      auto owner = std::make_shared<std::vector<T>>(std::move(values));
      data_ = owner->data();
      size_ = static_cast<std::int64_t>(owner->size());
      owner_ = foreign(std::move(owner));
    }
  }

  // The elements of any sized input range, in order.
  template <std::ranges::sized_range Range>
    requires(!std::same_as<std::remove_cvref_t<Range>, array> &&
             !std::same_as<std::remove_cvref_t<Range>, std::vector<T>> &&
             std::convertible_to<std::ranges::range_reference_t<Range>, T>)
  explicit array(Range&& values) : array(from_sized(values)) {}

  std::int64_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const T* data() const noexcept { return data_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }

  // Unchecked element access.
  const T& operator[](std::int64_t i) const noexcept { return data_[i]; }

  // Checked element access: throws std::out_of_range naming the index.
  const T& at(std::int64_t i) const {
    if (i < 0 || i >= size_)
      detail::throw_out_of_range("array::at", "index ", i, " outside [0, ", size_, ")");
    return data_[i];
  }

  std::span<const T> span() const noexcept {
    return {data_, static_cast<std::size_t>(size_)};
  }
  operator std::span<const T>() const noexcept { return span(); }

  // The elements [start, start + length), sharing this array's buffer. O(1).
  array slice(std::int64_t start, std::int64_t length) const {
    if (start < 0 || length < 0 || start > size_ || length > size_ - start)
      detail::throw_out_of_range("array::slice", "slice [", start, ", ", start, " + ",
                                 length, ") outside an array of size ", size_);
    array result = *this;
    result.data_ = data_ + start;
    result.size_ = length;
    return result;
  }

  // True when both arrays are slices of one buffer (nothing was copied
  // between them). Used by the tests that check work contracts.
  bool shares_buffer_with(const array& other) const noexcept {
    // One owner: neither orders before the other.
    return owner_.use_count() != 0 && !owner_.owner_before(other.owner_) && !other.owner_.owner_before(owner_);
  }

  // The elements as writable memory when nothing else can see them: this
  // array came from a buffer (freeze) and is the buffer's only owner;
  // otherwise an empty span. O(1). Uniqueness is the one condition under
  // which an immutable value may be updated in place without anyone
  // observing it (as Rust's Arc::get_mut or Swift's
  // isKnownUniquelyReferenced): a caller that drops an array right after
  // computing its successor can write the successor over it (map_into,
  // zip_with_into, replace_s_into take the span). Foreign memory (adopt, a
  // std::vector) is never writable. The answer is exact only while no other
  // thread copies or drops this array, hence not const. Tested in
  // tests/test_array.cpp; used by the VCODE interpreter's value model.
  std::span<T> writable_if_unique() noexcept {
    if (owner_.get() == nullptr || owner_.use_count() != 1) return {};
    // Not a cast away of real constness: buffer allocated the elements as
    // non-const T; only the array's interface is read-only.
    return {const_cast<T*>(data_), static_cast<std::size_t>(size_)};
  }

  // An array over storage owned by `owner`; for adapters that hand vseg
  // memory they already hold (the owner keeps it alive).
  static array adopt(std::shared_ptr<const void> owner, const T* data, std::int64_t size) {
    array result;
    result.owner_ = foreign(std::move(owner));
    result.data_ = data;
    result.size_ = size;
    return result;
  }

 private:
  friend class buffer<T>;

  template <class Range>
  static array from_sized(Range&& values) {
    auto n = static_cast<std::int64_t>(std::ranges::size(values));
    auto b = buffer<T>::for_overwrite(n);
    std::ranges::copy(values, b.data());
    return std::move(b).freeze();
  }

  // An owner of memory from elsewhere (adopt, a vector), which may be
  // read-only: held with a null pointer (shared_ptr's aliasing constructor),
  // so writable_if_unique refuses it.
  static std::shared_ptr<const void> foreign(std::shared_ptr<const void> owner) noexcept {
    return {std::move(owner), nullptr};
  }

  // Keeps the elements alive. For an array from a buffer (freeze) it points
  // at the buffer's storage, mutable T's; for foreign memory it is null.
  std::shared_ptr<const void> owner_;
  const T* data_ = nullptr;
  std::int64_t size_ = 0;
};

template <class T>
array<T> buffer<T>::freeze() && {
  array<T> result;
  if (!storage_) return result;
  result.data_ = storage_.get();
  result.size_ = size_;
  result.owner_ = std::move(storage_);
  size_ = 0;
  return result;
}

template <class Range>
array(Range&&) -> array<std::ranges::range_value_t<Range>>;

// A std::vector holding the array's elements.
template <class T>
std::vector<T> to_vector(const array<T>& xs) {
  return std::vector<T>(xs.begin(), xs.end());
}

// Element-wise equality of two arrays.
template <class T>
bool operator==(const array<T>& a, const array<T>& b) {
  return std::ranges::equal(a, b);
}

}  // namespace vseg
