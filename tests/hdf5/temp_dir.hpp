// A per-process temporary directory for the hdf5/ooc tests, removed with
// everything in it when the test program exits (so runs leave no
// /tmp/vseg-*-test-PID directories behind).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace vseg::test {

// The directory temp_dir_path(prefix) names; removed by its destructor.
struct scoped_temp_dir {
  std::filesystem::path path;
  ~scoped_temp_dir() {
    std::error_code ignored;  // a test may still hold a file open; never throw at exit
    std::filesystem::remove_all(path, ignored);
  }
};

// A fresh path `name` in /tmp/<prefix>-PID, created on first use and removed
// at exit (one directory per prefix and process). O(1).
inline std::string temp_file(const std::string& prefix, const std::string& name) {
  static const scoped_temp_dir dir{std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(getpid()))};
  std::filesystem::create_directories(dir.path);
  return (dir.path / name).string();
}

}  // namespace vseg::test
