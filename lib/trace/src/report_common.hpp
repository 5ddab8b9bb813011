// Shared by the text and JSON report writers: findings grouped by spawn site.
#pragma once

#include <string>
#include <vector>

#include "tether/trace/model.hpp"
#include "tether/trace/report.hpp"
#include "tether/trace_writer/site_rules.hpp"

namespace tether::trace::detail {

// Findings of one kind at one site (a task's spawn line, a group's creation
// line), in Analyze's order; the first is the one shown in full.
struct FindingGroup {
  FindingKind kind;
  Site site;
  std::vector<const Finding*> members;
};

std::vector<FindingGroup> GroupBySite(const Trace& trace, const std::vector<Finding>& findings);

// The site a finding is about.
Site SiteOf(const Trace& trace, const Finding& f);

// file made relative to dir when it lies under it.
std::string DisplayPath(const std::string& file, const std::string& dir);

// ShortFunction and EndsWithComponents: tether/trace_writer/site_rules.hpp.

const char* KindWord(FindingKind kind);

// The libtether task that created a thread (a thread's parent when it is a
// task, not another thread), or null.
const TaskRecord* CreatingTask(const Trace& trace, const TaskRecord& thread);

// A child process the program started: its `process` task (null when its
// start was not recorded: system(), popen()), its pid, and how reports name
// it, `process 4242 (helper --once)` (its command line after its exec, else
// what started it). The path is shown whole; arguments past 100 characters
// lose their middle to "...".
const TaskRecord* ProcessTask(const Trace& trace, std::int64_t pid);
std::int64_t PidOf(const TaskRecord& process);
std::string ProcessLabel(const Trace& trace, std::int64_t pid);

}  // namespace tether::trace::detail
