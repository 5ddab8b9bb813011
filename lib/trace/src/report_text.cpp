// The text report: one block per spawn site, the first finding in full and
// "N more like this" for its repeats, then a summary.
#include <algorithm>
#include <csignal>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "report_common.hpp"
#include "tether/trace/report.hpp"

namespace tether::trace {
namespace {

using detail::DisplayPath;
using detail::FindingGroup;
using detail::ShortFunction;

constexpr const char* kRule = "==================";

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

std::string TaskName(const TaskRecord& t) { return t.name.empty() ? "(unnamed)" : t.name; }

std::string ScopeName(const Trace& trace, std::uint64_t scope) {
  auto it = trace.scopes.find(scope);
  if (it == trace.scopes.end()) return "#" + std::to_string(scope);
  return Quote(it->second.name.empty() ? "#" + std::to_string(scope) : it->second.name);
}

std::string SiteText(const Site& site, const std::string& dir) {
  if (site.file.empty()) return "(unknown site: its event was lost)";
  std::string out = DisplayPath(site.file, dir) + ":" + std::to_string(site.line);
  if (!site.function.empty()) out += " in " + ShortFunction(site.function);
  return out;
}

std::string Plural(std::size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

void WriteChain(std::ostream& out, const ReportInput& in, const Finding& f) {
  const Trace& trace = *in.trace;
  if (f.context_chain.empty()) {
    auto t = trace.tasks.find(f.task);
    if (t != trace.tasks.end() && t->second.ctx == 0 && t->second.kind.empty()) {
      out << "  context: Background() or TODO() itself (a root: nothing can cancel the task)\n";
    }
    return;
  }
  out << "  context chain, task to root:\n";
  for (std::uint64_t id : f.context_chain) {
    auto it = trace.contexts.find(id);
    out << "    ";
    if (it == trace.contexts.end()) {
      out << "#" << id << " (not in the trace)\n";
      continue;
    }
    const ContextRecord& c = it->second;
    std::string kind = c.kind;
    kind.resize(std::max<std::size_t>(kind.size(), 14), ' ');
    out << kind << " " << SiteText(c.site, in.relative_to);
    if (f.cut_at && *f.cut_at == id) {
      out << "\n      ^ chain cut here: ";
      if (c.kind == "background" || c.kind == "todo" || c.kind == "without_cancel") {
        out << "a root context (" << c.kind << ")";
      } else {
        out << "derived from a root context (Background/TODO)";
      }
      out << ", so the task is not tied to scope " << ScopeName(trace, f.scope);
    }
    out << "\n";
  }
}

// `thread`, or `thread "io-poller"` once pthread_setname_np named it.
std::string ThreadLabel(const TaskRecord& task) {
  return task.thread_name.empty() ? "thread" : "thread " + Quote(task.thread_name);
}

// What a finding's task is: a thread, a child process, or a libtether task.
std::string TaskLabel(const Trace& trace, const TaskRecord& task) {
  if (task.kind == "thread") return ThreadLabel(task);
  if (task.kind == "process") return detail::ProcessLabel(trace, detail::PidOf(task));
  return "task " + Quote(TaskName(task));
}

// Whose exit a leak was still running at: the program's, or (a child
// process's thread) that process's.
std::string ExitedWhat(const Trace& trace, const Finding& f) {
  if (f.process != 0) return detail::ProcessLabel(trace, f.process) + " exited";
  return std::string("the program ") + (trace.truncated ? "stopped tracing" : "exited");
}

// The rest of a leaked thread's first line: its pthread state, and its
// scope (a child process's thread: the lines below say where the process
// was started, and in which scope).
void WriteThreadState(std::ostream& out, const Trace& trace, const Finding& f,
                      const TaskRecord& task) {
  if (task.detached_thread) {
    out << "; it was detached";
  } else if (task.join_waiting) {
    out << "; a join was waiting for it (the thread did not stop)";
  } else if (trace.terminate_called && f.process == 0) {
    out << "; it was never joined nor detached, and std::terminate ran (a std::thread "
           "destroyed while joinable terminates the program: join or detach it)";
  } else {
    out << "; it was never joined nor detached";
  }
  if (f.process != 0) {
    out << "\n";
  } else if (f.scope != 0) {
    out << "; its scope " << ScopeName(trace, f.scope) << " never ended\n";
  } else {
    out << "; it belongs to no scope\n";
  }
}

// The finding's first line: ZOMBIE or LEAK, what outlived what.
void WriteTaskHeadline(std::ostream& out, const Trace& trace, const Finding& f,
                       const TaskRecord& task) {
  if (f.kind == FindingKind::kUnjoinedThread) {
    out << "UNJOINED: " << ThreadLabel(task)
        << " finished but was never joined nor detached before the program "
           "exited (its stack and pthread record stay allocated; ThreadSanitizer calls this a "
           "thread leak): join it, or detach it\n";
  } else if (f.kind == FindingKind::kZombie) {
    out << "ZOMBIE: " << TaskLabel(trace, task) << " outlived its scope "
        << ScopeName(trace, f.scope) << " by " << FormatReportDuration(f.outlived_ns);
    if (f.ended) {
      out << " (then ended: " << (task.result.empty() ? "ok" : task.result) << ")\n";
    } else if (auto p = trace.processes.find(f.process);
               p != trace.processes.end() && p->second.end_ns) {
      out << " and never ended (still running when " << ExitedWhat(trace, f) << ")\n";
    } else {
      out << " and never ended (still running when the trace ended)\n";
    }
  } else if (task.kind == "process") {
    out << "LEAK: " << TaskLabel(trace, task) << " was still running when " << ExitedWhat(trace, f)
        << ", and nothing had waited for it (waitpid)";
    if (f.scope != 0) {
      out << "; its scope " << ScopeName(trace, f.scope) << " never ended\n";
    } else {
      out << "; it belongs to no scope\n";
    }
  } else if (task.kind == "thread") {
    out << "LEAK: " << ThreadLabel(task) << " was still running when " << ExitedWhat(trace, f);
    WriteThreadState(out, trace, f, task);
  } else {
    out << "LEAK: task " << Quote(TaskName(task)) << " was still running when the program "
        << (trace.truncated ? "stopped tracing" : "exited");
    if (f.scope != 0) {
      out << "; its scope " << ScopeName(trace, f.scope) << " never ended\n";
    } else {
      out << "; it belongs to no scope\n";
    }
  }
}

// "N more like this": the other members of the group, their scopes and how long
// the worst outlived its scope.
void WriteMoreLikeThis(std::ostream& out, const Trace& trace, const FindingGroup& group) {
  const Finding& f = *group.members.front();
  std::set<std::string> scopes;
  std::int64_t most = 0;
  std::size_t never_ended = 0;
  for (std::size_t i = 1; i < group.members.size(); ++i) {
    const Finding* m = group.members[i];
    if (m->scope != 0) scopes.insert(ScopeName(trace, m->scope));
    most = std::max(most, m->outlived_ns);
    if (!m->ended) ++never_ended;
  }
  out << "  " << (group.members.size() - 1) << " more like this";
  if (!scopes.empty()) {
    out << " (" << Plural(scopes.size(), "scope", "scopes") << ": ";
    std::size_t shown = 0;
    for (const std::string& s : scopes) {
      if (shown == 4) {
        out << ", ...";
        break;
      }
      out << (shown++ ? ", " : "") << s;
    }
    out << ")";
  }
  if (f.kind == FindingKind::kZombie) {
    out << "; outlived by up to " << FormatReportDuration(most);
    if (never_ended) out << "; " << never_ended << " never ended";
  }
  out << "\n";
}

// A thread created inside a libtether task: the task that created it (its
// spawn site says where the task came from; the thread's callers are the
// runtime's frames above the task's body).
void WriteCreatingTask(std::ostream& out, const ReportInput& in, const TaskRecord& thread) {
  const TaskRecord* task = detail::CreatingTask(*in.trace, thread);
  if (task == nullptr) return;
  out << "  created by task " << Quote(TaskName(*task)) << " spawned at "
      << SiteText(task->site, in.relative_to) << "\n";
}

// A child process's thread: which process, and where the program (or the
// child that started it) started that process.
void WriteInProcess(std::ostream& out, const ReportInput& in, const Finding& f) {
  if (f.process == 0) return;
  out << "  in " << detail::ProcessLabel(*in.trace, f.process);
  if (const TaskRecord* process = detail::ProcessTask(*in.trace, f.process)) {
    const auto p = in.trace->processes.find(f.process);
    if (process->site.file.empty() && p != in.trace->processes.end() &&
        in.trace->processes.count(p->second.parent_pid) != 0) {
      // No site of its start: its parent started it without a record (a
      // shell's vfork) or has no symbols (a shell). The parent, and where
      // that one was started.
      out << ", started by " << detail::ProcessLabel(*in.trace, p->second.parent_pid);
      if (const TaskRecord* parent = detail::ProcessTask(*in.trace, p->second.parent_pid);
          parent != nullptr && !parent->site.file.empty())
        out << " that was started at " << SiteText(parent->site, in.relative_to);
    } else {
      out << ", started at " << SiteText(process->site, in.relative_to);
    }
  }
  out << "\n";
}

// Where the thread was running when its scope ended with it still running
// (or at exit): goleak's current stack, the program's own frames of it.
void WriteRunningAt(std::ostream& out, const ReportInput& in, const Finding& f,
                    const TaskRecord& task) {
  if (task.running_at.empty()) return;
  out << "  running at " << SiteText(task.running_at.front(), in.relative_to);
  const auto s = in.trace->scopes.find(f.scope);
  if (s != in.trace->scopes.end() && s->second.end_ns && task.running_ns >= *s->second.end_ns) {
    out << ", " << FormatReportDuration(task.running_ns - *s->second.end_ns) << " after scope "
        << ScopeName(*in.trace, f.scope) << " ended";
  } else {
    out << (f.process != 0 ? ", when " + detail::ProcessLabel(*in.trace, f.process) + " exited"
                           : std::string(", when the program ended"));
  }
  out << "\n";
  for (std::size_t i = 1; i < task.running_at.size(); ++i) {
    out << "    called from " << SiteText(task.running_at[i], in.relative_to) << "\n";
  }
}

void WriteTaskFinding(std::ostream& out, const ReportInput& in, const FindingGroup& group) {
  const Trace& trace = *in.trace;
  const Finding& f = *group.members.front();
  const TaskRecord& task = trace.tasks.at(f.task);
  out << kRule << "\n";
  WriteTaskHeadline(out, trace, f, task);
  out << "  spawned at " << SiteText(task.site, in.relative_to) << "\n";
  for (const Site& caller : task.callers) {
    out << "    called from " << SiteText(caller, in.relative_to) << "\n";
  }
  WriteCreatingTask(out, in, task);
  WriteInProcess(out, in, f);
  // Where it was detached, when that is another line than its creation
  // (`tether check` reports a detached thread at its detach() call).
  if (!task.detach_site.file.empty() &&
      (task.detach_site.file != task.site.file || task.detach_site.line != task.site.line)) {
    out << "  detached at " << SiteText(task.detach_site, in.relative_to) << "\n";
  }
  WriteRunningAt(out, in, f, task);
  if (f.scope != 0) {
    auto s = trace.scopes.find(f.scope);
    out << "  scope " << ScopeName(trace, f.scope);
    if (s != trace.scopes.end()) out << " began at " << SiteText(s->second.site, in.relative_to);
    out << "\n";
  }
  if (f.detached) {
    auto s = trace.scopes.find(f.scope);
    const bool after_end =
        s != trace.scopes.end() && s->second.end_ns && task.spawn_ns > *s->second.end_ns;
    if (task.kind == "process") {
      out << "  started by a thread charged to scope " << ScopeName(trace, f.scope)
          << " (wait for the process, or stop it, before the scope ends)\n";
    } else if (f.process != 0 && f.kind == FindingKind::kLeak) {
      // Its own process left it running: the first line says so.
    } else if (f.process != 0) {
      out << "  in a process started while scope " << ScopeName(trace, f.scope)
          << " was running (wait for the process, or stop it, before the scope ends)\n";
    } else if (task.kind == "thread") {
      out << "  created by a thread charged to scope " << ScopeName(trace, f.scope)
          << (after_end ? ", after the scope had ended" : ", while the scope was running")
          << " (stop or join it before the scope ends)\n";
    } else if (after_end) {
      // Charged through its spawner (a task of the scope that outlived it):
      // the scope was not running then, so the line to fix is the spawner's.
      out << "  detached: spawned with a root context after scope " << ScopeName(trace, f.scope)
          << " had ended, by a task charged to it (stop that task when the scope ends)\n";
    } else {
      out << "  detached: spawned with a root context while scope " << ScopeName(trace, f.scope)
          << " was running (pass the scope's context, or justify with tether:detached)\n";
    }
  }
  if (task.group != 0) {
    auto g = trace.groups.find(task.group);
    if (g != trace.groups.end()) {
      out << "  in task group created at " << SiteText(g->second.site, in.relative_to);
      if (g->second.destroyed_unwaited)
        out << " (destroyed without Wait)";
      else if (!g->second.wait_begin_ns)
        out << " (never waited)";
      out << "\n";
    }
  }
  WriteChain(out, in, f);
  if (group.members.size() > 1) WriteMoreLikeThis(out, trace, group);
}

// Findings --ignore dropped are counted, never silently gone.
void WriteIgnored(std::ostream& out, const ReportInput& in) {
  if (in.ignored == 0) return;
  out << "ignored: " << Plural(in.ignored, "finding", "findings")
      << " dropped by --ignore, --ignore-top or --ignore-running\n";
}

void WriteGroupFinding(std::ostream& out, const ReportInput& in, const FindingGroup& group) {
  const Trace& trace = *in.trace;
  const Finding& f = *group.members.front();
  const GroupRecord& g = trace.groups.at(f.group);
  out << kRule << "\n";
  out << "UNWAITED GROUP: a task group was destroyed without Wait() while "
      << Plural(g.running_at_destroy, "task was", "tasks were") << " running\n";
  out << "  created at " << SiteText(g.site, in.relative_to) << "\n";
  if (f.scope != 0) out << "  in scope " << ScopeName(trace, f.scope) << "\n";
  out << "  its destructor cancelled and joined them: call Wait() (and handle its error) where "
         "the group's work is done\n";
  if (group.members.size() > 1) out << "  " << (group.members.size() - 1) << " more like this\n";
}

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

}  // namespace

// "1 zombie thread", "2 zombie tasks", "3 zombies (1 thread, 2 tasks)",
// "2 leaked (1 thread, 1 task)": threads and tasks counted apart.
std::string CountOf(std::size_t threads, std::size_t tasks, const std::string& what,
                    const std::string& what_plural) {
  if (threads == 0) return Plural(tasks, what + " task", what + " tasks");
  if (tasks == 0) return Plural(threads, what + " thread", what + " threads");
  return Plural(threads + tasks, what, what_plural) + " (" + Plural(threads, "thread", "threads") +
         ", " + Plural(tasks, "task", "tasks") + ")";
}

void WriteTextReport(std::ostream& out, const ReportInput& in) {
  const Trace& trace = *in.trace;
  auto groups = detail::GroupBySite(trace, *in.findings);
  std::size_t zombies = 0, leaks = 0, unwaited = 0, unjoined = 0;
  std::size_t zombie_threads = 0, leaked_threads = 0;
  std::size_t zombie_sites = 0, leak_sites = 0;
  auto threads_in = [&](const auto& g) {
    return static_cast<std::size_t>(
        std::count_if(g.members.begin(), g.members.end(), [&](const Finding* f) {
          auto t = trace.tasks.find(f->task);
          return t != trace.tasks.end() && t->second.kind == "thread";
        }));
  };
  for (const auto& g : groups) {
    if (g.kind == FindingKind::kZombie) zombies += g.members.size(), ++zombie_sites;
    if (g.kind == FindingKind::kLeak) leaks += g.members.size(), ++leak_sites;
    if (g.kind == FindingKind::kZombie) zombie_threads += threads_in(g);
    if (g.kind == FindingKind::kLeak) leaked_threads += threads_in(g);
    if (g.kind == FindingKind::kUnwaitedGroup) unwaited += g.members.size();
    if (g.kind == FindingKind::kUnjoinedThread) unjoined += g.members.size();
  }
  for (const auto& g : groups) {
    if (g.kind == FindingKind::kUnwaitedGroup) {
      WriteGroupFinding(out, in, g);
    } else {
      WriteTaskFinding(out, in, g);
    }
  }
  if (!groups.empty()) out << kRule << "\n";

  if (trace.lost_events > 0) {
    out << "warning: " << trace.lost_events
        << " trace events were lost (could not be written); findings may be incomplete\n";
  }
  if (trace.truncated) {
    out << "warning: the trace has no exit record (the program crashed, was killed or called "
           "_exit); tasks running at its end are reported as leaks\n";
  }
  out << "program: " << in.program.command;
  if (in.program.signal) {
    out << ": killed by " << SignalName(*in.program.signal) << "\n";
  } else if (in.program.status) {
    out << ": exited with status " << *in.program.status << "\n";
  } else {
    out << "\n";
  }
  out << "SUMMARY: ";
  if (groups.empty()) {
    const std::size_t all = std::max(trace.task_count, trace.tasks.size());
    const std::size_t threads = std::min(trace.thread_count, all);
    const std::size_t processes = std::min(trace.process_count, all - threads);
    // "3 tasks", "2 threads", "3 tasks and 2 threads", "1 thread and 1 process".
    std::vector<std::string> parts;
    if (all - threads - processes > 0 || all == 0)
      parts.push_back(Plural(all - threads - processes, "task", "tasks"));
    if (threads > 0) parts.push_back(Plural(threads, "thread", "threads"));
    if (processes > 0) parts.push_back(Plural(processes, "process", "processes"));
    std::string counted;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      counted += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    }
    out << "no zombie tasks, no leaks, no unwaited groups (" << counted << " in "
        << Plural(trace.scopes.size(), "scope", "scopes") << ", grace "
        << FormatReportDuration(in.grace_ns) << ")\n";
    WriteIgnored(out, in);
    return;
  }
  out << CountOf(zombie_threads, zombies - zombie_threads, "zombie", "zombies") << " at "
      << Plural(zombie_sites, "spawn site", "spawn sites") << ", "
      << CountOf(leaked_threads, leaks - leaked_threads, "leaked", "leaked") << " at "
      << Plural(leak_sites, "spawn site", "spawn sites") << ", "
      << Plural(unwaited, "task group", "task groups") << " destroyed without Wait";
  if (unjoined > 0) {
    out << ", " << Plural(unjoined, "finished thread", "finished threads") << " never joined";
  }
  out << " (grace " << FormatReportDuration(in.grace_ns) << ")\n";
  WriteIgnored(out, in);
}

}  // namespace tether::trace
