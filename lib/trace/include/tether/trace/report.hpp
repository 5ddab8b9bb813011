// The report `tether trace` prints: findings grouped by spawn site (like
// TSan groups repeated reports), as text a person can act on or as JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tether/error.hpp"
#include "tether/trace/model.hpp"

namespace tether::trace {

// How the traced program ended, as the tool saw it.
struct ProgramOutcome {
  std::string command;                   // what was run, for the report
  std::optional<int> status;             // exit status, when it exited
  std::optional<int> signal;             // the signal that killed it
  std::optional<std::int64_t> ended_ns;  // when it ended (CLOCK_MONOTONIC), when run by the tool
  bool failed() const { return (status && *status != 0) || signal.has_value(); }
};

struct ReportInput {
  const Trace* trace = nullptr;
  const std::vector<Finding>* findings = nullptr;
  std::int64_t grace_ns = 0;
  std::string trace_path;
  ProgramOutcome program;
  // Paths under this directory are printed relative to it ("" keeps them).
  std::string relative_to;
  // Findings DropIgnored took out (--ignore): said in the summary.
  std::size_t ignored = 0;
};

// Whether a frame is the one `pattern` names: a function, written as the
// report writes it or by its last components ("PosixEnv::Schedule" names
// "leveldb::{anonymous}::PosixEnv::Schedule"), or FILE:LINE (FILE the path
// or its last components).
bool SiteMatches(const Site& site, const std::string& pattern);

// Which zombies and leaks to drop, by SiteMatches patterns (`tether trace
// --ignore`, `--ignore-top`, `--ignore-running`).
struct IgnoreRules {
  std::vector<std::string> created;      // the task's site or a caller of it (Task::callers)
  std::vector<std::string> running_top;  // the innermost frame of TaskRecord::running_at
  std::vector<std::string> running;      // any frame of TaskRecord::running_at
};

// Removes the zombies and leaks `rules` name; returns how many. For threads
// that live as long as the process by design (a lazily started background
// worker, which the first test to need it would be blamed for), named where
// they are made or where they wait (goleak's IgnoreTopFunction and
// IgnoreAnyFunction).
std::size_t DropIgnored(const Trace& trace, const IgnoreRules& rules,
                        std::vector<Finding>* findings);

void WriteTextReport(std::ostream& out, const ReportInput& in);
void WriteJsonReport(std::ostream& out, const ReportInput& in);

// A duration in a report: tether::FormatDuration (Go's) after rounding to the
// millisecond (to the microsecond below 1ms) so reports stay readable.
std::string FormatReportDuration(std::int64_t ns);

}  // namespace tether::trace
