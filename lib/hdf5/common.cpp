// The helpers of common.hpp that are not inline: publishing a written file.
#include "common.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace vseg::hdf5::detail {

void publish(const std::string& temporary, const std::string& path) {
  // Durable before visible: the data reaches the disk, then the name moves.
  const int fd = ::open(temporary.c_str(), O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    fail("write", path, "", "cannot fsync ", temporary, ": ", std::strerror(err));
  }
  ::close(fd);
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    fail("write", path, "", "cannot rename ", temporary, ": ", std::strerror(errno));
  const std::filesystem::path dir = std::filesystem::absolute(path).parent_path();
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);  // the rename itself; best effort (some file systems refuse)
    ::close(dfd);
  }
}

}  // namespace vseg::hdf5::detail
