#include "runtime_tracer.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include "tether/scope.hpp"
#include "tether/trace/runtime.hpp"
#include "tether/trace/verify.hpp"
#include "tether/trace_writer/site_rules.hpp"

namespace tether::trace {
namespace detail {
namespace {

const std::source_location kNoSite{};

std::uint64_t ThisThreadId() {
  thread_local const std::uint64_t tid = static_cast<std::uint64_t>(syscall(SYS_gettid));
  return tid;
}

std::uint32_t Code(ErrorCode c) { return static_cast<std::uint32_t>(c); }

// The task the calling thread is running (0: none). A task spawned from it
// records it as its parent, so a task spawned by a detached task is still
// charged to the scope its parent was detached from.
thread_local std::uint64_t t_current_task = 0;

}  // namespace

RuntimeTracer& RuntimeTracer::Get() {
  static RuntimeTracer* instance = new RuntimeTracer();
  return *instance;
}

Error RuntimeTracer::EnsureInstalled() {
  hooks::Tracer* active = hooks::Active();
  if (active == this) return Error();
  if (active != nullptr) {
    return Error(ErrorCode::kInvalidArgument,
                 "another hooks::Tracer is installed; the tether tracer cannot be");
  }
  hooks::Install(this);
  return Error();
}

void RuntimeTracer::ContextCreated(std::uint64_t ctx, std::uint64_t parent, hooks::ContextKind kind,
                                   std::uint64_t scope, const std::source_location& loc) {
  if (FileSink* f = file()) {
    f->Put(EventType::kCtx, static_cast<std::uint32_t>(kind), ctx, parent, scope, 0, 0, loc);
  }
}

void RuntimeTracer::ContextDone(std::uint64_t ctx, ErrorCode why) {
  if (FileSink* f = file()) f->Put(EventType::kCtxDone, Code(why), ctx, 0, 0, 0, 0, kNoSite);
}

void RuntimeTracer::TaskSpawned(std::uint64_t task, std::uint64_t ctx, std::uint64_t group,
                                std::uint64_t scope, std::uint64_t detached_from,
                                std::string_view name, const std::source_location& loc) {
  const std::uint64_t parent = t_current_task;
  if (FileSink* f = file()) {
    f->PutSpawn(task, ctx, group, scope, detached_from, name, loc, parent);
  }
  if (LiveTable* l = live()) l->Spawned(task, scope, detached_from, parent, name, loc);
}

void RuntimeTracer::TaskStarted(std::uint64_t task) {
  t_current_task = task;
  if (FileSink* f = file()) f->Put(EventType::kStart, 0, task, ThisThreadId(), 0, 0, 0, kNoSite);
  if (LiveTable* l = live()) l->Started(task);
}

void RuntimeTracer::TaskEnded(std::uint64_t task, ErrorCode result) {
  if (t_current_task == task) t_current_task = 0;
  if (FileSink* f = file()) f->Put(EventType::kEnd, Code(result), task, 0, 0, 0, 0, kNoSite);
  if (LiveTable* l = live()) l->Ended(task);
}

void RuntimeTracer::GroupCreated(std::uint64_t group, std::uint64_t ctx,
                                 const std::source_location& loc) {
  if (FileSink* f = file()) f->Put(EventType::kGroup, 0, group, ctx, 0, 0, 0, loc);
}

void RuntimeTracer::GroupWaitBegin(std::uint64_t group, const std::source_location& loc) {
  if (FileSink* f = file()) f->Put(EventType::kWaitBegin, 0, group, 0, 0, 0, 0, loc);
}

void RuntimeTracer::GroupWaitEnd(std::uint64_t group, ErrorCode result) {
  if (FileSink* f = file()) f->Put(EventType::kWaitEnd, Code(result), group, 0, 0, 0, 0, kNoSite);
}

void RuntimeTracer::GroupDestroyedUnwaited(std::uint64_t group, std::uint64_t running_tasks) {
  if (FileSink* f = file()) {
    f->Put(EventType::kGroupUnwaited, 0, group, running_tasks, 0, 0, 0, kNoSite);
  }
}

// A source_location defaulted inside a library header (a Scope made through
// std::make_unique<Scope>(...) gets unique_ptr.h's line): not the user's.
static bool InSystemHeader(const std::source_location& loc) {
  const std::string_view file = loc.file_name();
  return file.starts_with("/usr/include/") || file.starts_with("/usr/lib/") ||
         file.find("/include/c++/") != std::string_view::npos;
}

void RuntimeTracer::ScopeBegin(std::uint64_t scope, std::uint64_t ctx, std::string_view name,
                               const std::source_location& loc) {
  if (FileSink* f = file()) {
    if (__builtin_expect(InSystemHeader(loc), 0)) {
      // No site: the tool symbolizes the return addresses instead, from the
      // frame that called Scope's constructor (skipping this one and it).
      f->PutNamed(EventType::kScopeBegin, 0, scope, ctx, 0, 0, 0, kNoSite, name);
      f->PutStack(scope, 2);
    } else {
      f->PutNamed(EventType::kScopeBegin, 0, scope, ctx, 0, 0, 0, loc, name);
    }
  }
  // Opened inside another scope (the opening thread's current one, read
  // before this one is pushed): a check of that scope covers this one too.
  if (LiveTable* l = live()) l->ScopeBegan(scope, tether::CurrentScopeId(), name);
}

void RuntimeTracer::ScopeEnd(std::uint64_t scope) {
  if (FileSink* f = file()) {
    // The ending thread's id: a thread (or task) that ends its own scope is
    // its closer, not its zombie (analyze.cpp).
    f->Put(EventType::kScopeEnd, 0, scope, ThisThreadId(), 0, 0, 0, kNoSite);
    // Written through at once (scope ends are rare: one write per scope): a
    // scope end lost to a SIGKILL within the flush interval would turn its
    // zombies into leaks of a scope that "never ended".
    f->FlushThisThread();
  }
}

void RuntimeTracer::ChannelClosed(std::uint64_t channel, const std::source_location& loc) {
  if (FileSink* f = file()) f->Put(EventType::kChanClose, 0, channel, 0, 0, 0, 0, loc);
}

}  // namespace detail

namespace {
std::mutex g_setup_mu;  // serialises StartFileTrace / EnableLiveTracking
}  // namespace

Error StartFileTrace(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_setup_mu);
  auto& tracer = detail::RuntimeTracer::Get();
  if (tracer.file() != nullptr) {
    return Error(ErrorCode::kInvalidArgument, "a trace file is already being written");
  }
  if (hooks::Active() != nullptr && hooks::Active() != &tracer) {
    return Error(ErrorCode::kInvalidArgument,
                 "another hooks::Tracer is installed; the tether tracer cannot be");
  }
  detail::FileSink* sink = nullptr;
  if (Error err = detail::FileSink::Open(path, &sink); !err.ok()) return err;
  tracer.AttachFile(sink);
  return tracer.EnsureInstalled();
}

void FlushTrace() {
  if (detail::FileSink* f = detail::RuntimeTracer::Get().file()) f->FlushAll();
}

Error EnableLiveTracking() {
  std::lock_guard<std::mutex> lock(g_setup_mu);
  auto& tracer = detail::RuntimeTracer::Get();
  if (tracer.live() == nullptr) {
    if (hooks::Active() != nullptr && hooks::Active() != &tracer) {
      return Error(ErrorCode::kInvalidArgument,
                   "another hooks::Tracer is installed; the tether tracer cannot be");
    }
    tracer.AttachLive(new detail::LiveTable());  // never destroyed, like the tracer
  }
  return tracer.EnsureInstalled();
}

RuntimeStats GetRuntimeStats() {
  auto& tracer = detail::RuntimeTracer::Get();
  RuntimeStats s;
  if (detail::FileSink* f = tracer.file()) {
    const detail::SinkStats written = f->Stats();
    s.file_trace = true;
    s.records_written = written.records_written;
    s.bytes_written = written.bytes_written;
    s.lost_events = written.lost_events;
    s.ring_bytes = written.ring_bytes;
    s.peak_rings = written.peak_rings;
    s.allocated_rings = written.allocated_rings;
  }
  s.live_tracking = tracer.live() != nullptr;
  return s;
}

std::chrono::milliseconds DefaultVerifyGrace() {
  const char* text = std::getenv("TETHER_GRACE_MS");
  if (text != nullptr && *text != '\0') {
    char* end = nullptr;
    const unsigned long long ms = std::strtoull(text, &end, 10);
    if (*end == '\0') return std::chrono::milliseconds(ms);
  }
  return std::chrono::milliseconds(500);
}

std::vector<std::string> IgnoredSitesFromEnvironment() {
  return detail::IgnorePatternsFromEnvironment();
}

std::vector<LeftoverTask> LeftoverTasks(std::uint64_t scope, const VerifyOptions& options) {
  detail::LiveTable* live = detail::RuntimeTracer::Get().live();
  if (live == nullptr) return {};
  std::vector<LeftoverTask> left =
      live->WaitForNone(scope, std::chrono::steady_clock::now() + options.grace);
  std::erase_if(left, [&](const LeftoverTask& task) {
    return std::any_of(options.ignore.begin(), options.ignore.end(), [&](const std::string& p) {
      return detail::FrameNamed(task.site.file, task.site.line, task.site.function, p);
    });
  });
  return left;
}

Error VerifyNone(std::uint64_t scope, const VerifyOptions& options) {
  if (detail::RuntimeTracer::Get().live() == nullptr) {
    return Error(ErrorCode::kInvalidArgument,
                 "tether::trace::VerifyNone: live tracking is off; call "
                 "tether::trace::EnableLiveTracking() before spawning the tasks to check");
  }
  std::vector<LeftoverTask> left = LeftoverTasks(scope, options);
  if (left.empty()) return Error();
  return Error::Failed(DescribeLeftovers(left));
}

Error VerifyNone(const VerifyOptions& options) { return VerifyNone(CurrentScopeId(), options); }

std::string DescribeLeftovers(const std::vector<LeftoverTask>& tasks) {
  if (tasks.empty()) return "no tasks left behind";
  std::string out =
      std::to_string(tasks.size()) + (tasks.size() == 1 ? " task" : " tasks") + " left running";
  if (tasks.front().scope != 0) {
    out += " by scope \"" + tasks.front().scope_name + "\"";
  }
  out += ":";
  for (const LeftoverTask& t : tasks) {
    out += "\n  task \"" + (t.name.empty() ? std::string("(unnamed)") : t.name) + "\" spawned at " +
           t.site.file + ":" + std::to_string(t.site.line);
    if (!t.site.function.empty()) out += " in " + t.site.function;
    // A task of a scope nested in the checked one says which.
    if (t.scope != tasks.front().scope) out += " [in scope \"" + t.scope_name + "\"]";
    if (t.detached) out += " [detached: spawned with a root context inside the scope]";
    if (!t.started) out += " [not started yet]";
  }
  return out;
}

}  // namespace tether::trace
