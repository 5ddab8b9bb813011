// Checking a file a command will write, before the work whose result it holds
// (lib/io).
//
// Rules of use:
//  - A command that writes a file its user named (`tether check --output`,
//    `--export-fixes`, `--graph`; `tether trace --out`) checks it with
//    CheckOutputFile before it starts its work: an analysis or a traced build
//    that ran for minutes must not lose its result to a typo in a path.
//  - The check creates, truncates and leaves nothing: the file itself is
//    opened for writing only when it already exists (no O_CREAT, no O_TRUNC);
//    when it does not, a probe file is created in its directory and removed
//    at once. access(2) alone would do for most users, but says yes to root
//    where the file system says no (/proc, /sys).
//  - The error names the file and says what is wrong, with the system's
//    reason (strerror): show it as `OutputError::ToString()`, "FILE: error:
//    MESSAGE", or put the option's name before `message`.
#pragma once

#include <optional>
#include <string>

namespace tether::io {

struct OutputError {
  enum class Kind {
    kDirectory,    // the file is a directory
    kNotRegular,   // a FIFO, device or socket, and OutputOptions::regular_only
    kCannotWrite,  // it exists and cannot be opened for writing
    kCannotCreate  // it does not exist and cannot be created in its directory
  };
  Kind kind = Kind::kCannotWrite;
  std::string file;     // the path as the caller gave it
  std::string message;  // "is a directory", "cannot create it in /x: No such file or directory"
  // "FILE: error: MESSAGE".
  std::string ToString() const { return file + ": error: " + message; }
};

struct OutputOptions {
  // Refuse an existing file that is not a regular file (a FIFO, a device, a
  // socket). Without it /dev/null or a pipe is a fine place for a report.
  bool regular_only = false;
};

// Whether `path` can be written: an existing file must not be a directory and
// must open for writing; a new one must be creatable in its directory (which
// must exist). Returns nothing when it can, else why not. Never blocks (a
// FIFO is not opened) and never throws (except std::bad_alloc).
std::optional<OutputError> CheckOutputFile(const std::string& path,
                                           const OutputOptions& options = {});

// How a missing directory will be made.
enum class Parents {
  kMade,      // with its missing parents (mkdir -p): the nearest existing part must take entries
  kMustExist  // only its last part: its parent must exist (a typo in a parent is refused)
};

// Whether files can be written in the directory `path`: an existing one must
// be a directory that takes new entries; a missing one is made later, so the
// nearest existing ancestor (Parents::kMade) or its parent (kMustExist) must
// be a directory that takes new entries (access(2); nothing is created). "is
// not a directory", "cannot create it in /x: Permission denied", "cannot
// create it in /x: No such file or directory (only its last part is made)".
std::optional<OutputError> CheckOutputDirectory(const std::string& path,
                                                Parents parents = Parents::kMade);

}  // namespace tether::io
