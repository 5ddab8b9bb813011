// The JSON report: the same findings as the text report, for tools.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "report_common.hpp"
#include "tether/trace/report.hpp"

namespace tether::trace {
namespace {

using nlohmann::ordered_json;

ordered_json SiteJson(const Site& site, const std::string& dir) {
  ordered_json j;
  j["file"] = detail::DisplayPath(site.file, dir);
  j["line"] = site.line;
  j["func"] = site.function;
  return j;
}

// A child process the program started, as a finding's task: its pid and
// command line, and how it ended when its end was recorded.
ordered_json ProcessTaskJson(const Trace& trace, const TaskRecord& task) {
  const std::int64_t pid = detail::PidOf(task);
  ordered_json process = {{"pid", pid}, {"finished", task.end_ns.has_value()}};
  if (auto p = trace.processes.find(pid); p != trace.processes.end()) {
    process["program"] = p->second.program;
    if (p->second.exit_status) process["exit_status"] = *p->second.exit_status;
  }
  return process;
}

// The child process a thread ran in, and where that process was started.
ordered_json ProcessJson(const ReportInput& in, std::int64_t pid) {
  const Trace& trace = *in.trace;
  ordered_json process;
  process["pid"] = pid;
  if (auto p = trace.processes.find(pid); p != trace.processes.end()) {
    process["program"] = p->second.program;
    process["parent_pid"] = p->second.parent_pid;
    if (p->second.exit_status) process["exit_status"] = *p->second.exit_status;
  }
  // Absent when its start has no site (its parent started it without a
  // record, as a shell's vfork, or has no symbols): parent_pid says who did.
  if (const TaskRecord* started = detail::ProcessTask(trace, pid);
      started != nullptr && !started->site.file.empty()) {
    process["started_at"] = SiteJson(started->site, in.relative_to);
  }
  return process;
}

ordered_json FindingJson(const ReportInput& in, const Finding& f) {
  const Trace& trace = *in.trace;
  ordered_json j;
  j["kind"] = detail::KindWord(f.kind);
  if (f.task != 0) {
    auto t = trace.tasks.find(f.task);
    ordered_json task;
    task["id"] = f.task;
    if (t != trace.tasks.end()) {
      task["name"] = t->second.name;
      task["site"] = SiteJson(t->second.site, in.relative_to);
      if (!t->second.callers.empty()) {
        ordered_json callers = ordered_json::array();
        for (const Site& c : t->second.callers) callers.push_back(SiteJson(c, in.relative_to));
        task["callers"] = std::move(callers);
      }
      task["result"] = t->second.result;
      if (t->second.kind == "thread") {
        // A plain thread's own state (the finding's "detached" says whether a
        // task was spawned on a root context, which a thread never is).
        task["kind"] = "thread";
        if (!t->second.thread_name.empty()) task["name"] = t->second.thread_name;
        task["thread"] = {{"detached", t->second.detached_thread},
                          {"joined", t->second.joined},
                          {"join_waiting", t->second.join_waiting && !t->second.joined},
                          {"finished", t->second.end_ns.has_value()}};
        if (!t->second.detach_site.file.empty()) {
          task["thread"]["detached_at"] = SiteJson(t->second.detach_site, in.relative_to);
        }
        if (!t->second.running_at.empty()) {
          ordered_json running = ordered_json::array();
          for (const Site& s : t->second.running_at) running.push_back(SiteJson(s, in.relative_to));
          task["thread"]["running_at"] = std::move(running);
        }
      }
      if (t->second.kind == "process") {
        task["kind"] = "process";
        task["process"] = ProcessTaskJson(trace, t->second);
      }
      if (const TaskRecord* creator = detail::CreatingTask(trace, t->second)) {
        task["created_by"] = {{"id", creator->id},
                              {"name", creator->name},
                              {"site", SiteJson(creator->site, in.relative_to)}};
      }
    }
    j["task"] = task;
  }
  if (f.group != 0) {
    auto g = trace.groups.find(f.group);
    ordered_json group;
    group["id"] = f.group;
    if (g != trace.groups.end()) {
      group["site"] = SiteJson(g->second.site, in.relative_to);
      group["waited"] = g->second.wait_begin_ns.has_value();
      group["destroyed_unwaited"] = g->second.destroyed_unwaited;
      if (g->second.destroyed_unwaited) group["running_at_destroy"] = g->second.running_at_destroy;
    }
    j["group"] = group;
  }
  if (f.scope != 0) {
    auto s = trace.scopes.find(f.scope);
    ordered_json scope;
    scope["id"] = f.scope;
    if (s != trace.scopes.end()) {
      scope["name"] = s->second.name;
      scope["site"] = SiteJson(s->second.site, in.relative_to);
      scope["ended"] = s->second.end_ns.has_value();
    }
    j["scope"] = scope;
  }
  if (f.kind != FindingKind::kUnwaitedGroup) {
    j["detached"] = f.detached;
    j["ended"] = f.ended;
  }
  if (f.process != 0) j["process"] = ProcessJson(in, f.process);
  if (f.kind == FindingKind::kZombie) {
    j["outlived_ns"] = f.outlived_ns;
    j["outlived"] = FormatReportDuration(f.outlived_ns);
  }
  ordered_json chain = ordered_json::array();
  for (std::uint64_t id : f.context_chain) {
    ordered_json c;
    c["id"] = id;
    auto it = trace.contexts.find(id);
    if (it != trace.contexts.end()) {
      c["kind"] = it->second.kind;
      c["site"] = SiteJson(it->second.site, in.relative_to);
    }
    c["cut"] = f.cut_at && *f.cut_at == id;
    chain.push_back(c);
  }
  j["context_chain"] = chain;
  return j;
}

}  // namespace

void WriteJsonReport(std::ostream& out, const ReportInput& in) {
  const Trace& trace = *in.trace;
  ordered_json j;
  j["tool"] = "tether trace";
  ordered_json program;
  program["command"] = in.program.command;
  program["status"] = in.program.status ? ordered_json(*in.program.status) : ordered_json();
  program["signal"] = in.program.signal ? ordered_json(*in.program.signal) : ordered_json();
  j["program"] = program;
  j["trace"] = in.trace_path;
  j["grace_ns"] = in.grace_ns;
  std::size_t counts[4] = {0, 0, 0, 0};
  for (const Finding& f : *in.findings) ++counts[static_cast<int>(f.kind)];
  ordered_json summary;
  summary["zombies"] = counts[static_cast<int>(FindingKind::kZombie)];
  summary["leaks"] = counts[static_cast<int>(FindingKind::kLeak)];
  summary["unwaited_groups"] = counts[static_cast<int>(FindingKind::kUnwaitedGroup)];
  summary["unjoined_threads"] = counts[static_cast<int>(FindingKind::kUnjoinedThread)];
  summary["tasks"] = std::max(trace.task_count, trace.tasks.size());
  summary["scopes"] = trace.scopes.size();
  summary["lost_events"] = trace.lost_events;
  summary["truncated"] = trace.truncated;
  summary["ignored"] = in.ignored;  // dropped by --ignore
  j["summary"] = summary;
  ordered_json groups = ordered_json::array();
  for (const detail::FindingGroup& g : detail::GroupBySite(trace, *in.findings)) {
    ordered_json group;
    group["kind"] = detail::KindWord(g.kind);
    group["site"] = SiteJson(g.site, in.relative_to);
    group["count"] = g.members.size();
    ordered_json members = ordered_json::array();
    for (const Finding* f : g.members) members.push_back(FindingJson(in, *f));
    group["findings"] = members;
    groups.push_back(group);
  }
  j["groups"] = groups;
  out << j.dump(2, ' ', false, ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace tether::trace
