// Analyze: finds zombies (tasks running after their scope ended, plus grace),
// leaks (tasks running at exit that no ended scope owns) and task groups
// destroyed without Wait, from a loaded Trace.
#include <algorithm>
#include <set>
#include <tuple>

#include "tether/trace/model.hpp"
#include "tether/trace/saturate.hpp"
#include "tether/trace_writer/process_ids.hpp"
#include "trace_reader.hpp"

namespace tether::trace {
namespace {

// Contexts a chain walk visits at most (guards against a corrupt cycle).
constexpr std::size_t kMaxChain = 256;

bool IsRootKind(const std::string& kind) {
  return kind == "background" || kind == "todo" || kind == "without_cancel";
}

// The program's end: the exit record, else when its parent saw it end, else
// the last event.
std::int64_t TraceEnd(const Trace& t, const AnalysisOptions& options) {
  if (t.end_ns) return *t.end_ns;
  if (options.program_end_ns) return *options.program_end_ns;
  std::int64_t end = t.start_ns;
  for (const auto& [id, c] : t.contexts) end = std::max({end, c.created_ns, c.done_ns.value_or(0)});
  for (const auto& [id, k] : t.tasks) {
    end = std::max({end, k.spawn_ns, k.start_ns.value_or(0), k.end_ns.value_or(0)});
  }
  for (const auto& [id, g] : t.groups) {
    end = std::max({end, g.created_ns, g.wait_begin_ns.value_or(0), g.wait_end_ns.value_or(0)});
  }
  for (const auto& [id, s] : t.scopes) end = std::max({end, s.begin_ns, s.end_ns.value_or(0)});
  return end;
}

std::vector<std::uint64_t> ChainOf(const Trace& t, std::uint64_t ctx) {
  std::vector<std::uint64_t> chain;
  std::set<std::uint64_t> seen;
  while (ctx != 0 && chain.size() < kMaxChain && seen.insert(ctx).second) {
    chain.push_back(ctx);
    auto it = t.contexts.find(ctx);
    if (it == t.contexts.end()) break;
    ctx = it->second.parent;
  }
  return chain;
}

// Where the chain stopped leading to the scope: the first root-like context
// walking up from the task, else the top of the chain (a child of the shared
// Background()/TODO(), which have id 0).
std::optional<std::uint64_t> CutOf(const Trace& t, const std::vector<std::uint64_t>& chain,
                                   std::uint64_t scope) {
  if (chain.empty() || scope == 0) return std::nullopt;
  auto s = t.scopes.find(scope);
  if (s != t.scopes.end() && std::find(chain.begin(), chain.end(), s->second.ctx) != chain.end()) {
    return std::nullopt;
  }
  for (std::uint64_t id : chain) {
    auto it = t.contexts.find(id);
    if (it != t.contexts.end() && IsRootKind(it->second.kind)) return id;
  }
  return chain.back();
}

// The scope a task is charged to, and whether it got there detached: its
// context's scope; else the scope its spawner worked for (detached_from);
// else, for a task spawned by another task, that task's scope (detached).
std::pair<std::uint64_t, bool> ChargedScope(const Trace& t, const TaskRecord& task) {
  if (task.scope != 0) return {task.scope, false};
  if (task.detached_from != 0) return {task.detached_from, true};
  std::uint64_t parent = task.parent_task;
  for (std::size_t depth = 0; parent != 0 && depth < kMaxChain; ++depth) {
    auto it = t.tasks.find(parent);
    if (it == t.tasks.end()) break;
    if (it->second.scope != 0) return {it->second.scope, true};
    if (it->second.detached_from != 0) return {it->second.detached_from, true};
    parent = it->second.parent_task;
  }
  return {0, false};
}

// A plain thread that ended and that nobody joined or detached by the time
// the program exited. Only a complete trace says so: a killed program's
// threads may have been about to be joined.
// (A child process's thread: only a child whose exit was recorded.)
bool FinishedNeverJoined(const Trace& t, const TaskRecord& task, std::int64_t process) {
  if (task.kind != "thread" || !task.end_ns || task.joined || task.detached_thread) return false;
  if (process == 0) return !t.truncated && t.end_ns.has_value();
  auto p = t.processes.find(process);
  return p != t.processes.end() && p->second.exit_status.has_value();
}

// A child process whose end nothing recorded and that wrote no part of its
// own: it never exec'd a traced program (a shell's subshell, a forked
// worker) and nothing traced reaped it (killed with its process group, its
// parent gone first). Whether it still ran when its scope or the program
// ended is not known, so it is no finding.
bool EndUnknown(const Trace& t, const TaskRecord& task) {
  return task.kind == "process" && !task.end_ns && t.processes.count(ProcessOfTask(task.id)) == 0;
}

// A child process's end is recorded when a wait reaps it, which may be a
// scheduling delay after it died (another thread's waitpid returns, then
// writes): one reaped within this of its scope's end is taken to have ended
// in time (a 9 µs "zombie" was seen: a service killed before its build's
// scope ended, reaped by a waiting task that wrote after the end).
constexpr std::int64_t kProcessEndSlackNs = 10'000'000;  // 10 ms

std::int64_t GraceOf(const TaskRecord& task, const AnalysisOptions& options) {
  return task.kind == "process" ? SaturatingAdd(options.grace_ns, kProcessEndSlackNs)
                                : options.grace_ns;
}

// When a child process ended (*end): its exit record, else its reap by its
// parent (its `process` task's end); false while it may still have been
// running.
bool ProcessEnd(const Trace& t, std::int64_t process, std::int64_t* end) {
  auto p = t.processes.find(process);
  if (p != t.processes.end() && p->second.end_ns) {
    *end = *p->second.end_ns;
    return true;
  }
  auto task = t.tasks.find(detail::ProcessTaskId(process));
  if (task != t.tasks.end() && task->second.end_ns) {
    *end = *task->second.end_ns;
    return true;
  }
  return false;
}

// The task or thread that ended its own scope: it ran on the thread that
// ended the scope, at that moment (`std::thread([&] { request->End(); })`, a
// handler thread that destroys its request's scope as it finishes). It was
// necessarily running when the scope ended, so it is no zombie when it then
// ends; one that goes on running is.
bool ClosedItsScope(const TaskRecord& task, const ScopeRecord& scope) {
  return scope.ended_on_thread != 0 && task.thread == scope.ended_on_thread && task.start_ns &&
         task.end_ns && scope.end_ns && *task.start_ns <= *scope.end_ns &&
         *scope.end_ns <= *task.end_ns;
}

std::tuple<std::string, int> SiteKey(const Trace& t, const Finding& f) {
  if (f.kind == FindingKind::kUnwaitedGroup) {
    auto g = t.groups.find(f.group);
    if (g != t.groups.end()) return {g->second.site.file, g->second.site.line};
    return {"", 0};
  }
  auto k = t.tasks.find(f.task);
  if (k != t.tasks.end()) return {k->second.site.file, k->second.site.line};
  return {"", 0};
}

}  // namespace

std::vector<Finding> Analyze(const Trace& trace, const AnalysisOptions& options) {
  return detail::AnalyzeUntil(trace, options, TraceEnd(trace, options));
}

std::vector<Finding> detail::AnalyzeUntil(const Trace& trace, const AnalysisOptions& options,
                                          std::int64_t trace_end) {
  std::vector<Finding> findings;

  for (const auto& [id, task] : trace.tasks) {
    if (task.spawn_ns == 0 && task.site.file.empty() && task.end_ns) continue;  // spawn lost, ended
    if (EndUnknown(trace, task)) continue;
    const auto [scope, detached] = ChargedScope(trace, task);
    auto s = scope != 0 ? trace.scopes.find(scope) : trace.scopes.end();
    const bool scope_ended = s != trace.scopes.end() && s->second.end_ns.has_value();

    Finding f;
    f.task = id;
    f.group = task.group;
    f.scope = scope;
    f.detached = detached;
    f.ended = task.end_ns.has_value();
    f.process = RanIn(trace, task);
    // A child's thread still running when its process exited ended there.
    std::int64_t process_end = 0;
    const bool ended_with_process =
        f.process != 0 && !task.end_ns && ProcessEnd(trace, f.process, &process_end);
    const std::int64_t grace = GraceOf(task, options);
    if (scope_ended && task.end_ns &&
        (*task.end_ns <= SaturatingAdd(*s->second.end_ns, grace) ||
         ClosedItsScope(task, s->second))) {
      if (!FinishedNeverJoined(trace, task, f.process)) continue;  // ended in time
      f.kind = FindingKind::kUnjoinedThread;
    } else if (scope_ended &&
               !(ended_with_process && process_end <= SaturatingAdd(*s->second.end_ns, grace))) {
      const std::int64_t scope_end = *s->second.end_ns;
      f.kind = FindingKind::kZombie;
      // A task still running when its scope ended outlived it by at least
      // nothing, whatever the trace's (possibly hostile) times say.
      f.outlived_ns = std::max<std::int64_t>(
          0, SaturatingSub(task.end_ns.value_or(ended_with_process ? process_end : trace_end),
                           scope_end));
    } else if (task.end_ns) {
      if (!FinishedNeverJoined(trace, task, f.process)) continue;
      f.kind = FindingKind::kUnjoinedThread;
    } else {
      f.kind = FindingKind::kLeak;
    }
    f.context_chain = ChainOf(trace, task.ctx);
    f.cut_at = CutOf(trace, f.context_chain, scope);
    findings.push_back(std::move(f));
  }

  for (const auto& [id, group] : trace.groups) {
    if (!group.destroyed_unwaited) continue;
    Finding f;
    f.kind = FindingKind::kUnwaitedGroup;
    f.group = id;
    auto c = trace.contexts.find(group.ctx);
    if (c != trace.contexts.end()) f.scope = c->second.scope;
    f.context_chain = ChainOf(trace, group.ctx);
    findings.push_back(std::move(f));
  }

  // Stable, readable order: by kind, then spawn site, then time.
  auto begin_of = [&](const Finding& f) -> std::int64_t {
    auto k = trace.tasks.find(f.task);
    if (k != trace.tasks.end()) return k->second.spawn_ns;
    auto g = trace.groups.find(f.group);
    return g != trace.groups.end() ? g->second.created_ns : 0;
  };
  std::stable_sort(findings.begin(), findings.end(), [&](const Finding& a, const Finding& b) {
    auto ka = std::make_tuple(static_cast<int>(a.kind), SiteKey(trace, a), begin_of(a), a.task);
    auto kb = std::make_tuple(static_cast<int>(b.kind), SiteKey(trace, b), begin_of(b), b.task);
    return ka < kb;
  });
  return findings;
}

}  // namespace tether::trace
