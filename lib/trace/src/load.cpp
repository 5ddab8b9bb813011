// LoadTrace: reads a streamed-JSON trace file (docs/trace-format.md) into the
// Trace model. Lines may arrive out of time order (each thread flushes its own
// buffer), so every record fills in the entity it names, whichever comes first.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "fast_record.hpp"
#include "tether/io/json.hpp"
#include "tether/io/read_file.hpp"
#include "tether/trace/model.hpp"
#include "tether/trace_writer/process_ids.hpp"
#include "trace_reader.hpp"

namespace tether::trace {
namespace {

using nlohmann::json;

constexpr int kMaxVersion = 1;
constexpr std::uint64_t kMaxTraceBytes = std::uint64_t{64} << 30;  // 64 GiB

// A record that lacks a required field or has one of the wrong type.
struct FieldError {
  std::string message;
};

class LineReader {
 public:
  explicit LineReader(const json& obj) : obj_(obj) {}

  std::uint64_t U64(const char* key) const {
    const json& v = Required(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
      throw FieldError{std::string("field '") + key + "' must be an unsigned integer"};
    }
    return v.get<std::uint64_t>();
  }
  std::int64_t I64(const char* key) const {
    const json& v = Required(key);
    if (!v.is_number_integer()) {
      throw FieldError{std::string("field '") + key + "' must be an integer"};
    }
    return v.get<std::int64_t>();
  }
  std::string Str(const char* key) const {
    const json& v = Required(key);
    if (!v.is_string()) throw FieldError{std::string("field '") + key + "' must be a string"};
    return v.get<std::string>();
  }
  std::string OptStr(const char* key) const {
    auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) return {};
    if (!it->is_string()) throw FieldError{std::string("field '") + key + "' must be a string"};
    return it->get<std::string>();
  }
  // file/line/func, all three required when present at all.
  Site SiteFields() const {
    Site s;
    s.file = Str("file");
    s.line = static_cast<int>(I64("line"));
    s.function = OptStr("func");
    return s;
  }
  bool Has(const char* key) const { return obj_.contains(key); }

 private:
  const json& Required(const char* key) const {
    auto it = obj_.find(key);
    if (it == obj_.end()) throw FieldError{std::string("missing field '") + key + "'"};
    return *it;
  }
  const json& obj_;
};

// A task's records (spawn, start, end, join, detach); false for another event.
bool ApplyTaskEvent(const std::string& ev, const LineReader& r, Trace* trace) {
  if (ev == "spawn") {
    TaskRecord& t = trace->tasks[r.U64("task")];
    t.id = r.U64("task");
    t.ctx = r.U64("ctx");
    t.group = r.U64("group");
    t.scope = r.U64("scope");
    t.detached_from = r.U64("detached_from");
    t.name = r.OptStr("name");
    t.site = r.SiteFields();
    t.spawn_ns = r.I64("t");
    if (r.Has("parent")) t.parent_task = r.U64("parent");
    if (r.Has("kind")) t.kind = r.Str("kind");
    return true;
  }
  if (ev == "start") {
    TaskRecord& t = trace->tasks[r.U64("task")];
    t.id = r.U64("task");
    t.start_ns = r.I64("t");
    if (r.Has("tid")) t.thread = r.U64("tid");
    return true;
  }
  if (ev == "end") {
    TaskRecord& t = trace->tasks[r.U64("task")];
    t.id = r.U64("task");
    // A child's `process` task ends twice (its own exit, its parent's
    // reap): the earlier is its end.
    if (t.end_ns && *t.end_ns <= r.I64("t")) return true;
    t.end_ns = r.I64("t");
    t.result = r.Str("result");
    return true;
  }
  // What other threads record of a pthread (libtether_threads.so).
  if (ev == "join" || ev == "detach" || ev == "join_begin" || ev == "thread_name") {
    TaskRecord& t = trace->tasks[r.U64("task")];
    t.id = r.U64("task");
    if (ev == "thread_name") {
      t.thread_name = r.Str("name");
    } else {
      (ev == "join" ? t.joined : ev == "detach" ? t.detached_thread : t.join_waiting) = true;
    }
    return true;
  }
  return false;
}

// A group's or a scope's records; false for another event.
bool ApplyGroupOrScopeEvent(const std::string& ev, const LineReader& r, Trace* trace) {
  if (ev == "group") {
    GroupRecord& g = trace->groups[r.U64("id")];
    g.id = r.U64("id");
    g.ctx = r.U64("ctx");
    g.site = r.SiteFields();
    g.created_ns = r.I64("t");
    return true;
  }
  if (ev == "wait_begin") {
    GroupRecord& g = trace->groups[r.U64("group")];
    g.id = r.U64("group");
    g.wait_begin_ns = r.I64("t");
    if (r.Has("file")) g.wait_site = r.SiteFields();
    return true;
  }
  if (ev == "wait_end") {
    GroupRecord& g = trace->groups[r.U64("group")];
    g.id = r.U64("group");
    g.wait_end_ns = r.I64("t");
    return true;
  }
  if (ev == "group_unwaited") {
    GroupRecord& g = trace->groups[r.U64("group")];
    g.id = r.U64("group");
    g.destroyed_unwaited = true;
    g.running_at_destroy = r.U64("running");
    return true;
  }
  if (ev == "scope_begin") {
    ScopeRecord& s = trace->scopes[r.U64("id")];
    s.id = r.U64("id");
    s.ctx = r.U64("ctx");
    s.name = r.OptStr("name");
    s.site = r.SiteFields();
    s.begin_ns = r.I64("t");
    return true;
  }
  if (ev == "scope_site") {  // the caller's own site: no stack is symbolized
    ScopeRecord& s = trace->scopes[r.U64("id")];
    s.id = r.U64("id");
    s.site = r.SiteFields();
    return true;
  }
  if (ev == "scope_end") {
    ScopeRecord& s = trace->scopes[r.U64("id")];
    s.id = r.U64("id");
    s.end_ns = r.I64("t");
    if (r.Has("tid")) s.ended_on_thread = r.U64("tid");
    return true;
  }
  return false;
}

// Where the reader is: which process's part (0: the program's), and whether
// the program's exit record was read.
struct PartState {
  bool saw_exit = false;
  std::int64_t process = 0;
  // The `process` task the last header made for a child whose start its
  // parent did not record (0: none): the reader tells its hook of it as of a
  // spawn.
  std::uint64_t made_process_task = 0;
};

// A child process's header (`ppid`): its part follows. Its pid must name
// its own ids, and comes once.
void BeginChildPart(const LineReader& r, Trace* trace, PartState* part) {
  const std::int64_t pid = r.I64("pid");
  if (pid <= 0 || pid >= (std::int64_t{1} << 22))
    throw FieldError{"a child process's header with pid " + std::to_string(pid) +
                     " (a pid is from 1 to 2^22)"};
  if (pid == trace->pid || trace->processes.count(pid) != 0)
    throw FieldError{"a second trace header of process " + std::to_string(pid)};
  ProcessRecord& p = trace->processes[pid];
  p.pid = pid;
  p.parent_pid = r.I64("ppid");
  p.program = r.OptStr("program");
  p.start_ns = r.I64("t");
  part->process = pid;
  const std::uint64_t id = detail::ProcessTaskId(pid);
  // The header's ppid is the parent when the child's library started, which
  // is init (or a subreaper) once the parent had exited: a shell that left
  // its command running in the background (`cmd &`) and returned, a program
  // that started a daemon and exited. The process whose part recorded the
  // child's start started it (a start the program recorded names no child's
  // task as its parent).
  if (auto started = trace->tasks.find(id);
      started != trace->tasks.end() && started->second.kind == "process") {
    const std::int64_t starter = detail::ProcessOfId(started->second.parent_task);
    p.parent_pid = starter != 0 ? starter : trace->pid;
  }
  // A traced child's own child that its parent started without a record (a
  // shell's vfork: the shell system() runs starts its command so): a
  // `process` task of its parent's, as a fork in the parent would have made
  // it, so it and its threads are charged to the scope its parent is in.
  if (p.parent_pid != trace->pid && trace->processes.count(p.parent_pid) != 0 &&
      trace->tasks.count(id) == 0) {
    TaskRecord& task = trace->tasks[id];
    task.id = id;
    task.kind = "process";
    task.parent_task = detail::ProcessTaskId(p.parent_pid);
    task.thread = static_cast<std::uint64_t>(pid);
    task.spawn_ns = p.start_ns;
    task.start_ns = p.start_ns;
    part->made_process_task = id;
  }
}

// A child's exit record ends its process, not the trace.
void ChildExited(const LineReader& r, Trace* trace, const PartState& part) {
  ProcessRecord& p = trace->processes.at(part.process);
  if (!p.exit_status) p.exit_status = static_cast<int>(r.I64("status"));
  p.end_ns = std::max(p.end_ns.value_or(r.I64("t")), r.I64("t"));
}

// Applies one record to the model. Unknown events are ignored (forward
// compatibility); a known event with a bad field throws FieldError.
void Apply(const json& obj, Trace* trace, PartState* part) {
  LineReader r(obj);
  std::string ev = r.Str("ev");
  if (ev == "header") {
    const int version = static_cast<int>(r.I64("version"));
    if (version < 1 || version > kMaxVersion) {
      throw FieldError{"unsupported trace version " + std::to_string(version) +
                       " (this tether reads version " + std::to_string(kMaxVersion) + ")"};
    }
    if (trace->version != 0 && r.Has("ppid")) {
      BeginChildPart(r, trace, part);
      return;
    }
    if (trace->version != 0) {
      if (part->process != 0)
        throw FieldError{
            "a part of the program after a child process's part (the program's "
            "parts come first)"};
      // A second part: `tether trace` appends the threads' recorder's file
      // to a libtether program's trace. Same process, same clock; the first
      // header names the program.
      if (r.I64("pid") != trace->pid)
        throw FieldError{"a second trace header, of another process (pid " +
                         std::to_string(r.I64("pid")) + ", the first was " +
                         std::to_string(trace->pid) + ")"};
      trace->start_ns = std::min(trace->start_ns, r.I64("t"));
      return;
    }
    trace->version = version;
    trace->pid = r.I64("pid");
    trace->program = r.OptStr("program");
    trace->start_ns = r.I64("t");
  } else if (ev == "ctx") {
    ContextRecord& c = trace->contexts[r.U64("id")];
    c.id = r.U64("id");
    c.parent = r.U64("parent");
    c.kind = r.Str("kind");
    c.scope = r.U64("scope");
    c.site = r.SiteFields();
    c.created_ns = r.I64("t");
  } else if (ev == "ctx_done") {
    ContextRecord& c = trace->contexts[r.U64("id")];
    c.id = r.U64("id");
    c.done_ns = r.I64("t");
    c.done_err = r.Str("err");
  } else if (ev == "end" && part->process != 0 &&
             r.U64("task") == detail::ProcessTaskId(part->process) &&
             trace->tasks.count(r.U64("task")) == 0) {
    // A child's own end, when its start was not recorded and its parent is
    // the program (a vfork, a child started by an untraced library's raw
    // clone, a trace from before system() and popen() were traced): no task.
    // (Its parent's part comes first, so its start is read by now.)
    return;
  } else if (ApplyTaskEvent(ev, r, trace) || ApplyGroupOrScopeEvent(ev, r, trace)) {
    return;
  } else if (ev == "stack") {
    const std::string of = r.OptStr("of");  // "" (the site), "detach" or "running"
    if (!of.empty() && of != "detach" && of != "running") {
      throw FieldError{"field 'of' must be \"detach\" or \"running\" when given"};
    }
    std::vector<std::uint64_t>* where = nullptr;
    if (of == "running") {
      Trace::RunningStack& running = trace->running_stacks[r.U64("id")];
      if (running.pcs.empty()) running.ns = r.I64("t");
      where = &running.pcs;
    } else {
      where = &(of.empty() ? trace->stacks : trace->detach_stacks)[r.U64("id")];
    }
    std::vector<std::uint64_t>& stack = *where;
    const json& pcs = obj.at("pcs");
    if (!pcs.is_array()) throw FieldError{"field 'pcs' must be an array of addresses"};
    for (const json& pc : pcs) {
      if (!pc.is_number_unsigned()) throw FieldError{"field 'pcs' must be an array of addresses"};
      stack.push_back(pc.get<std::uint64_t>());
    }
  } else if (ev == "module") {
    trace->modules.push_back(
        ModuleRecord{r.Str("path"), r.U64("bias"), r.U64("lo"), r.U64("hi"), part->process});
  } else if (ev == "terminate") {
    if (part->process == 0) trace->terminate_called = true;
  } else if (ev == "chan_close") {
    trace->closed_channels.push_back(r.U64("id"));
  } else if (ev == "lost") {
    trace->lost_events += r.U64("count");
  } else if (ev == "exit") {
    if (part->process != 0) {
      ChildExited(r, trace, *part);
      return;
    }
    // Each part of the program ends with one (the later one is the end).
    if (!trace->exit_status) trace->exit_status = static_cast<int>(r.I64("status"));
    trace->end_ns = std::max(trace->end_ns.value_or(r.I64("t")), r.I64("t"));
    part->saw_exit = true;
  }
}

// What the hook is told of a record Apply has accepted.
detail::RecordSeen Seen(const json& obj) {
  detail::RecordSeen seen;
  seen.ev = obj.at("ev").get_ref<const std::string&>();
  const char* id_key = seen.ev == "scope_end" ? "id" : "task";
  if (auto id = obj.find(id_key); id != obj.end() && id->is_number_integer()) {
    seen.id = id->get<std::uint64_t>();  // Apply has checked it is not negative
  }
  if (auto t = obj.find("t"); t != obj.end() && t->is_number_integer()) {
    seen.t = t->get<std::int64_t>();
  }
  return seen;
}

Error LineError(const std::string& path, int line, std::size_t col, const std::string& what) {
  return Error(ErrorCode::kInvalidArgument,
               path + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: " + what);
}

}  // namespace

namespace detail {

namespace {
std::atomic<bool> g_fast_path{true};

// The lines of one trace, handled in order.
class TraceLines {
 public:
  TraceLines(const std::string& path, Trace* out, RecordHook* hook)
      : path_(path), out_(out), hook_(hook) {}

  // Handles one line; false stops the read (an error, or a cut-short end).
  bool Handle(std::string_view line, bool complete) {
    ++line_no_;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return true;
    // A child's part takes the parser (load.cpp's rule for a child's own end).
    if (saw_header_ && part_.process == 0 && g_fast_path.load(std::memory_order_relaxed) &&
        ApplyFastRecord(line))
      return true;
    json obj;
    return Parse(line, complete, &obj) && ApplyRecord(obj);
  }

  bool saw_exit() const { return part_.saw_exit; }
  const Error& failure() const { return failure_; }

 private:
  // Whether the fast path took the line (a spawn, start or end record).
  bool ApplyFastRecord(std::string_view line) {
    FastRecord fast = ApplyFast(line, out_);
    if (fast.kind == FastKind::kNone) return false;
    if (hook_ != nullptr) {
      hook_->AfterRecord(detail::RecordSeen{fast.kind == FastKind::kSpawn   ? "spawn"
                                            : fast.kind == FastKind::kStart ? "start"
                                                                            : "end",
                                            fast.task, fast.t});
    }
    return true;
  }

  bool Fail(std::size_t col, const std::string& what) {
    failure_ = LineError(path_, line_no_, col, what);
    return false;
  }

  // The line as a JSON object, or false (failure_ set, or a cut-short last
  // line marks the trace truncated).
  bool Parse(std::string_view line, bool complete, json* obj) {
    if (std::optional<std::size_t> deep = io::FindJsonTooDeep(line)) {
      return Fail(*deep + 1,
                  "record nested more than " + std::to_string(io::kMaxJsonDepth) + " levels deep");
    }
    try {
      *obj = json::parse(line);
    } catch (const json::parse_error& e) {
      // The last line of a file cut short by a crash: keep what came before.
      if (!complete) {
        out_->truncated = true;
        return false;
      }
      io::JsonProblem p = io::DescribeJsonException(e, line);
      return Fail(p.offset + 1, "malformed record: " + p.message);
    } catch (const json::exception& e) {
      // A number out of range (1e400) and the like: no cut-short excuse.
      io::JsonProblem p = io::DescribeJsonException(e, line);
      return Fail(p.offset + 1, "malformed record: " + p.message);
    }
    if (!obj->is_object()) return Fail(1, "record is not a JSON object");
    return true;
  }

  bool ApplyRecord(const json& obj) {
    if (!saw_header_) {
      auto ev = obj.find("ev");
      if (ev == obj.end() || *ev != "header") {
        return Fail(1, "first record is not a trace header (not a tether trace?)");
      }
    }
    try {
      Apply(obj, out_, &part_);
      if (hook_ != nullptr && part_.made_process_task != 0) {
        const TaskRecord& made = out_->tasks.at(part_.made_process_task);
        hook_->AfterRecord(detail::RecordSeen{"spawn", made.id, made.spawn_ns});
      }
      part_.made_process_task = 0;
      if (hook_ != nullptr) hook_->AfterRecord(Seen(obj));
    } catch (const FieldError& e) {
      return Fail(1, e.message);
    } catch (const json::exception& e) {
      return Fail(1, io::JsonExceptionMessage(e));
    }
    saw_header_ = true;
    return true;
  }

  const std::string& path_;
  Trace* out_;
  RecordHook* hook_;
  int line_no_ = 0;
  bool saw_header_ = false;
  PartState part_;
  Error failure_;
};

}  // namespace

void SetFastPathForTesting(bool enabled) { g_fast_path.store(enabled); }

Error ReadTrace(const std::string& path, Trace* out, RecordHook* hook) {
  *out = Trace();
  bool any_bytes = false;
  bool stop = false;
  TraceLines lines(path, out, hook);
  auto handle = [&](std::string_view line, bool complete) { return lines.Handle(line, complete); };

  // Lines are cut out of the chunks as they come; only a line that spans two
  // chunks is copied (into partial).
  std::string partial;
  // A trace is read a chunk at a time, so the memory cap on whole-file inputs
  // does not apply; its own default is far larger (TETHER_MAX_INPUT_BYTES,
  // when set, still rules).
  io::ReadOptions options;
  const char* env_cap = std::getenv(io::kMaxInputBytesEnv);
  if (env_cap == nullptr || *env_cap == '\0') options.max_bytes = kMaxTraceBytes;
  std::optional<io::ReadError> read_err = io::ReadInputFileChunks(
      path,
      [&](std::string_view chunk, std::uint64_t) {
        any_bytes = true;
        std::size_t begin = 0;
        while (begin < chunk.size()) {
          std::size_t nl = chunk.find('\n', begin);
          if (nl == std::string_view::npos) {
            partial.append(chunk.substr(begin));
            break;
          }
          std::string_view piece = chunk.substr(begin, nl - begin);
          begin = nl + 1;
          bool ok;
          if (partial.empty()) {
            ok = handle(piece, true);
          } else {
            partial.append(piece);
            ok = handle(partial, true);
            partial.clear();
          }
          if (!ok) {
            stop = true;
            return false;
          }
        }
        return true;
      },
      options);
  if (read_err) {
    *out = Trace();
    return Error(ErrorCode::kIo, read_err->ToString());
  }
  if (!any_bytes) {
    return LineError(path, 1, 1, "empty trace file (the program wrote no trace header)");
  }
  if (!stop && !partial.empty()) stop = !handle(partial, false);
  if (!lines.failure().ok()) return lines.failure();
  if (!lines.saw_exit()) out->truncated = true;
  return Error();
}

}  // namespace detail

std::int64_t ProcessOfTask(std::uint64_t id) { return detail::ProcessOfId(id); }

std::int64_t RanIn(const Trace& trace, const TaskRecord& task) {
  const std::int64_t process = ProcessOfTask(task.id);
  if (process == 0 || task.kind != "process") return process;
  auto p = trace.processes.find(process);
  return p == trace.processes.end() || p->second.parent_pid == trace.pid ? 0 : p->second.parent_pid;
}

Error LoadTrace(const std::string& path, Trace* out) {
  Error err = detail::ReadTrace(path, out, nullptr);
  out->task_count = out->tasks.size();
  out->thread_count = static_cast<std::size_t>(
      std::count_if(out->tasks.begin(), out->tasks.end(),
                    [](const auto& t) { return t.second.kind == "thread"; }));
  out->process_count = static_cast<std::size_t>(
      std::count_if(out->tasks.begin(), out->tasks.end(),
                    [](const auto& t) { return t.second.kind == "process"; }));
  return err;
}

}  // namespace tether::trace
