// The log of one step or service: secrets masked as *** in every line, a
// size limit that leaves a marker line, the log file in the build's result
// directory, and the live copy on the worker's stdout.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tether/error.hpp"

namespace tether::worker::executor {

class LiveOutput;

// Replaces every occurrence of a secret value in a line with ***.
// Longer secrets are masked first, so a secret that contains another is
// masked whole. A multi-line secret is masked line by line (its lines of
// four or more characters), since logs are masked one line at a time.
class Masker {
 public:
  Masker() = default;
  explicit Masker(const std::vector<std::string>& secret_values);
  bool empty() const { return needles_.empty(); }
  // The length of the longest needle (0 when empty).
  std::size_t longest() const { return needles_.empty() ? 0 : needles_.front().size(); }
  // The smallest split point p >= at such that no occurrence of a secret in
  // `text` starts before p and ends after it: text[0, p) and text[p, ...)
  // then mask exactly as text masks whole.
  std::size_t SafeSplit(std::string_view text, std::size_t at) const;
  // Appends line, masked, to *out.
  void AppendMasked(std::string_view line, std::string* out) const;
  std::string Mask(std::string_view line) const;

 private:
  std::vector<std::string> needles_;  // longest first
};

// One writer per container, used by one task at a time (the container's
// stream task; before or after it, the task that runs or destroys it).
class LogWriter {
 public:
  struct Options {
    std::string path;         // the log file (created, truncated)
    std::string live_prefix;  // "[build/step] " on the live output
    const Masker* masker = nullptr;
    std::uint64_t max_bytes = 0;  // 0: unlimited
    LiveOutput* live = nullptr;   // null: no live copy
  };
  static Error Open(Options options, std::unique_ptr<LogWriter>* out);
  ~LogWriter();
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;

  // Output of the process, any bytes; split into lines. Every complete line
  // is in the file when Write returns (a partial line waits for its newline).
  void Write(std::string_view data);
  // A line from the worker itself ("[tether-worker] ..."), never dropped.
  void Note(std::string_view line);
  // Flushes a final line without a newline, and closes. Idempotent.
  void Close();

  std::uint64_t bytes() const { return bytes_; }  // bytes of output kept in the file
  bool truncated() const { return truncated_; }
  // Without --max-log-size, longer lines are split into pieces of about this
  // size (each its own line in the file). With it, a line longer than a
  // quarter of the limit (at most this) is cut with a note and the rest of
  // the line dropped, so one long line cannot use up the log and the step's
  // later lines are kept. Masking comes first: a split or cut never falls
  // inside a secret, and the last longest-secret-minus-one bytes wait for the
  // next write, so a secret that is still arriving is masked whole too.
  static constexpr std::size_t kMaxLine = 1 << 20;

 private:
  explicit LogWriter(Options options, int fd) : options_(std::move(options)), fd_(fd) {}
  void EmitLine(std::string_view line);
  void SplitLongCarry();
  void CutLine(bool whole);
  std::size_t LineLimit() const;
  std::size_t Lookahead() const;
  void FlushFile();
  void AppendToFile(std::string_view bytes);
  void WriteAll(std::string_view bytes);

  Options options_;
  int fd_;
  std::string carry_;     // a partial line waiting for its newline
  std::string file_buf_;  // pending bytes for the file
  std::string live_buf_;  // pending lines for the live output
  std::uint64_t bytes_ = 0;
  bool truncated_ = false;
  bool dropping_ = false;  // the rest of a cut line is being dropped
  bool closed_ = false;
  bool writing_ = false;  // inside Write: its notes are flushed with its lines
};

}  // namespace tether::worker::executor
