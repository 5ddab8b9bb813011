// The loaders of traces and of report input read a path: a fuzz target gives
// them its input as an anonymous in-memory file (memfd), rewritten for each
// input, named by its /proc/self/fd path (a regular file, as on disk).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace tether::fuzz {

// Replaces the memfd's contents with data; returns the path to load.
inline const std::string& InputFile(const std::uint8_t* data, std::size_t size) {
  static const int fd = memfd_create("tether-fuzz-input", 0);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (fd < 0 || ftruncate(fd, 0) != 0) std::abort();
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<std::size_t>(n);
  }
  return path;
}

}  // namespace tether::fuzz
