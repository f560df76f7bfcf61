// Internal to vseg-hdf5: the helpers the serial writer and reader
// (file.cpp) and the parallel writer (dist_file.cpp) share, so that both
// write the one layout of notes/hdf5.md with the same chunks, filters,
// attributes and error messages.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vseg/hdf5/file.hpp"

namespace vseg::hdf5::detail {

// Elements per chunk of every dataset: 1 MiB of doubles, large enough that
// a blocked read is a few big reads, small enough to keep a chunk cache small.
constexpr hsize_t chunk_elements = hsize_t{1} << 17;
// The chunk cache of each open dataset (bytes): two chunks of 8-byte elements.
constexpr std::size_t chunk_cache_bytes = std::size_t{2} << 20;

// HDF5 prints its error stack on every failure unless told not to; we report
// errors ourselves. Called before each group of calls (the setting is per thread
// in thread-safe builds).
inline void silence() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

// HDF5's innermost error message, then the stack cleared.
inline std::string hdf5_detail() {
  std::string out;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* data) -> herr_t {
        if (n == 0 && e->desc != nullptr) *static_cast<std::string*>(data) = e->desc;
        return 0;
      },
      &out);
  H5Eclear2(H5E_DEFAULT);
  return out.empty() ? std::string("no detail from HDF5") : out;
}

template <class... Parts>
[[noreturn]] void fail(std::string_view operation, const std::string& path, std::string_view dataset,
                       const Parts&... parts) {
  std::ostringstream out;
  out << "vseg::hdf5::" << operation << ": file '" << path << "'";
  if (!dataset.empty()) out << ", dataset '" << dataset << "'";
  out << ": ";
  (out << ... << parts);
  throw error(out.str());
}

// An HDF5 identifier closed on scope exit.
class handle {
 public:
  handle() = default;
  handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  handle(handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
  handle& operator=(handle&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
    return *this;
  }
  ~handle() {
    if (id_ >= 0 && close_ != nullptr) close_(id_);
  }
  hid_t get() const noexcept { return id_; }
  bool valid() const noexcept { return id_ >= 0; }
  // Closes now, reporting whether HDF5 succeeded (closing a file flushes it).
  bool close() {
    const herr_t r = id_ >= 0 && close_ != nullptr ? close_(id_) : 0;
    id_ = H5I_INVALID_HID;
    return r >= 0;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

// The HDF5 type of an element type: in memory (native) or in the file
// (little-endian standard types); opaque types are created and owned.
inline handle type_of(const element_type& t, bool in_file) {
  using K = element_type::kind;
  auto copy = [](hid_t id) { return handle(H5Tcopy(id), H5Tclose); };
  const std::size_t n = t.size;
  switch (t.k) {
    case K::boolean:
      if (n == 1) return copy(in_file ? H5T_STD_U8LE : H5T_NATIVE_UINT8);
      break;
    case K::signed_integer:
      if (n == 1) return copy(in_file ? H5T_STD_I8LE : H5T_NATIVE_INT8);
      if (n == 2) return copy(in_file ? H5T_STD_I16LE : H5T_NATIVE_INT16);
      if (n == 4) return copy(in_file ? H5T_STD_I32LE : H5T_NATIVE_INT32);
      if (n == 8) return copy(in_file ? H5T_STD_I64LE : H5T_NATIVE_INT64);
      break;
    case K::unsigned_integer:
      if (n == 1) return copy(in_file ? H5T_STD_U8LE : H5T_NATIVE_UINT8);
      if (n == 2) return copy(in_file ? H5T_STD_U16LE : H5T_NATIVE_UINT16);
      if (n == 4) return copy(in_file ? H5T_STD_U32LE : H5T_NATIVE_UINT32);
      if (n == 8) return copy(in_file ? H5T_STD_U64LE : H5T_NATIVE_UINT64);
      break;
    case K::floating:
      if (n == 4) return copy(in_file ? H5T_IEEE_F32LE : H5T_NATIVE_FLOAT);
      if (n == 8) return copy(in_file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE);
      break;
    case K::opaque:
      break;
  }
  handle h(H5Tcreate(H5T_OPAQUE, n), H5Tclose);
  H5Tset_tag(h.get(), "vseg opaque element");
  return h;
}

inline void write_string_attribute(hid_t object, const char* name, const std::string& value) {
  handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), value.empty() ? 1 : value.size());
  handle space(H5Screate(H5S_SCALAR), H5Sclose);
  handle attr(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.valid() || H5Awrite(attr.get(), type.get(), value.c_str()) < 0)
    throw error(std::string("attribute ") + name + ": " + hdf5_detail());
}

inline void write_int_attribute(hid_t object, const char* name, std::int64_t value) {
  handle space(H5Screate(H5S_SCALAR), H5Sclose);
  handle attr(H5Acreate2(object, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.valid() || H5Awrite(attr.get(), H5T_NATIVE_INT64, &value) < 0)
    throw error(std::string("attribute ") + name + ": " + hdf5_detail());
}

inline std::string offsets_name(std::int64_t level) { return "offsets_" + std::to_string(level); }

inline std::string join(const std::vector<field>& fields) {
  std::string s;
  for (const auto& f : fields) s += (s.empty() ? "" : ",") + f.name;
  return s;
}

// The root attributes of the layout and each field's element_type, written
// into an open file whose datasets exist. Throws hdf5::error (an attribute
// naming itself). O(fields).
inline void write_layout_attributes(hid_t file, std::int64_t depth, const std::vector<field>& fields,
                                    const std::vector<handle>& values) {
  handle root(H5Gopen2(file, "/", H5P_DEFAULT), H5Gclose);
  write_string_attribute(root.get(), "vseg_layout", layout_name);
  write_int_attribute(root.get(), "vseg_version", layout_version);
  write_int_attribute(root.get(), "depth", depth);
  write_string_attribute(root.get(), "fields", join(fields));
  for (std::size_t f = 0; f < fields.size(); ++f)
    write_string_attribute(values[f].get(), "element_type", fields[f].type.name());
}

// The dataset creation properties of every dataset of the layout: chunks of
// chunk_elements, Fletcher-32. O(1).
inline handle layout_dataset_properties() {
  handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_chunk(dcpl.get(), 1, &chunk_elements);
  H5Pset_fletcher32(dcpl.get());
  return dcpl;
}

// Makes a closed temporary file the target: fsync, rename over `path`, fsync
// the directory (best effort). Durable before visible. Throws hdf5::error
// naming `path`. O(1) beyond the flush.
void publish(const std::string& temporary, const std::string& path);

}  // namespace vseg::hdf5::detail
