// CheckOutputFile (tether/io/output_file.hpp).
#include "tether/io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace tether::io {
namespace {

const char* KindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

OutputError Error(OutputError::Kind kind, const std::string& path, std::string message) {
  return OutputError{kind, path, std::move(message)};
}

// The directory a new `path` would be created in: "." for a bare name.
std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// A file that exists: writable without being changed (opened without
// O_TRUNC and closed), or, when it is not a regular file, writable by access(2)
// (opening a FIFO could block, opening a device could act).
std::optional<OutputError> CheckExisting(const std::string& path, const struct stat& st,
                                         const OutputOptions& options) {
  if (S_ISDIR(st.st_mode)) return Error(OutputError::Kind::kDirectory, path, "is a directory");
  if (!S_ISREG(st.st_mode)) {
    if (options.regular_only)
      return Error(OutputError::Kind::kNotRegular, path,
                   std::string("is ") + KindOf(st.st_mode) + ", not a regular file");
    if (::access(path.c_str(), W_OK) != 0)
      return Error(OutputError::Kind::kCannotWrite, path,
                   std::string("cannot write it: ") + std::strerror(errno));
    return std::nullopt;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return Error(OutputError::Kind::kCannotWrite, path,
                 std::string("cannot write it: ") + std::strerror(errno));
  ::close(fd);
  return std::nullopt;
}

// A file that does not exist yet: its directory must exist and take a new
// file, which a probe file created and removed at once shows.
std::optional<OutputError> CheckNew(const std::string& path) {
  const std::string dir = DirectoryOf(path);
  auto cannot = [&](int err) {
    return Error(OutputError::Kind::kCannotCreate, path,
                 "cannot create it in " + dir + ": " + std::strerror(err));
  };
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return cannot(errno);
  if (!S_ISDIR(st.st_mode)) return cannot(ENOTDIR);
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return cannot(errno);
  std::string probe = (dir == "/" ? "" : dir) + "/.tether-write-probe-XXXXXX";
  const int fd = ::mkostemp(probe.data(), O_CLOEXEC);
  if (fd < 0) return cannot(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return std::nullopt;
}

}  // namespace

std::optional<OutputError> CheckOutputFile(const std::string& path, const OutputOptions& options) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return CheckExisting(path, st, options);
  if (errno != ENOENT)  // a part of the path that is a file (ENOTDIR), a loop, no permission
    return Error(OutputError::Kind::kCannotCreate, path,
                 "cannot create it in " + DirectoryOf(path) + ": " + std::strerror(errno));
  return CheckNew(path);
}

std::optional<OutputError> CheckOutputDirectory(const std::string& path, Parents parents) {
  auto cannot = [&](const std::string& where, int err) {
    return Error(OutputError::Kind::kCannotCreate, path,
                 "cannot create it in " + where + ": " + std::strerror(err));
  };
  if (path.empty()) return Error(OutputError::Kind::kCannotCreate, path, "empty directory name");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      return Error(OutputError::Kind::kNotRegular, path, "is not a directory");
    if (::access(path.c_str(), W_OK | X_OK) != 0)
      return Error(OutputError::Kind::kCannotWrite, path,
                   std::string("cannot write in it: ") + std::strerror(errno));
    return std::nullopt;
  }
  if (errno != ENOENT && errno != ENOTDIR) return cannot(DirectoryOf(path), errno);
  if (parents == Parents::kMustExist) {
    const std::string parent = DirectoryOf(path);
    if (::stat(parent.c_str(), &st) != 0) {
      OutputError e = cannot(parent, errno);
      e.message += " (only its last part is made)";
      return e;
    }
    if (!S_ISDIR(st.st_mode)) return cannot(parent, ENOTDIR);
    if (::access(parent.c_str(), W_OK | X_OK) != 0) return cannot(parent, errno);
    return std::nullopt;
  }
  // Made with its missing parents: the nearest part of the path that exists
  // must be a directory that takes new entries.
  std::string existing = path;
  while (::stat(existing.c_str(), &st) != 0) {
    if (errno != ENOENT && errno != ENOTDIR) return cannot(existing, errno);
    const std::string parent = DirectoryOf(existing);
    if (parent == existing) return cannot(existing, ENOENT);
    existing = parent;
  }
  if (!S_ISDIR(st.st_mode)) return cannot(existing, ENOTDIR);
  if (::access(existing.c_str(), W_OK | X_OK) != 0) return cannot(existing, errno);
  return std::nullopt;
}

}  // namespace tether::io
