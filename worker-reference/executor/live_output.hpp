// The worker's live output: log lines prefixed "[build/step] " on stdout,
// and, when stdout is a terminal, a progress block of one line per step of
// the running builds, redrawn below the log lines. Thread-safe: every
// stream task of every build writes here.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tether/worker/build_status.hpp"

namespace tether::worker::executor {

class LiveOutput {
 public:
  // lines: print log lines; progress: draw the progress block (a TTY).
  LiveOutput(std::FILE* out, bool lines, bool progress);
  bool lines() const { return lines_; }

  // Complete lines, already prefixed.
  void Write(std::string_view text);
  // A step's or service's status changed (progress block only).
  void SetStatus(const std::string& build, const std::string& name, std::string_view status);
  // A step or service ended and its log is complete: one result line,
  // "[build/name] text".
  void ContainerDone(const std::string& build, const std::string& name, std::string_view text);
  // A build finished: its rows leave the progress block; one summary line.
  void BuildDone(const std::string& build, BuildStatus status, std::string_view detail);

 private:
  struct Row {
    std::string build, name, status;
  };
  void ClearBlockLocked();
  void DrawBlockLocked();

  std::mutex mu_;
  std::FILE* out_;  // guarded by mu_
  const bool lines_;
  const bool progress_;
  std::vector<Row> rows_;  // guarded by mu_
  std::size_t drawn_ = 0;  // rows on screen; guarded by mu_
};

}  // namespace tether::worker::executor
