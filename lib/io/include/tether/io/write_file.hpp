// Writing a file whole or not at all, and temporary files and directories
// that do not outlive their owner (lib/io).
//
// Rules of use:
//  - Every file Tether writes for later reading (a report, a cache entry, a
//    build.json, a spool job, a source file `--fix` rewrites) is written
//    through AtomicFile or WriteFileAtomically: the bytes go to a temporary
//    file in the same file system, which a rename puts in place. A reader
//    sees the old file or the new one, never a part, and a failure (a full
//    disk, a kill) leaves the old file as it was.
//  - A file that already exists keeps its permission bits (a source file
//    `--fix` rewrites stays executable or read-only to others); a new one
//    gets 0666 less the umask, as open(2) would give it.
//  - Streams (a trace being recorded, a step's log) are not written this
//    way: their readers follow them while they grow.
//  - Errors name the file and carry the system's reason: "FILE: error: why".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tether::io {

struct WriteError {
  std::string file;     // the file the caller named (or the temporary, for a write error)
  std::string message;  // "cannot create a temporary file in /x: Permission denied"
  int errnum = 0;       // the errno behind it (EEXIST: replace=false and the file exists)
  std::string ToString() const { return file + ": error: " + message; }
};

struct AtomicWriteOptions {
  // fsync the file before it is renamed into place (and its directory after):
  // a machine that crashes keeps the old file or the new one. Costs a disk
  // flush, so only for records that must survive a crash (the spool).
  bool sync = false;
  // When the file already exists: false keeps the existing file and Commit
  // fails with EEXIST ("the first result wins").
  bool replace = true;
  // Where the temporary file is made; empty: the file's own directory. Must
  // be on the file's file system (rename(2) does not cross them).
  std::string temp_dir;
};

// A file being written under a temporary name (FILE.tmp.XXXXXX, or
// TEMP_DIR/NAME.tmp.XXXXXX), put in place by Commit. Destroying it without a
// successful Commit removes the temporary: nothing is left behind. A path
// that is a symbolic link stays one (the file it names is replaced); one
// that names an existing FIFO, device or socket (/dev/null, /dev/stdout, a
// pipe) is written as it is, with no temporary: there is nothing to replace.
class AtomicFile {
 public:
  AtomicFile() = default;
  ~AtomicFile();
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) noexcept;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Creates the temporary file for `path` (exclusively: two writers of one
  // path never share one).
  static std::optional<WriteError> Create(const std::string& path, AtomicFile* out,
                                          const AtomicWriteOptions& options = {});

  // The temporary file's path (for a caller that removes it on a signal).
  const std::string& temp_path() const { return temp_; }

  // Appends bytes (retrying short writes and EINTR).
  std::optional<WriteError> Write(std::string_view bytes);

  // Closes the temporary and renames it over the file (or, with
  // replace=false, links it there and removes the temporary). After an
  // error the file is as it was and the temporary is gone.
  std::optional<WriteError> Commit();

 private:
  void Discard();
  std::string path_;    // as the caller named it (for messages)
  std::string target_;  // the file replaced: path_ with symbolic links resolved
  std::string temp_;
  int fd_ = -1;
  AtomicWriteOptions options_;
};

// Create + Write + Commit.
std::optional<WriteError> WriteFileAtomically(const std::string& path, std::string_view text,
                                              const AtomicWriteOptions& options = {});

// The directory temporary files go to: $TMPDIR when set and not empty, else
// /tmp.
std::string TempDirectory();

// Makes a new file or directory with a unique name in `dir`:
// DIR/PREFIXXXXXXXSUFFIX, where XXXXXX is random. Returns its path, or
// nothing with *error set ("cannot create a temporary file in DIR: why").
std::optional<std::string> MakeTempFile(const std::string& dir, const std::string& prefix,
                                        const std::string& suffix, std::string* error);
std::optional<std::string> MakeTempDirectory(const std::string& dir, const std::string& prefix,
                                             std::string* error);

// Owns a path (a file or a directory tree) and removes it when destroyed,
// unless Release() gave it up.
class RemovedAtExit {
 public:
  RemovedAtExit() = default;
  explicit RemovedAtExit(std::string path) : path_(std::move(path)) {}
  ~RemovedAtExit() { Remove(); }
  RemovedAtExit(const RemovedAtExit&) = delete;
  RemovedAtExit& operator=(const RemovedAtExit&) = delete;
  RemovedAtExit(RemovedAtExit&& other) noexcept : path_(other.Release()) {}
  RemovedAtExit& operator=(RemovedAtExit&& other) noexcept;

  const std::string& path() const { return path_; }
  // Removes it now (errors are ignored: it may be gone already).
  void Remove();
  // Keeps it: returns the path and owns nothing.
  std::string Release();

 private:
  std::string path_;
};

}  // namespace tether::io
