// The untyped HDF5 layer: vseg::hdf5::writer and reader (the layout is in
// vseg/hdf5/file.hpp and notes/hdf5.md). Every HDF5 call is checked; a
// failure becomes an hdf5::error naming the file, the dataset and HDF5's own
// innermost message, and HDF5's error stack is never printed.
#include "vseg/hdf5/file.hpp"

#include "chunk_read.hpp"
#include "common.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string_view>

namespace vseg::hdf5 {
namespace {

using namespace vseg::hdf5::detail;  // the shared helpers of common.hpp

// Whether a dataset's stored HDF5 type is what the element type says.
bool type_matches(hid_t stored, const element_type& t) {
  using K = element_type::kind;
  const H5T_class_t c = H5Tget_class(stored);
  if (H5Tget_size(stored) != t.size) return false;
  switch (t.k) {
    case K::boolean:
    case K::unsigned_integer: return c == H5T_INTEGER && H5Tget_sign(stored) == H5T_SGN_NONE;
    case K::signed_integer: return c == H5T_INTEGER && H5Tget_sign(stored) == H5T_SGN_2;
    case K::floating: return c == H5T_FLOAT;
    case K::opaque: return c == H5T_OPAQUE;
  }
  return false;
}

// A string attribute, or nullopt-like empty flag when absent or not a string.
bool read_string_attribute(hid_t object, const char* name, std::string& out) {
  if (H5Aexists(object, name) <= 0) return false;
  handle attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  handle type(H5Aget_type(attr.get()), H5Tclose);
  if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) > 0)
    return false;
  const std::size_t n = H5Tget_size(type.get());
  if (n == 0 || n > 4096) return false;
  std::string s(n, '\0');
  handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(mem.get(), n);
  if (H5Aread(attr.get(), mem.get(), s.data()) < 0) return false;
  s.resize(std::strlen(s.c_str()));
  out = s;
  return true;
}

bool read_int_attribute(hid_t object, const char* name, std::int64_t& out) {
  if (H5Aexists(object, name) <= 0) return false;
  handle attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  handle type(H5Aget_type(attr.get()), H5Tclose);
  if (!type.valid() || H5Tget_class(type.get()) != H5T_INTEGER) return false;
  return H5Aread(attr.get(), H5T_NATIVE_INT64, &out) >= 0;
}

}  // namespace

std::string element_type::name() const {
  const std::string bits = std::to_string(size * 8);
  switch (k) {
    case kind::signed_integer: return "int" + bits;
    case kind::unsigned_integer: return "uint" + bits;
    case kind::floating: return "float" + bits;
    case kind::boolean: return "bool";
    case kind::opaque: return "opaque" + std::to_string(size);
  }
  return "unknown";
}

// ---------------------------------------------------------------------------
// writer

struct writer::state {
  std::string path, temporary;
  std::int64_t depth = 0;
  std::vector<field> fields;
  handle file;
  std::vector<handle> offsets, values;       // datasets
  std::vector<handle> value_types;           // memory types of the fields
  std::vector<std::int64_t> offsets_size, last_offset;
  std::vector<std::int64_t> values_size;
  bool committed = false;

  handle create(const std::string& name, hid_t file_type) {
    handle space;
    const hsize_t zero = 0, unlimited = H5S_UNLIMITED;
    space = handle(H5Screate_simple(1, &zero, &unlimited), H5Sclose);
    handle dcpl = layout_dataset_properties();
    handle d(H5Dcreate2(file.get(), name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
             H5Dclose);
    if (!d.valid()) fail("write", path, name, "cannot create the dataset: ", hdf5_detail());
    return d;
  }

  void append(hid_t dataset, const std::string& name, hid_t mem_type, std::int64_t& size,
              const void* data, std::int64_t count) {
    if (count == 0) return;
    const hsize_t old = static_cast<hsize_t>(size), n = static_cast<hsize_t>(count), grown = old + n;
    if (H5Dset_extent(dataset, &grown) < 0) fail("write", path, name, "cannot extend: ", hdf5_detail());
    handle fspace(H5Dget_space(dataset), H5Sclose);
    handle mspace(H5Screate_simple(1, &n, nullptr), H5Sclose);
    H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &old, nullptr, &n, nullptr);
    if (H5Dwrite(dataset, mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, data) < 0)
      fail("write", path, name, "cannot write ", count, " elements: ", hdf5_detail());
    size += count;
  }
};

writer::writer(std::string path, std::int64_t depth, std::vector<field> fields) : s_(new state) {
  silence();
  s_->path = std::move(path);
  if (depth < 1 || depth > 64) fail("write", s_->path, "", "depth ", depth, " outside [1, 64]");
  if (fields.empty()) fail("write", s_->path, "", "no fields");
  s_->depth = depth;
  s_->fields = std::move(fields);
  // The temporary file sits beside the target so that rename is atomic.
  static std::atomic<int> counter{0};
  s_->temporary = s_->path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);  // checksummed metadata
  s_->file = handle(H5Fcreate(s_->temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose);
  if (!s_->file.valid()) fail("write", s_->path, "", "cannot create ", s_->temporary, ": ", hdf5_detail());
  for (std::int64_t k = 0; k < depth; ++k) {
    s_->offsets.push_back(s_->create(offsets_name(k), H5T_STD_I64LE));
    s_->offsets_size.push_back(0);
    s_->last_offset.push_back(0);
  }
  for (const auto& f : s_->fields) {
    handle file_type = type_of(f.type, true);
    s_->values.push_back(s_->create(f.name, file_type.get()));
    s_->value_types.push_back(type_of(f.type, false));
    s_->values_size.push_back(0);
  }
}

writer::~writer() {
  if (s_ && !s_->committed) {
    s_->values.clear();
    s_->offsets.clear();
    s_->file.close();
    std::remove(s_->temporary.c_str());
  }
}

void writer::append_offsets(std::int64_t level, std::span<const std::int64_t> entries) {
  silence();
  if (level < 0 || level >= s_->depth) fail("write", s_->path, "", "offsets level ", level, " outside [0, ", s_->depth, ")");
  const std::string name = offsets_name(level);
  std::int64_t& size = s_->offsets_size[static_cast<std::size_t>(level)];
  std::int64_t& last = s_->last_offset[static_cast<std::size_t>(level)];
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::int64_t e = entries[i];
    if (size == 0 && i == 0 ? e != 0 : e < last)
      fail("write", s_->path, name, "entry ", size + static_cast<std::int64_t>(i), " is ", e,
           size == 0 && i == 0 ? " (the first offset must be 0)" : " (offsets may not decrease)");
    last = e;
  }
  s_->append(s_->offsets[static_cast<std::size_t>(level)].get(), name, H5T_NATIVE_INT64, size,
             entries.data(), static_cast<std::int64_t>(entries.size()));
}

void writer::append_values(std::size_t field_index, const void* data, std::int64_t count) {
  silence();
  if (field_index >= s_->fields.size()) fail("write", s_->path, "", "field index ", field_index, " out of range");
  s_->append(s_->values[field_index].get(), s_->fields[field_index].name, s_->value_types[field_index].get(),
             s_->values_size[field_index], data, count);
}

void writer::commit() {
  silence();
  state& s = *s_;
  // The offsets must describe the sizes: offsets_k ends at the next level's segments.
  for (std::int64_t k = 0; k < s.depth; ++k) {
    const auto ku = static_cast<std::size_t>(k);
    if (s.offsets_size[ku] == 0) fail("write", s.path, offsets_name(k), "no entries (at least the leading 0)");
    const std::int64_t next = k + 1 < s.depth ? s.offsets_size[ku + 1] - 1 : s.values_size[0];
    if (s.last_offset[ku] != next)
      fail("write", s.path, offsets_name(k), "ends at ", s.last_offset[ku], " but the level below has ", next);
  }
  for (std::size_t f = 1; f < s.fields.size(); ++f)
    if (s.values_size[f] != s.values_size[0])
      fail("write", s.path, s.fields[f].name, "has ", s.values_size[f], " elements but ", s.fields[0].name,
           " has ", s.values_size[0]);
  try {
    write_layout_attributes(s.file.get(), s.depth, s.fields, s.values);
  } catch (const error& e) {
    fail("write", s.path, "", e.what());
  }
  s.values.clear();
  s.offsets.clear();
  if (!s.file.close()) fail("write", s.path, "", "cannot flush ", s.temporary, ": ", hdf5_detail());
  publish(s.temporary, s.path);
  s.committed = true;
}

// ---------------------------------------------------------------------------
// reader

struct reader::state {
  std::string path;
  std::int64_t depth = 0;
  handle file;
  std::vector<handle> offsets, values, value_types;
  // The caches of the datasets detail::read_chunks_direct can read; null for the others.
  std::vector<std::unique_ptr<detail::chunk_cache>> offsets_direct, values_direct;
  std::vector<std::int64_t> segments;
  std::vector<field> fields;
  std::int64_t elements = 0;

  // A 1-D dataset and its length, or an error naming it.
  handle open_dataset(const std::string& name, hsize_t& length) {
    if (H5Lexists(file.get(), name.c_str(), H5P_DEFAULT) <= 0) fail("read", path, name, "the dataset is missing");
    handle dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
    H5Pset_chunk_cache(dapl.get(), 521, chunk_cache_bytes, 1.0);
    handle d(H5Dopen2(file.get(), name.c_str(), dapl.get()), H5Dclose);
    if (!d.valid()) fail("read", path, name, "cannot open: ", hdf5_detail());
    handle space(H5Dget_space(d.get()), H5Sclose);
    if (!space.valid() || H5Sget_simple_extent_ndims(space.get()) != 1)
      fail("read", path, name, "not a 1-D dataset");
    H5Sget_simple_extent_dims(space.get(), &length, nullptr);
    return d;
  }

  int fd = -1;  // the sec2 driver's descriptor, for posix_fadvise
  // Whether chunks can be mapped from fd (map_chunks): HDF5 addresses are
  // file offsets (no user block); and the file's size when opened.
  bool mappable = false;
  std::uint64_t file_size = 0;

  void prefetch(hid_t dataset, std::int64_t begin, std::int64_t end) const {
    if (fd < 0 || end <= begin) return;
    haddr_t run_start = HADDR_UNDEF, run_end = 0;
    auto flush = [&] {
      if (run_start != HADDR_UNDEF)
        ::posix_fadvise(fd, static_cast<off_t>(run_start), static_cast<off_t>(run_end - run_start), POSIX_FADV_WILLNEED);
    };
    for (hsize_t c = static_cast<hsize_t>(begin) / chunk_elements; c <= static_cast<hsize_t>(end - 1) / chunk_elements; ++c) {
      const hsize_t offset = c * chunk_elements;
      unsigned mask = 0;
      haddr_t addr = HADDR_UNDEF;
      hsize_t size = 0;
      if (H5Dget_chunk_info_by_coord(dataset, &offset, &mask, &addr, &size) < 0 || addr == HADDR_UNDEF) {
        H5Eclear2(H5E_DEFAULT);
        continue;
      }
      if (addr != run_end) {
        flush();
        run_start = addr;
      }
      run_end = addr + size;
    }
    flush();
  }

  void read(hid_t dataset, const std::string& name, hid_t mem_type, std::int64_t begin, std::int64_t end,
            void* out, detail::chunk_cache* direct = nullptr) const {
    if (end <= begin) return;
    // Reads directly (chunk_read.hpp) where the dataset allows, the partial
    // chunks kept in its cache so that the many small reads of small blocks
    // do not re-read and re-check a chunk each time; the rest through HDF5.
    if (direct != nullptr) {
      if (detail::read_chunks_direct(dataset, chunk_elements, H5Tget_size(mem_type), begin, end, out, *direct,
                                     mappable ? fd : -1, file_size))
        return;
      H5Eclear2(H5E_DEFAULT);
    }
    const hsize_t start = static_cast<hsize_t>(begin), n = static_cast<hsize_t>(end - begin);
    handle fspace(H5Dget_space(dataset), H5Sclose);
    handle mspace(H5Screate_simple(1, &n, nullptr), H5Sclose);
    H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &start, nullptr, &n, nullptr);
    if (H5Dread(dataset, mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, out) < 0)
      fail("read", path, name, "cannot read elements [", begin, ", ", end, ") (truncated or corrupt file?): ",
           hdf5_detail());
  }
};

reader::reader(std::string path) : s_(new state) {
  silence();
  state& s = *s_;
  s.path = std::move(path);
  const int fd = ::open(s.path.c_str(), O_RDONLY);
  if (fd < 0) fail("read", s.path, "", "cannot open: ", std::strerror(errno));
  ::close(fd);
  if (H5Fis_hdf5(s.path.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    fail("read", s.path, "", "not an HDF5 file (no HDF5 signature)");
  }
  s.file = handle(H5Fopen(s.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!s.file.valid()) fail("read", s.path, "", "cannot open (truncated or corrupt file?): ", hdf5_detail());
  // Blocked reads walk the file front to back: a larger kernel read-ahead.
  void* vfd = nullptr;
  if (H5Fget_vfd_handle(s.file.get(), H5P_DEFAULT, &vfd) >= 0 && vfd != nullptr) {
    s.fd = *static_cast<int*>(vfd);
    ::posix_fadvise(s.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    struct stat st {};
    handle fcpl(H5Fget_create_plist(s.file.get()), H5Pclose);
    hsize_t user_block = 1;
    if (fcpl.valid() && H5Pget_userblock(fcpl.get(), &user_block) >= 0 && user_block == 0 && ::fstat(s.fd, &st) == 0) {
      s.mappable = true;
      s.file_size = static_cast<std::uint64_t>(st.st_size);
    }
    H5Eclear2(H5E_DEFAULT);
  }
  handle root(H5Gopen2(s.file.get(), "/", H5P_DEFAULT), H5Gclose);
  if (!root.valid()) fail("read", s.path, "", "cannot open the root group: ", hdf5_detail());
  std::string layout, field_list;
  std::int64_t version = 0;
  if (!read_string_attribute(root.get(), "vseg_layout", layout) || layout != layout_name)
    fail("read", s.path, "", "not a vseg nested array (root attribute vseg_layout is not '", layout_name, "')");
  if (!read_int_attribute(root.get(), "vseg_version", version) || version != layout_version)
    fail("read", s.path, "", "layout version ", version, " is not the supported ", layout_version);
  if (!read_int_attribute(root.get(), "depth", s.depth) || s.depth < 1 || s.depth > 64)
    fail("read", s.path, "", "missing or bad depth attribute (", s.depth, ")");
  if (!read_string_attribute(root.get(), "fields", field_list) || field_list.empty())
    fail("read", s.path, "", "missing fields attribute");
  for (std::int64_t k = 0; k < s.depth; ++k) {
    hsize_t n = 0;
    const std::string name = offsets_name(k);
    s.offsets.push_back(s.open_dataset(name, n));
    handle type(H5Dget_type(s.offsets.back().get()), H5Tclose);
    if (!type_matches(type.get(), {element_type::kind::signed_integer, 8}))
      fail("read", s.path, name, "offsets are not 64-bit signed integers");
    if (n == 0) fail("read", s.path, name, "empty (needs at least the leading 0)");
    s.offsets_direct.push_back(detail::direct_readable(s.offsets.back().get(), type.get())
                                   ? std::make_unique<detail::chunk_cache>() : nullptr);
    s.segments.push_back(static_cast<std::int64_t>(n) - 1);
  }
  std::stringstream names(field_list);
  for (std::string name; std::getline(names, name, ',');) {
    hsize_t n = 0;
    s.values.push_back(s.open_dataset(name, n));
    std::string type_name;
    if (!read_string_attribute(s.values.back().get(), "element_type", type_name))
      fail("read", s.path, name, "missing element_type attribute");
    handle stored(H5Dget_type(s.values.back().get()), H5Tclose);
    element_type t{element_type::kind::opaque, H5Tget_size(stored.get())};
    for (auto k : {element_type::kind::signed_integer, element_type::kind::unsigned_integer,
                   element_type::kind::floating, element_type::kind::boolean, element_type::kind::opaque})
      if (element_type{k, t.size}.name() == type_name) t.k = k;
    if (t.name() != type_name || !type_matches(stored.get(), t))
      fail("read", s.path, name, "element_type '", type_name, "' does not match the stored HDF5 type");
    if (!s.fields.empty() && static_cast<std::int64_t>(n) != s.elements)
      fail("read", s.path, name, "has ", n, " elements but ", s.fields.front().name, " has ", s.elements);
    s.elements = static_cast<std::int64_t>(n);
    s.fields.push_back({name, t});
    s.value_types.push_back(type_of(t, false));
    s.values_direct.push_back(detail::direct_readable(s.values.back().get(), stored.get())
                                  ? std::make_unique<detail::chunk_cache>() : nullptr);
  }
  // The ends of every offsets level must meet the level below.
  for (std::int64_t k = 0; k < s.depth; ++k) {
    std::int64_t first = -1, last = -1;
    const std::string name = offsets_name(k);
    const auto ku = static_cast<std::size_t>(k);
    s.read(s.offsets[ku].get(), name, H5T_NATIVE_INT64, 0, 1, &first);
    s.read(s.offsets[ku].get(), name, H5T_NATIVE_INT64, s.segments[ku], s.segments[ku] + 1, &last);
    const std::int64_t next = k + 1 < s.depth ? s.segments[ku + 1] : s.elements;
    if (first != 0 || last != next)
      fail("read", s.path, name, "runs from ", first, " to ", last, " but must run from 0 to ", next);
  }
}

reader::~reader() = default;

const std::string& reader::path() const noexcept { return s_->path; }
std::int64_t reader::depth() const noexcept { return s_->depth; }
std::int64_t reader::elements() const noexcept { return s_->elements; }
const std::vector<field>& reader::fields() const noexcept { return s_->fields; }

std::int64_t reader::segments(std::int64_t level) const {
  if (level < 0 || level >= s_->depth) fail("read", s_->path, "", "level ", level, " outside [0, ", s_->depth, ")");
  return s_->segments[static_cast<std::size_t>(level)];
}

std::size_t reader::field_index(const std::string& name, const element_type& expected) const {
  for (std::size_t f = 0; f < s_->fields.size(); ++f) {
    if (s_->fields[f].name != name) continue;
    if (!(s_->fields[f].type == expected))
      fail("read", s_->path, name, "holds ", s_->fields[f].type.name(), " but ", expected.name(), " was asked for");
    return f;
  }
  fail("read", s_->path, name, "no such field (the file has '", join(s_->fields), "')");
}

void reader::read_offsets(std::int64_t level, std::int64_t begin, std::int64_t end, std::int64_t* out) const {
  silence();
  const std::int64_t n = segments(level) + 1;
  const std::string name = offsets_name(level);
  if (begin < 0 || end > n || begin > end) fail("read", s_->path, name, "range [", begin, ", ", end, ") outside [0, ", n, "]");
  s_->read(s_->offsets[static_cast<std::size_t>(level)].get(), name, H5T_NATIVE_INT64, begin, end, out,
           s_->offsets_direct[static_cast<std::size_t>(level)].get());
  const std::int64_t next = level + 1 < s_->depth ? s_->segments[static_cast<std::size_t>(level) + 1] : s_->elements;
  for (std::int64_t i = 0; i < end - begin; ++i)
    if (out[i] < 0 || out[i] > next || (i > 0 && out[i] < out[i - 1]))
      fail("read", s_->path, name, "entry ", begin + i, " is ", out[i], " (corrupt: offsets must be non-decreasing within [0, ",
           next, "])");
}

void reader::read_values(std::size_t field_index, std::int64_t begin, std::int64_t end, void* out) const {
  silence();
  if (field_index >= s_->fields.size()) fail("read", s_->path, "", "field index ", field_index, " out of range");
  const std::string& name = s_->fields[field_index].name;
  if (begin < 0 || end > s_->elements || begin > end)
    fail("read", s_->path, name, "range [", begin, ", ", end, ") outside [0, ", s_->elements, "]");
  s_->read(s_->values[field_index].get(), name, s_->value_types[field_index].get(), begin, end, out,
           s_->values_direct[field_index].get());
}

}  // namespace vseg::hdf5

namespace vseg::hdf5 {

void reader::prefetch_offsets(std::int64_t level, std::int64_t begin, std::int64_t end) const {
  silence();
  if (level < 0 || level >= s_->depth) return;
  s_->prefetch(s_->offsets[static_cast<std::size_t>(level)].get(), std::max<std::int64_t>(begin, 0),
               std::min(end, s_->segments[static_cast<std::size_t>(level)] + 1));
}

void reader::prefetch_values(std::size_t field_index, std::int64_t begin, std::int64_t end) const {
  silence();
  if (field_index >= s_->values.size()) return;
  s_->prefetch(s_->values[field_index].get(), std::max<std::int64_t>(begin, 0), std::min(end, s_->elements));
}

}  // namespace vseg::hdf5

namespace vseg::hdf5 {

mapped_chunks::mapped_chunks(mapped_chunks&& other) noexcept
    : pieces_(std::move(other.pieces_)), maps_(std::move(other.maps_)) {
  other.pieces_.clear();
  other.maps_.clear();
}

mapped_chunks& mapped_chunks::operator=(mapped_chunks&& other) noexcept {
  if (this != &other) {
    reset();
    pieces_ = std::move(other.pieces_);
    maps_ = std::move(other.maps_);
    other.pieces_.clear();
    other.maps_.clear();
  }
  return *this;
}

mapped_chunks::~mapped_chunks() { reset(); }

void mapped_chunks::reset() noexcept {
  for (const auto& [p, n] : maps_) ::munmap(p, n);
  maps_.clear();
  pieces_.clear();
}

mapped_chunks reader::map_chunks(std::size_t field_index, std::int64_t begin, std::int64_t end) const {
  silence();
  mapped_chunks out;
  if (field_index >= s_->values.size() || !s_->mappable || s_->values_direct[field_index] == nullptr) return out;
  // One mapping at a time per dataset's cache lock: HDF5 is not called concurrently.
  const std::lock_guard lock(s_->values_direct[field_index]->mutex);
  detail::map_chunks_direct(s_->values[field_index].get(), s_->fd, s_->file_size, detail::chunk_elements,
                            s_->fields[field_index].type.size, s_->elements, begin, end, out.pieces_, out.maps_);
  return out;
}

}  // namespace vseg::hdf5
