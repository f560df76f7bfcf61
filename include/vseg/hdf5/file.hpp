// vseg::hdf5: nested arrays stored in HDF5 files, the untyped layer.
//
// A stored nested array is one HDF5 group (the layout, documented for other
// tools in notes/hdf5.md):
//
//   attributes  vseg_layout = "vseg-nested", vseg_version = 1, depth = d,
//               fields = "values" (or a comma list, e.g. "columns,values")
//   offsets_0 .. offsets_{d-1}   int64; offsets_k has one entry per segment
//               of level k plus one, starts at 0, never decreases, and ends
//               at the number of segments of level k+1 (of elements for the
//               last level);
//   one dataset per field        the elements, in segment order; attribute
//               element_type ("float64", "int32", "opaque16", ...).
//
// Every dataset is 1-D, chunked, extendible and Fletcher-32 checksummed, so
// a flipped byte in the data is an error, not a wrong number. This header
// includes no HDF5 header: the typed layer (vseg/hdf5/nested.hpp) passes
// element types as values and data as bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace vseg::hdf5 {

// A failure to read or write a file: the message names the operation, the
// file and the dataset (a truncated, corrupt or foreign file, a type mismatch).
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What one element of a field is, as stored.
struct element_type {
  enum class kind : std::uint8_t { signed_integer, unsigned_integer, floating, boolean, opaque };
  kind k = kind::opaque;
  std::size_t size = 0;
  // The name stored in the element_type attribute ("float64", "opaque12"). O(1).
  std::string name() const;
  friend bool operator==(const element_type&, const element_type&) = default;
};

// The stored element type of a trivially copyable T: arithmetic types by
// kind and size (readable as numbers by any tool), everything else opaque. O(1).
template <class T>
  requires std::is_trivially_copyable_v<T>
constexpr element_type element_type_of() {
  using K = element_type::kind;
  if constexpr (std::is_same_v<T, bool>) return {K::boolean, sizeof(T)};
  else if constexpr (std::is_floating_point_v<T>) return {K::floating, sizeof(T)};
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return {K::signed_integer, sizeof(T)};
  else if constexpr (std::is_integral_v<T>) return {K::unsigned_integer, sizeof(T)};
  else return {K::opaque, sizeof(T)};
}

// One field of a stored array: its dataset name and element type.
struct field {
  std::string name;
  element_type type;
};

// The layout's identification, written to and checked in every group.
inline constexpr const char* layout_name = "vseg-nested";
inline constexpr std::int64_t layout_version = 1;

// Writes one stored nested array, safely: everything goes to a temporary
// file in the target's directory, which commit() flushes, fsyncs and renames
// over the target. Without commit() (an exception, a crash) the target is
// untouched and the temporary file is removed (or, after a crash, left under
// a name no reader opens).
class writer {
 public:
  // Starts writing `path` with `depth` levels of offsets and the given fields. O(1).
  writer(std::string path, std::int64_t depth, std::vector<field> fields);
  writer(const writer&) = delete;
  writer& operator=(const writer&) = delete;
  ~writer();

  // Appends entries to offsets_level (the first call per level starts with
  // the leading 0). O(entries).
  void append_offsets(std::int64_t level, std::span<const std::int64_t> entries);
  // Appends count elements of field (its index in the fields) from raw bytes. O(count).
  void append_values(std::size_t field_index, const void* data, std::int64_t count);
  // Checks the offsets against the sizes, writes the attributes, and
  // replaces the target file atomically. O(1) beyond the flush.
  void commit();

 private:
  struct state;
  std::unique_ptr<state> s_;
};

// Whole chunks of one field mapped read-only from the file
// (reader::map_chunks), each checked against its Fletcher-32 checksum when
// mapped: elements [begin(), end()) as pieces of contiguous elements (one
// per chunk; the chunks' checksums lie between them). A piece's bytes need
// not be aligned for the element type: read them with std::memcpy.
// Unmapped when destroyed; moved, not copied.
class mapped_chunks {
 public:
  // Elements [first, first + count), element `first` at bytes.
  struct piece {
    std::int64_t first = 0, count = 0;
    const unsigned char* bytes = nullptr;
  };
  // Nothing mapped. O(1).
  mapped_chunks() = default;
  // Takes other's mappings (other is left empty); the assignment unmaps
  // this one's first; the destructor unmaps. O(mappings).
  mapped_chunks(mapped_chunks&& other) noexcept;
  mapped_chunks& operator=(mapped_chunks&& other) noexcept;
  mapped_chunks(const mapped_chunks&) = delete;
  mapped_chunks& operator=(const mapped_chunks&) = delete;
  ~mapped_chunks();

  // The pieces, in element order, without gaps. O(1).
  const std::vector<piece>& pieces() const noexcept { return pieces_; }
  // Whether nothing is mapped. O(1).
  bool empty() const noexcept { return pieces_.empty(); }
  // The first element mapped and one past the last (0, 0 when empty). O(1).
  std::int64_t begin() const noexcept { return empty() ? 0 : pieces_.front().first; }
  std::int64_t end() const noexcept { return empty() ? 0 : pieces_.back().first + pieces_.back().count; }
  // Unmaps everything now. O(mappings).
  void reset() noexcept;

 private:
  friend class reader;
  std::vector<piece> pieces_;
  std::vector<std::pair<void*, std::size_t>> maps_;  // address, length
};

// Reads a stored nested array: the constructor checks the layout (name,
// version, depth, datasets, their types and sizes); reads check every chunk's
// checksum and every offsets range they return.
class reader {
 public:
  // Opens `path` and checks its layout. O(depth). Throws hdf5::error.
  explicit reader(std::string path);
  reader(const reader&) = delete;
  reader& operator=(const reader&) = delete;
  ~reader();

  // The file's path. O(1).
  const std::string& path() const noexcept;
  // Levels of offsets. O(1).
  std::int64_t depth() const noexcept;
  // Segments of level k (entries of offsets_k minus one). O(1).
  std::int64_t segments(std::int64_t level) const;
  // Elements of every field. O(1).
  std::int64_t elements() const noexcept;
  // The fields as stored. O(1).
  const std::vector<field>& fields() const noexcept;
  // The index of the field called name, checked against the expected type. O(fields).
  std::size_t field_index(const std::string& name, const element_type& expected) const;

  // offsets_level entries [begin, end) into out, checked to be within
  // [0, size of the next level] and non-decreasing. O(end - begin).
  void read_offsets(std::int64_t level, std::int64_t begin, std::int64_t end, std::int64_t* out) const;
  // Elements [begin, end) of a field into out as raw bytes. O(end - begin).
  void read_values(std::size_t field_index, std::int64_t begin, std::int64_t end, void* out) const;

  // Asks the kernel to start reading the chunks that hold offsets_level
  // [begin, end) or a field's elements [begin, end) (posix_fadvise
  // WILLNEED), so a later read finds them cached: how blocked reads keep the
  // disk busy while the previous block is decoded. Best effort: a chunk the
  // index cannot place is skipped. O(chunks in the range).
  void prefetch_offsets(std::int64_t level, std::int64_t begin, std::int64_t end) const;
  void prefetch_values(std::size_t field_index, std::int64_t begin, std::int64_t end) const;

  // The whole chunks of a field inside elements [begin, end) (the dataset's
  // last chunk counts as whole), mapped read-only from the file (populated:
  // a cold chunk is read here) and each checked against its checksum: a
  // blocked computation reads them in place, without read_values' copy out
  // of the page cache. Empty when nothing can be mapped: no whole chunk in
  // the range, a dataset or file the direct path cannot read, or any chunk
  // not as expected (a checksum mismatch included); read_values then reads,
  // and reports, the same elements. O(end - begin).
  mapped_chunks map_chunks(std::size_t field_index, std::int64_t begin, std::int64_t end) const;

 private:
  struct state;
  std::unique_ptr<state> s_;
};

}  // namespace vseg::hdf5
