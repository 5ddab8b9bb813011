// Reading an input file the way every Tether command does (lib/io).
//
// Rules of use:
//  - Every command that reads a file its user named (a trace, a graph, a
//    model, a pipeline, a secret file, a job) reads it through ReadInputFile,
//    never through std::ifstream: an ifstream blocks forever on a FIFO, throws
//    or reads nothing on a directory, and reads /dev/zero until memory runs out.
//  - ReadInputFile refuses anything that is not a regular file (directory,
//    FIFO, socket, character or block device) before it could block, and reads
//    at most a size cap (MaxInputBytes(): 256 MiB unless TETHER_MAX_INPUT_BYTES
//    says otherwise; a caller may pass its own cap in ReadOptions).
//  - The error names the file and says what is wrong; show it as
//    `ReadError::ToString()`, "FILE: error: MESSAGE", the form of every Tether
//    diagnostic without a line.
//
// This library depends on nothing else of Tether, so the worker, the tool and
// the fuzz targets can all use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tether::io {

// The default cap on one input file: 256 MiB.
inline constexpr std::uint64_t kDefaultMaxInputBytes = std::uint64_t{256} << 20;

// The environment variable that overrides the default cap, in bytes (a
// decimal whole number, optionally followed by KiB, MiB or GiB).
inline constexpr const char* kMaxInputBytesEnv = "TETHER_MAX_INPUT_BYTES";

// Why a file could not be read. `file` is the path as the caller gave it.
struct ReadError {
  std::string file;
  std::string message;  // e.g. "is a directory, not a file"
  // "FILE: error: MESSAGE".
  std::string ToString() const { return file + ": error: " + message; }
};

struct ReadOptions {
  // The most bytes to accept; 0 means MaxInputBytes().
  std::uint64_t max_bytes = 0;
};

// The cap in force: TETHER_MAX_INPUT_BYTES when it is set and valid, else
// kDefaultMaxInputBytes. An invalid value is reported by ReadInputFile (so a
// typo never silently means "no limit").
std::uint64_t MaxInputBytes();

// Reads the whole of the regular file at `path` into *contents (replacing it).
// Returns nothing on success, else the reason, with *contents left empty.
// Never blocks on a FIFO or device, never throws (except std::bad_alloc).
std::optional<ReadError> ReadInputFile(const std::string& path, std::string* contents,
                                       const ReadOptions& options = {});

// The checks ReadInputFile makes before it reads (a name, a regular file that
// opens, within the cap), without reading: a command checks the files its
// options name before its work starts (lib/cli's InputFile).
std::optional<ReadError> CheckInputFile(const std::string& path);

// The same checks and cap, but the bytes are handed to sink in chunks as they
// are read (with st_size as a hint, 0 when unknown), so a large file never
// sits in memory whole. sink returns false to stop reading early. A ReadError
// may come after some chunks were handed over (a read error, the cap).
std::optional<ReadError> ReadInputFileChunks(
    const std::string& path, const std::function<bool(std::string_view, std::uint64_t)>& sink,
    const ReadOptions& options = {});

// A 1-based line and column (in bytes) in a text.
struct TextPosition {
  std::size_t line = 1;
  std::size_t column = 1;
};

// The line and column of the byte at `offset` in `text` (an offset past the
// end is the position just after the last byte). Lines end at '\n'.
TextPosition PositionAt(std::string_view text, std::size_t offset);

// PositionAt as "LINE:COL", for "FILE:LINE:COL: error: ..." messages.
std::string LineColumnAt(std::string_view text, std::size_t offset);

// The JSON nesting depth every JSON reader of Tether accepts: deeper input is
// refused before parsing, so that no recursive walk of it can overflow the
// stack.
inline constexpr std::size_t kMaxJsonDepth = 256;

// Scans JSON text (strings and escapes respected, nothing else validated) and
// returns the byte offset of the first '[' or '{' that opens a level deeper
// than `max_depth`, or nothing when the text stays within it. Works on one
// document or on JSON Lines alike.
std::optional<std::size_t> FindJsonTooDeep(std::string_view text,
                                           std::size_t max_depth = kMaxJsonDepth);

}  // namespace tether::io
