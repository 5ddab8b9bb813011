// The in-memory model of a trace file, its loader, and the zombie/leak
// analysis. Shared by `tether trace` (lib/trace) and `tether report` (lib/graph).
// The file format is docs/trace-format.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tether/error.hpp"

namespace tether::trace {

struct Site {
  std::string file;
  int line = 0;
  std::string function;
};

struct ContextRecord {
  std::uint64_t id = 0;
  std::uint64_t parent = 0;  // 0: a root
  std::string kind;  // background, todo, cancel, deadline, value, without_cancel, group, scope
  std::uint64_t scope = 0;
  Site site;
  std::int64_t created_ns = 0;
  std::optional<std::int64_t> done_ns;
  std::string done_err;  // canceled | deadline_exceeded
};

struct TaskRecord {
  std::uint64_t id = 0;
  std::uint64_t ctx = 0;
  std::uint64_t group = 0;          // 0: detached tether::Go
  std::uint64_t scope = 0;          // the scope of ctx
  std::uint64_t detached_from = 0;  // scope the spawner worked for, when ctx had none
  std::string name;
  Site site;
  // Threads: the next frames of the program's own code above `site`, innermost
  // first (site is often inside a pool's constructor; these say who made the pool).
  std::vector<Site> callers;
  std::int64_t spawn_ns = 0;
  std::optional<std::int64_t> start_ns;
  std::optional<std::int64_t> end_ns;
  std::string result;  // ok | canceled | deadline_exceeded | failed | ...
  std::uint64_t thread = 0;
  std::uint64_t parent_task = 0;  // the task whose thread spawned it (0: not spawned by a task)
  // Threads recorded by libtether_threads.so (kind "thread"): whether the
  // pthread was joined or detached.
  std::string kind;  // "" (a libtether task) or "thread"
  bool joined = false;
  bool detached_thread = false;
  Site detach_site;           // where pthread_detach was called, when known
  bool join_waiting = false;  // a pthread_join of it had begun (it may not have returned)
  std::string thread_name;    // pthread_setname_np's (empty: never named)
  // Threads: where it was running when asked (its scope ended with it
  // running, or the program exited), the program's own frames, innermost
  // first; empty when it was never asked. running_ns: when it was asked.
  std::vector<Site> running_at;
  std::int64_t running_ns = 0;
};

// An object loaded in the traced process: pc - bias is its file address.
struct ModuleRecord {
  std::string path;
  std::uint64_t bias = 0;
  std::uint64_t lo = 0, hi = 0;  // the addresses it spans
  std::int64_t process = 0;      // the child process it was loaded in (0: the program)
};

// A child process the program started (fork + exec, posix_spawn), traced in a
// part of the trace of its own (a header with `ppid`). Its records' ids are
// its own (ProcessOfTask); the program's `process` task for it is
// ProcessTaskId(pid).
struct ProcessRecord {
  std::int64_t pid = 0;
  std::int64_t parent_pid = 0;
  std::string program;  // its command line, after its exec
  std::int64_t start_ns = 0;
  std::optional<std::int64_t> end_ns;  // from its exit record
  std::optional<int> exit_status;
};

// The child process whose record a task id is (0: the program itself).
std::int64_t ProcessOfTask(std::uint64_t id);

struct GroupRecord {
  std::uint64_t id = 0;
  std::uint64_t ctx = 0;
  Site site;
  std::int64_t created_ns = 0;
  std::optional<std::int64_t> wait_begin_ns;
  std::optional<std::int64_t> wait_end_ns;
  Site wait_site;
  bool destroyed_unwaited = false;
  std::uint64_t running_at_destroy = 0;
};

struct ScopeRecord {
  std::uint64_t id = 0;
  std::uint64_t ctx = 0;
  std::string name;
  Site site;
  std::int64_t begin_ns = 0;
  std::optional<std::int64_t> end_ns;
  // The kernel id of the thread that ended it (0: not recorded): the task or
  // thread running there then is the scope's closer, not its zombie.
  std::uint64_t ended_on_thread = 0;
};

struct Trace {
  int version = 0;
  std::string program;
  std::int64_t pid = 0;
  std::int64_t start_ns = 0;
  std::optional<std::int64_t> end_ns;  // from the exit record, when the program exited cleanly
  std::optional<int> exit_status;
  std::uint64_t lost_events = 0;  // events the writer could not record
  bool truncated = false;         // the file ended mid-record or without an exit record
  std::map<std::uint64_t, ContextRecord> contexts;
  std::map<std::uint64_t, TaskRecord> tasks;
  std::map<std::uint64_t, GroupRecord> groups;
  std::map<std::uint64_t, ScopeRecord> scopes;
  std::vector<std::uint64_t> closed_channels;
  std::vector<ModuleRecord> modules;
  // Return addresses recorded at a thread's creation or a scope.h scope's
  // begin, by id: the tool symbolizes them into the record's site.
  std::map<std::uint64_t, std::vector<std::uint64_t>> stacks;
  // Where each detached thread was detached (its id), symbolized the same way
  // into TaskRecord::detach_site.
  std::map<std::uint64_t, std::vector<std::uint64_t>> detach_stacks;
  // Where a thread was running when its scope ended with it running, or at
  // exit (the first time it was asked), and when: into TaskRecord::running_at.
  struct RunningStack {
    std::int64_t ns = 0;
    std::vector<std::uint64_t> pcs;
  };
  std::map<std::uint64_t, RunningStack> running_stacks;
  bool terminate_called = false;  // std::terminate ran (libtether_threads.so saw it)
  // The child processes traced in parts of their own, by pid.
  std::map<std::int64_t, ProcessRecord> processes;
  // Tasks in the file. LoadTrace keeps them all (tasks.size()); LoadAndAnalyze
  // keeps in `tasks` only those its findings need.
  std::size_t task_count = 0;
  // Of task_count, the threads (libtether_threads.so's, kind "thread") and
  // the child processes (kind "process").
  std::size_t thread_count = 0;
  std::size_t process_count = 0;
};

// The process a task ran in (0: the program): a child's records are that
// child's, and a `process` task (the child itself) ran in the process that
// started it (0 when that one wrote no part, or is the program).
std::int64_t RanIn(const Trace& trace, const TaskRecord& task);

// Loads a trace file. A file cut short by a crash loads (truncated = true);
// a malformed record is an error naming "path:line:col: problem".
Error LoadTrace(const std::string& path, Trace* out);

enum class FindingKind {
  kZombie,         // still running after its scope ended (+ grace)
  kLeak,           // still running when the program exited (no scope, or scope never ended)
  kUnwaitedGroup,  // a TaskGroup destroyed with tasks and no Wait
  // A thread that finished but was neither joined nor detached when the
  // program exited (ThreadSanitizer's "thread leak"): its stack and pthread
  // record stay allocated, and its std::thread, if destroyed, terminates.
  kUnjoinedThread,
};

struct Finding {
  FindingKind kind;
  std::uint64_t task = 0;        // kZombie, kLeak
  std::uint64_t group = 0;       // kUnwaitedGroup (and the task's group)
  std::uint64_t scope = 0;       // the scope the task outlived (or was detached from)
  bool detached = false;         // spawned on a root context inside the scope (or by such a task)
  std::int64_t outlived_ns = 0;  // how long after scope end it was still running (zombies)
  bool ended = false;            // did the task ever end
  std::vector<std::uint64_t> context_chain;  // task ctx -> ... -> root
  std::optional<std::uint64_t> cut_at;       // the first root on the chain, when the chain
                                             // never reaches the scope's context
  // A thread of a child process (Trace::processes): kLeak and kZombie say it
  // was still running when that process exited, not the program.
  std::int64_t process = 0;
};

struct AnalysisOptions {
  std::int64_t grace_ns = 0;
  // When the program ended (CLOCK_MONOTONIC ns), as the process that waited
  // for it saw it. A trace without an exit record (the program was killed)
  // then measures "outlived by" to here, not to its last event.
  std::optional<std::int64_t> program_end_ns = std::nullopt;
};

std::vector<Finding> Analyze(const Trace& trace, const AnalysisOptions& options);

// LoadTrace and Analyze in one pass over the file, for traces of any length:
// memory grows with the tasks running at a time (plus those ended in a scope
// whose end the file has not reached yet, a few dozen bytes each) and the
// findings, not with the trace. The findings are Analyze's on the whole trace;
// *out holds what the reports read: every context, group and scope, the tasks
// of the findings, and task_count. Errors are LoadTrace's.
Error LoadAndAnalyze(const std::string& path, const AnalysisOptions& options, Trace* out,
                     std::vector<Finding>* findings);

}  // namespace tether::trace
