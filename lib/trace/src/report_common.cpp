#include "report_common.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "tether/trace_writer/process_ids.hpp"

namespace tether::trace::detail {

Site SiteOf(const Trace& trace, const Finding& f) {
  if (f.kind == FindingKind::kUnwaitedGroup) {
    auto g = trace.groups.find(f.group);
    return g != trace.groups.end() ? g->second.site : Site{};
  }
  auto t = trace.tasks.find(f.task);
  return t != trace.tasks.end() ? t->second.site : Site{};
}

std::vector<FindingGroup> GroupBySite(const Trace& trace, const std::vector<Finding>& findings) {
  std::vector<FindingGroup> groups;
  std::map<std::tuple<int, std::string, int>, std::size_t> index;
  for (const Finding& f : findings) {
    Site site = SiteOf(trace, f);
    auto key = std::make_tuple(static_cast<int>(f.kind), site.file, site.line);
    auto [it, inserted] = index.emplace(key, groups.size());
    if (inserted) groups.push_back(FindingGroup{f.kind, site, {}});
    groups[it->second].members.push_back(&f);
  }
  return groups;
}

std::string DisplayPath(const std::string& file, const std::string& dir) {
  if (dir.empty() || file.size() <= dir.size() + 1) return file;
  if (file.compare(0, dir.size(), dir) == 0 && file[dir.size()] == '/') {
    return file.substr(dir.size() + 1);
  }
  return file;
}

const char* KindWord(FindingKind kind) {
  switch (kind) {
    case FindingKind::kZombie:
      return "zombie";
    case FindingKind::kLeak:
      return "leak";
    case FindingKind::kUnwaitedGroup:
      return "unwaited_group";
    case FindingKind::kUnjoinedThread:
      return "unjoined_thread";
  }
  return "unknown";
}

const TaskRecord* CreatingTask(const Trace& trace, const TaskRecord& thread) {
  if (thread.kind != "thread" || thread.parent_task == 0) return nullptr;
  auto parent = trace.tasks.find(thread.parent_task);
  // A libtether task: not a thread nor a child process, nor the record of
  // one whose start was not recorded (a child's ids are from 2^48).
  if (parent == trace.tasks.end() || !parent->second.kind.empty() || parent->first >= kThreadIdBase)
    return nullptr;
  return &parent->second;
}

const TaskRecord* ProcessTask(const Trace& trace, std::int64_t pid) {
  auto it = trace.tasks.find(ProcessTaskId(pid));
  return it == trace.tasks.end() || it->second.kind != "process" ? nullptr : &it->second;
}

std::int64_t PidOf(const TaskRecord& process) {
  return process.thread != 0 ? static_cast<std::int64_t>(process.thread)
                             : ProcessOfTask(process.id);
}

std::string ProcessLabel(const Trace& trace, std::int64_t pid) {
  std::string program;
  if (auto p = trace.processes.find(pid); p != trace.processes.end()) program = p->second.program;
  if (program.empty())
    if (const TaskRecord* task = ProcessTask(trace, pid)) program = task->name;
  // The program's path is shown whole: it says which program this is. A long
  // list of arguments loses its middle: its start and its end are what tell
  // two children apart (`sh -c -- '/a/long/path/helper' --role`), and a cut
  // that kept only the start made what was shown depend on where a program
  // was installed.
  constexpr std::size_t kShownArguments = 100, kArgumentsEnd = 47;
  const std::size_t path_end = std::min(program.find(' '), program.size());
  if (program.size() - path_end > kShownArguments) {
    const std::size_t end_from = program.size() - kArgumentsEnd;
    program = program.substr(0, path_end + kShownArguments - kArgumentsEnd - 3) + "..." +
              program.substr(end_from);
  }
  return "process " + std::to_string(pid) + (program.empty() ? "" : " (" + program + ")");
}

}  // namespace tether::trace::detail

namespace tether::trace {

bool SiteMatches(const Site& site, const std::string& pattern) {
  return detail::FrameNamed(site.file, site.line, site.function, pattern);
}

std::size_t DropIgnored(const Trace& trace, const IgnoreRules& rules,
                        std::vector<Finding>* findings) {
  if (rules.created.empty() && rules.running_top.empty() && rules.running.empty()) return 0;
  auto named = [](const Site& site, const std::vector<std::string>& patterns) {
    return std::any_of(patterns.begin(), patterns.end(),
                       [&](const std::string& p) { return SiteMatches(site, p); });
  };
  auto any_named = [&](const std::vector<Site>& sites, const std::vector<std::string>& patterns) {
    return std::any_of(sites.begin(), sites.end(),
                       [&](const Site& s) { return named(s, patterns); });
  };
  auto ignored = [&](const Finding& f) {
    if (f.kind == FindingKind::kUnwaitedGroup) return false;
    auto t = trace.tasks.find(f.task);
    if (t == trace.tasks.end()) return false;
    const TaskRecord& task = t->second;
    if (named(task.site, rules.created) || any_named(task.callers, rules.created)) return true;
    if (!task.running_at.empty() && named(task.running_at.front(), rules.running_top)) return true;
    return any_named(task.running_at, rules.running);
  };
  const std::size_t before = findings->size();
  std::erase_if(*findings, ignored);
  return before - findings->size();
}

}  // namespace tether::trace
