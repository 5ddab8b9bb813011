// AtomicFile, WriteFileAtomically, temporary files and directories
// (tether/io/write_file.hpp).
#include "tether/io/write_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

namespace tether::io {
namespace {

std::string Reason(int err) { return std::strerror(err); }

// "." for a bare name, "/" for a file at the root.
std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Six random letters and digits. Each thread has its own generator, seeded
// from the system, so that writers in several threads or processes do not
// walk the same names.
std::string RandomSuffix() {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 gen{std::random_device{}()};
  std::uniform_int_distribution<size_t> pick(0, sizeof kChars - 2);
  std::string s(6, '0');
  for (char& c : s) c = kChars[pick(gen)];
  return s;
}

// Creates DIR/PREFIX<random>SUFFIX with `make` (which returns 0 or -1 with
// errno), trying other names while one exists.
template <typename Make>
std::optional<std::string> MakeUnique(const std::string& dir, const std::string& prefix,
                                      const std::string& suffix, Make make, int* err) {
  const std::string base = (dir == "/" ? "" : dir) + "/" + prefix;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string path = base + RandomSuffix() + suffix;
    if (make(path) == 0) return path;
    if (errno != EEXIST) break;
  }
  *err = errno;
  return std::nullopt;
}

bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

AtomicFile::~AtomicFile() { Discard(); }

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)),
      target_(std::move(other.target_)),
      temp_(std::move(other.temp_)),
      fd_(other.fd_),
      options_(std::move(other.options_)) {
  other.temp_.clear();
  other.fd_ = -1;
}

AtomicFile& AtomicFile::operator=(AtomicFile&& other) noexcept {
  if (this != &other) {
    Discard();
    path_ = std::move(other.path_);
    target_ = std::move(other.target_);
    temp_ = std::move(other.temp_);
    fd_ = other.fd_;
    options_ = std::move(other.options_);
    other.temp_.clear();
    other.fd_ = -1;
  }
  return *this;
}

void AtomicFile::Discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
}

std::optional<WriteError> AtomicFile::Create(const std::string& path, AtomicFile* out,
                                             const AtomicWriteOptions& options) {
  AtomicFile file;
  file.path_ = path;
  file.options_ = options;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    // A FIFO, a device (/dev/null, /dev/stdout) or a socket: nothing to
    // replace (renaming over /dev/null would replace the device itself), so
    // it is written as it is, without O_TRUNC.
    file.fd_ = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (file.fd_ < 0) return WriteError{path, "cannot write it: " + Reason(errno), errno};
    *out = std::move(file);
    return std::nullopt;
  }
  // A symbolic link stays one: the file it names is replaced.
  file.target_ = path;
  if (char* real = ::realpath(path.c_str(), nullptr)) {
    file.target_ = real;
    std::free(real);
  }
  const std::string dir = options.temp_dir.empty() ? DirectoryOf(file.target_) : options.temp_dir;
  // 0666 through the umask, as the file itself would be created; an
  // existing file's own bits are copied below.
  int fd = -1;
  int err = 0;
  std::optional<std::string> temp = MakeUnique(
      dir, BaseName(file.target_) + ".tmp.", "",
      [&fd](const std::string& p) {
        fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        return fd < 0 ? -1 : 0;
      },
      &err);
  if (!temp)
    return WriteError{path, "cannot create a temporary file in " + dir + ": " + Reason(err), err};
  file.temp_ = *temp;
  file.fd_ = fd;
  if (::stat(file.target_.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    ::fchmod(fd, st.st_mode & 07777);
  *out = std::move(file);
  return std::nullopt;
}

std::optional<WriteError> AtomicFile::Write(std::string_view bytes) {
  if (fd_ < 0) return WriteError{path_, "cannot write: the file is not open"};
  if (WriteAll(fd_, bytes)) return std::nullopt;
  WriteError e{temp_, "cannot write: " + Reason(errno), errno};
  Discard();
  return e;
}

std::optional<WriteError> AtomicFile::Commit() {
  if (fd_ < 0) return WriteError{path_, "cannot write: the file is not open"};
  auto fail = [this](std::string what, int err) {
    WriteError e{path_, std::move(what) + Reason(err), err};
    Discard();
    return e;
  };
  if (options_.sync && ::fsync(fd_) != 0) return fail("cannot sync " + temp_ + ": ", errno);
  const int fd = fd_;
  fd_ = -1;
  if (temp_.empty()) {  // written in place (a FIFO or a device)
    if (::close(fd) != 0) return fail("cannot write it: ", errno);
    return std::nullopt;
  }
  if (::close(fd) != 0) return fail("cannot write " + temp_ + ": ", errno);
  if (options_.replace) {
    if (::rename(temp_.c_str(), target_.c_str()) != 0) return fail("cannot replace it: ", errno);
  } else {
    // link(2) refuses an existing name, where rename(2) would replace it.
    if (::link(temp_.c_str(), target_.c_str()) != 0) return fail("", errno);
    ::unlink(temp_.c_str());
  }
  temp_.clear();
  if (options_.sync) SyncDirectory(DirectoryOf(target_));
  return std::nullopt;
}

std::optional<WriteError> WriteFileAtomically(const std::string& path, std::string_view text,
                                              const AtomicWriteOptions& options) {
  AtomicFile file;
  if (std::optional<WriteError> e = AtomicFile::Create(path, &file, options)) return e;
  if (std::optional<WriteError> e = file.Write(text)) return e;
  return file.Commit();
}

std::string TempDirectory() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

std::optional<std::string> MakeTempFile(const std::string& dir, const std::string& prefix,
                                        const std::string& suffix, std::string* error) {
  int err = 0;
  std::optional<std::string> path = MakeUnique(
      dir, prefix, suffix,
      [](const std::string& p) {
        const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) return -1;
        ::close(fd);
        return 0;
      },
      &err);
  if (!path) *error = "cannot create a temporary file in " + dir + ": " + Reason(err);
  return path;
}

std::optional<std::string> MakeTempDirectory(const std::string& dir, const std::string& prefix,
                                             std::string* error) {
  int err = 0;
  std::optional<std::string> path = MakeUnique(
      dir, prefix, "", [](const std::string& p) { return ::mkdir(p.c_str(), 0700); }, &err);
  if (!path) *error = "cannot create a temporary directory in " + dir + ": " + Reason(err);
  return path;
}

RemovedAtExit& RemovedAtExit::operator=(RemovedAtExit&& other) noexcept {
  if (this != &other) {
    Remove();
    path_ = other.Release();
  }
  return *this;
}

void RemovedAtExit::Remove() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
  path_.clear();
}

std::string RemovedAtExit::Release() {
  std::string path = std::move(path_);
  path_.clear();
  return path;
}

}  // namespace tether::io
