// ReadInputFile and its helpers (tether/io/read_file.hpp).
#include "tether/io/read_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>

namespace tether::io {
namespace {

// What a non-regular file is, for the message.
const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string NotRegular(mode_t mode) {
  return std::string("is ") + KindOf(mode) + ", not a regular file";
}

// Parses TETHER_MAX_INPUT_BYTES: digits, then optionally KiB, MiB or GiB.
// False when the text is not that or the value overflows.
bool ParseCap(std::string_view text, std::uint64_t* out) {
  std::size_t i = 0;
  std::uint64_t value = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    std::uint64_t digit = static_cast<std::uint64_t>(text[i] - '0');
    if (value > (UINT64_MAX - digit) / 10) return false;
    value = value * 10 + digit;
  }
  if (i == 0) return false;
  std::string_view unit = text.substr(i);
  unsigned shift = 0;
  if (unit == "KiB")
    shift = 10;
  else if (unit == "MiB")
    shift = 20;
  else if (unit == "GiB")
    shift = 30;
  else if (!unit.empty())
    return false;
  if (shift && value > (UINT64_MAX >> shift)) return false;
  *out = value << shift;
  return true;
}

// The cap from the environment: nullopt when unset; false in *ok when invalid.
std::optional<std::uint64_t> EnvCap(bool* ok) {
  *ok = true;
  const char* env = std::getenv(kMaxInputBytesEnv);
  if (!env || !*env) return std::nullopt;
  std::uint64_t cap = 0;
  if (!ParseCap(env, &cap) || cap == 0) {
    *ok = false;
    return std::nullopt;
  }
  return cap;
}

// An open descriptor, closed when it goes.
class Fd {
 public:
  Fd() = default;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  void Reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

std::optional<ReadError> TooBig(const std::string& path, std::uint64_t cap) {
  return ReadError{path, "is larger than the input limit of " + std::to_string(cap) +
                             " bytes (set " + kMaxInputBytesEnv + " to raise it)"};
}

}  // namespace

std::uint64_t MaxInputBytes() {
  bool ok = true;
  return EnvCap(&ok).value_or(kDefaultMaxInputBytes);
}

std::optional<ReadError> ReadInputFile(const std::string& path, std::string* contents,
                                       const ReadOptions& options) {
  contents->clear();
  bool sized = false;
  std::optional<ReadError> err = ReadInputFileChunks(
      path,
      [&](std::string_view chunk, std::uint64_t size_hint) {
        if (!sized && size_hint > 0) contents->reserve(static_cast<std::size_t>(size_hint));
        sized = true;
        contents->append(chunk);
        return true;
      },
      options);
  if (err) {
    contents->clear();
    contents->shrink_to_fit();
  }
  return err;
}

namespace {

// The checks every read makes before its first byte: the cap in force (into
// *cap, when 0 on entry), a name, a regular file that opens without blocking
// and within the cap. On success *fd holds the file open (blocking again).
std::optional<ReadError> OpenInput(const std::string& path, std::uint64_t* cap, Fd* fd,
                                   struct stat* st) {
  auto fail = [&](std::string message) -> std::optional<ReadError> {
    return ReadError{path, std::move(message)};
  };
  if (*cap == 0) {
    bool ok = true;
    *cap = EnvCap(&ok).value_or(kDefaultMaxInputBytes);
    if (!ok) {
      return fail(std::string(kMaxInputBytesEnv) + "='" + std::getenv(kMaxInputBytesEnv) +
                  "' is not a size in bytes (e.g. 536870912 or 512MiB)");
    }
  }
  if (path.empty()) return fail("empty file name");

  // stat first: a directory or a FIFO is refused without opening it at all.
  if (::stat(path.c_str(), st) != 0) {
    if (errno == ENOENT) return fail("no such file");
    return fail(std::string("cannot read: ") + std::strerror(errno));
  }
  if (!S_ISREG(st->st_mode)) return fail(NotRegular(st->st_mode));

  // Something else may replace the file between stat and open: open without
  // blocking (a FIFO's open would wait for a writer), then check what was
  // opened.
  int raw = -1;
  do {
    raw = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  } while (raw < 0 && errno == EINTR);
  if (raw < 0) {
    if (errno == ENOENT) return fail("no such file");
    return fail(std::string("cannot open: ") + std::strerror(errno));
  }
  fd->Reset(raw);
  if (::fstat(fd->get(), st) != 0) return fail(std::string("cannot read: ") + std::strerror(errno));
  if (!S_ISREG(st->st_mode)) return fail(NotRegular(st->st_mode));
  // Regular files ignore O_NONBLOCK; clear it all the same.
  if (int flags = ::fcntl(fd->get(), F_GETFL); flags >= 0)
    ::fcntl(fd->get(), F_SETFL, flags & ~O_NONBLOCK);
  if (static_cast<std::uint64_t>(st->st_size) > *cap) return TooBig(path, *cap);
  return std::nullopt;
}

}  // namespace

std::optional<ReadError> CheckInputFile(const std::string& path) {
  std::uint64_t cap = 0;
  Fd fd;
  struct stat st {};
  return OpenInput(path, &cap, &fd, &st);
}

std::optional<ReadError> ReadInputFileChunks(
    const std::string& path, const std::function<bool(std::string_view, std::uint64_t)>& sink,
    const ReadOptions& options) {
  auto fail = [&](std::string message) -> std::optional<ReadError> {
    return ReadError{path, std::move(message)};
  };
  std::uint64_t cap = options.max_bytes;
  Fd fd;
  struct stat st {};
  if (std::optional<ReadError> err = OpenInput(path, &cap, &fd, &st)) return err;

  auto too_big = [&]() { return TooBig(path, cap); };
  // st_size is a hint only (files under /proc report 0; a file may grow).
  const std::uint64_t size_hint = st.st_size > 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  std::uint64_t total = 0;
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(std::string("cannot read: ") + std::strerror(errno));
    }
    if (n == 0) break;
    total += static_cast<std::uint64_t>(n);
    if (total > cap) return too_big();
    if (!sink(std::string_view(buf, static_cast<std::size_t>(n)), size_hint)) break;
  }
  return std::nullopt;
}

TextPosition PositionAt(std::string_view text, std::size_t offset) {
  if (offset > text.size()) offset = text.size();
  TextPosition pos;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

std::string LineColumnAt(std::string_view text, std::size_t offset) {
  const TextPosition at = PositionAt(text, offset);
  return std::to_string(at.line) + ":" + std::to_string(at.column);
}

std::optional<std::size_t> FindJsonTooDeep(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;  // skip the escaped character
      else if (c == '"')
        in_string = false;
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > max_depth) return i;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return std::nullopt;
}

}  // namespace tether::io
