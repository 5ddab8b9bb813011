// libtether_threads.so: every pthread of a program as a traced task, by
// interposition: LD_PRELOAD (preload.cpp; `tether trace` sets it up) or
// -Wl,--wrap in a static program (wrap.cpp, Tether::threads_wrap).
//
// It interposes pthread_create, pthread_join, pthread_detach and pthread_exit
// (so std::thread, std::jthread, std::async(std::launch::async) and any pool on
// pthreads are covered) and records, through the tracer's own per-thread rings
// (lib/trace FileSink, the trace format of docs/trace-format.md):
//   spawn  (kind "thread"; scope: a scope open on the creating thread, a
//           tether/trace/scope.h one or else libtether's tether::Scope or task
//           scope; parent: the thread-task or libtether task that created it,
//           so a thread created by one charged to a scope is charged there too)
//   stack  the return addresses at the pthread_create call, symbolized by the
//          tool at report time (the site is the first frame in the program's
//          own code)
//   start / end, join / detach, terminate (std::terminate ran: a joinable
//   std::thread destroyed, most often), and the loaded objects (module).
//
// TETHER_THREADS_TRACE=<path> turns it on (read once, then removed from the
// environment so child processes are not traced into the same file). Without
// it every interposed call is one branch and a call to the real function.
// Thread ids start at 2^48 so that they never collide with a libtether
// program's own ids when both traces are merged.
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tether/error.hpp"
#include "tether/trace/scope.h"

#include "interpose.hpp"
#include "running_stacks.hpp"
#include "stack_capture.hpp"
#include "tether/trace_writer/file_sink.hpp"
#include "tether/trace_writer/loaded_range.hpp"
#include "tether/trace_writer/process_ids.hpp"
#include "tether/trace_writer/site_rules.hpp"
#include "thread_site.hpp"

extern "C" void* __libc_stack_end;  // glibc: the main thread's initial stack pointer

namespace {

using tether::trace::detail::EventType;
using tether::trace::detail::FileSink;
using tether::trace::detail::kSpawnKindProcess;
using tether::trace::detail::kSpawnKindThread;
using tether::trace::detail::kStackOfDetach;
using tether::trace::detail::kStackOfRunning;
using tether::trace::detail::ProcessTaskId;

const std::source_location kNoSite{};

std::atomic<FileSink*> g_sink{nullptr};
std::atomic<std::uint64_t> g_next_id{std::uint64_t{1} << 48};
// The thread-task the calling thread runs (0: the main thread, or a thread
// created before tracing started).
thread_local std::uint64_t t_task = 0;

std::mutex g_ids_mu;
std::unordered_map<pthread_t, std::uint64_t>* g_ids = nullptr;  // guarded by g_ids_mu; never freed
std::terminate_handler g_previous_terminate = nullptr;

// The scope the calling thread is charged to (inherited from the thread that
// created it; 0: none), so that the threads it creates are charged there too.
thread_local std::uint64_t t_charged_scope = 0;

// The threads charged to a scope that have not ended, for the in-process
// query (tether_scope_threads_v1: GoogleTest's per-test verdict). Guarded by
// g_live_mu; g_live_cv is notified when one ends. Never freed.
constexpr int kSitePcs = 8;  // return addresses kept for a site

struct LiveThread {
  std::uint64_t scope;
  std::chrono::steady_clock::time_point created;
  std::uint64_t pcs[kSitePcs];  // the creation's return addresses, for its site
  int pc_count;
  pid_t tid;  // its kernel id, once it runs (0 before): whom to ask where it runs
  // Where it was running when asked (running_stacks.hpp; 0: not asked).
  std::uint64_t running_pcs[tether::threads::kRunningPcs];
  int running_count;
};
std::mutex g_live_mu;
std::condition_variable g_live_cv;

// `tether trace --ignore`'s patterns (TETHER_IGNORE_SITES, one a line): a
// running thread they name is not counted against its scope in the process
// (the per-test verdict), as the report drops it. Set before g_sink; read only.
std::vector<std::string>* g_ignore = nullptr;
// --ignore-top's and --ignore-running's (TETHER_IGNORE_TOP, _RUNNING): on
// where a running thread is, as the report drops them.
std::vector<std::string>* g_ignore_top = nullptr;
std::vector<std::string>* g_ignore_running = nullptr;
std::unordered_map<std::uint64_t, LiveThread>* g_live = nullptr;

// The scopes this thread began (tether/trace/scope.h) and has not ended,
// innermost last; a thread created while one is open is charged to it.
thread_local std::vector<std::uint64_t> t_scopes;

// libtether's view of the calling thread (its scope and task), when the
// program links libtether; set before g_sink is published, then read-only.
const tether_context_thread_v1* g_libtether = nullptr;

// Who creates a thread: the scope its spawn record names (the innermost
// scope.h scope open on this thread, else libtether's current scope), the
// scope it is charged to (that, else the one this thread inherited), and its
// parent (this thread-task, else the libtether task this thread runs).
struct Creator {
  std::uint64_t scope;
  std::uint64_t charged;
  std::uint64_t parent;
};

Creator ThisCreator() {
  Creator c{t_scopes.empty() ? 0 : t_scopes.back(), 0, t_task};
  if (g_libtether != nullptr && (c.scope == 0 || c.parent == 0)) {
    const tether_thread_work work = g_libtether->current();
    if (c.scope == 0) c.scope = work.scope;
    if (c.parent == 0) c.parent = work.task;
  }
  c.charged = c.scope != 0 ? c.scope : t_charged_scope;
  return c;
}

// Set while this thread creates a runtime's own threads (tether_thread_pool_v1):
// those are not recorded.
thread_local bool t_creating_pool_threads = false;

// The calling thread's kernel id without a system call (gettid(2) was ~1 µs
// of each traced thread on this VM): glibc keeps the id in the thread's
// descriptor, and pthread_getcpuclockid encodes it in the clock id by the
// kernel's fixed scheme (MAKE_THREAD_CPUCLOCK: ~tid << 3 | CPUCLOCK_SCHED |
// CPUCLOCK_PERTHREAD_MASK). Checked against gettid(2) once at start
// (g_tid_from_clock); if the scheme ever differs, the system call is used.
bool g_tid_from_clock = false;

std::uint64_t TidFromClock() {
  clockid_t clock;
  if (pthread_getcpuclockid(pthread_self(), &clock) != 0 || (clock & 7) != 6) return 0;
  return static_cast<std::uint64_t>(~(clock >> 3));
}

std::uint64_t ThisThreadTid() {
  if (g_tid_from_clock) return TidFromClock();
  return static_cast<std::uint64_t>(syscall(SYS_gettid));
}

// libc's loaded range (set at start): a stack's frames from the first one in
// libc above one outside it (main's caller __libc_start_call_main, and the
// start-up code above it) name no site, and are not recorded. (A thread
// created in a callback libc calls, qsort's or pthread_once's, keeps the
// frames up to the callback: its site is there or below.)
std::uint64_t g_libc_lo = 0, g_libc_hi = 0;

int WithoutStartup(const std::uint64_t* pcs, int count) {
  bool outside = false;
  for (int i = 0; i < count; ++i) {
    const bool in_libc = pcs[i] >= g_libc_lo && pcs[i] < g_libc_hi;
    if (in_libc && outside) return i;
    outside = outside || !in_libc;
  }
  return count;
}

void FindLibc() {
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void*) {
        if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "/libc.so") == nullptr) {
          return 0;
        }
        const auto range = tether::trace::detail::RangeOf(*info);
        g_libc_lo = range.lo;
        g_libc_hi = range.hi;
        return 1;
      },
      nullptr);
}

// Fills pcs with the return addresses above the shim's entry point whose CFA
// is cfa (its caller first), without the start-up frames; returns how many.
// Always inlined, so that cfa is the entry point's.
__attribute__((always_inline)) inline int CaptureSite(std::uintptr_t cfa,
                                                      std::uint64_t (&pcs)[kSitePcs]) {
  return WithoutStartup(pcs, tether::threads::CaptureCallers(cfa, pcs, kSitePcs));
}

// Records them as id's `stack` records (symbolized by the tool).
__attribute__((always_inline)) inline void RecordStack(FileSink* sink, std::uint64_t id,
                                                       std::uintptr_t cfa) {
  std::uint64_t pcs[kSitePcs];
  sink->PutPcs(id, pcs, CaptureSite(cfa, pcs));
}

void Remember(pthread_t thread, std::uint64_t id) {
  std::lock_guard<std::mutex> lock(g_ids_mu);
  (*g_ids)[thread] = id;
}

// The task id of a thread created traced (0: none), kept.
std::uint64_t IdOf(pthread_t thread) {
  std::lock_guard<std::mutex> lock(g_ids_mu);
  auto it = g_ids->find(thread);
  return it == g_ids->end() ? 0 : it->second;
}

std::uint64_t Forget(pthread_t thread) {
  std::lock_guard<std::mutex> lock(g_ids_mu);
  auto it = g_ids->find(thread);
  if (it == g_ids->end()) return 0;
  std::uint64_t id = it->second;
  g_ids->erase(it);
  return id;
}

struct StartArgs {
  void* (*fn)(void*);
  void* arg;
  std::uint64_t id;
  std::uint64_t scope;
};

void LiveBegin(std::uint64_t id, std::uint64_t scope, const std::uint64_t* pcs, int pc_count) {
  if (scope == 0) return;
  LiveThread live{scope, std::chrono::steady_clock::now(), {}, pc_count, 0, {}, 0};
  std::copy(pcs, pcs + pc_count, live.pcs);
  std::lock_guard<std::mutex> lock(g_live_mu);
  g_live->emplace(id, live);
}

void LiveEnd(std::uint64_t id) {
  {
    std::lock_guard<std::mutex> lock(g_live_mu);
    if (g_live->erase(id) == 0) return;
  }
  g_live_cv.notify_all();
}

// The end of the calling thread-task: recorded, and taken off the live table.
void EndThisTask(FileSink* sink, std::uint64_t id) {
  sink->Put(EventType::kEnd, 0, id, 0, 0, 0, 0, kNoSite);
  LiveEnd(id);
}

// A thread charged to a scope says who it is in the kernel, so that the
// scope's end can ask it where it runs if it outlives the scope.
void LiveRunsAs(std::uint64_t id, pid_t tid) {
  std::lock_guard<std::mutex> lock(g_live_mu);
  if (auto it = g_live->find(id); it != g_live->end()) it->second.tid = tid;
}

// Set when the process has begun to end (exit's handlers, quick_exit, _exit)
// and the threads still running are asked where they run: a thread that ends
// after that (its sleep cut short by the asking) was running at exit, and
// its end is not recorded.
std::atomic<bool> g_exit_begun{false};

// Asks each of tids where it runs, and records the answers as `stack` records
// of kStackOfRunning (and in the live table, for the verdicts given in the
// process); gives up after kRunningStacksBudget in all.
constexpr auto kRunningStacksBudget = std::chrono::seconds(1);

// Asks tid where it runs and records the answer, when the thread is task
// expected_id (any traced thread for 0: a tid may have been reused).
bool RecordRunningStack(FileSink* sink, pid_t tid, std::uint64_t expected_id,
                        tether::threads::RunningStack* stack) {
  if (!tether::threads::CaptureRunningStack(tid, stack) ||
      (expected_id != 0 && stack->id != expected_id))
    return false;
  sink->PutPcs(stack->id, stack->pcs, stack->count, kStackOfRunning);
  return true;
}

void RecordRunningStacks(FileSink* sink, const std::vector<pid_t>& tids) {
  const auto deadline = std::chrono::steady_clock::now() + kRunningStacksBudget;
  for (pid_t tid : tids) {
    if (std::chrono::steady_clock::now() >= deadline) break;
    tether::threads::RunningStack stack;
    if (!RecordRunningStack(sink, tid, 0, &stack)) continue;
    std::lock_guard<std::mutex> lock(g_live_mu);
    if (auto it = g_live->find(stack.id); it != g_live->end()) {
      std::copy(stack.pcs, stack.pcs + stack.count, it->second.running_pcs);
      it->second.running_count = stack.count;
    }
  }
}

// This process's pid when it is a child the traced program started (its
// records are a part of their own, process_ids.hpp); 0 in the program itself.
pid_t g_child_pid = 0;

// A child's end, as its own `process` task's end: ok for exit status 0,
// failed for another or a signal (status null). Its parent may record the
// end too, when it reaps it (the reader keeps the earlier).
void EndThisProcess(FileSink* sink, const int* status) {
  if (g_child_pid == 0) return;
  const auto result =
      status != nullptr && *status == 0 ? tether::ErrorCode::kOk : tether::ErrorCode::kFailed;
  sink->Put(EventType::kEnd, static_cast<std::uint32_t>(result), ProcessTaskId(g_child_pid), 0, 0,
            0, 0, kNoSite);
}

// Set once this thread's task has its end recorded (pthread_exit records it
// before unwinding the thread).
thread_local bool t_task_ended = false;

// Records the end of a thread's task however its function is left: a return,
// or the unwinding of a pthread_cancel (which skips anything after the call;
// the thread was then reported still running, its join still waiting).
struct TaskEndsOnLeaving {
  std::uint64_t id;
  ~TaskEndsOnLeaving() {
    if (!t_task_ended) {
      t_task_ended = true;
      if (FileSink* sink = g_sink.load(std::memory_order_acquire);
          sink != nullptr && !g_exit_begun.load(std::memory_order_acquire)) {
        EndThisTask(sink, id);
      }
    }
    tether::threads::ForgetQuietCallSlot();
  }
};

void* Trampoline(void* p) {
  StartArgs args = *static_cast<StartArgs*>(p);
  delete static_cast<StartArgs*>(p);
  // Stack walks of this thread stop here (above is the thread library's).
  tether::threads::SetStackTop(reinterpret_cast<std::uintptr_t>(&args));
  t_task = args.id;
  t_charged_scope = args.scope;
  if (FileSink* sink = g_sink.load(std::memory_order_acquire)) {
    const std::uint64_t tid = ThisThreadTid();
    sink->Put(EventType::kStart, 0, args.id, tid, 0, 0, 0, kNoSite);
    if (args.scope != 0) LiveRunsAs(args.id, static_cast<pid_t>(tid));
  }
  const TaskEndsOnLeaving ends{args.id};
  return args.fn(args.arg);
}

// Each traced thread is asked where it runs once: at its scope's end if it
// outlives it, else at exit.
thread_local bool t_running_stack_taken = false;

}  // namespace

std::uint64_t tether::threads::TakeRunningStackTask() {
  if (t_task == 0 || t_running_stack_taken) return 0;
  t_running_stack_taken = true;
  return t_task;
}

void tether::threads::FlushBeforeEnd(const int* status) {
  FileSink* sink = g_sink.load(std::memory_order_acquire);
  if (sink == nullptr) return;
  if (status != nullptr) {
    // _exit, _Exit, quick_exit: the threads still running are the leaks.
    g_exit_begun.store(true, std::memory_order_release);
    RecordRunningStacks(sink, tether::threads::OtherThreads());
    EndThisProcess(sink, status);
    sink->Finish(*status);
  } else {
    EndThisProcess(sink, nullptr);  // killed by a signal
    sink->FlushAll();
  }
}

namespace {

void OnTerminate() {
  if (FileSink* sink = g_sink.load(std::memory_order_acquire)) {
    sink->Put(EventType::kTerminate, 0, 0, 0, 0, 0, 0, kNoSite);
    sink->FlushAll();  // abort() follows: nothing else would write the rings out
  }
  if (g_previous_terminate != nullptr) g_previous_terminate();
  std::abort();
}

// Before main (and before the program's own constructors: a preloaded
// object's run first).
__attribute__((constructor)) void StartFromEnvironment() {
  std::string where;
  long parent_pid = 0;
  // TETHER_THREADS_PID: the process whose records a copy of this library
  // already writes (a program both preloaded and linked with
  // Tether::threads_wrap has two copies; one records).
  const std::string self = std::to_string(getpid());
  const char* traced = std::getenv("TETHER_THREADS_PID");
  const bool traced_already = traced != nullptr && self == traced;
  if (const char* path = std::getenv("TETHER_THREADS_TRACE"); path != nullptr && *path != '\0') {
    where = path;
    unsetenv("TETHER_THREADS_TRACE");
    // The processes it starts (fork + exec, posix_spawn) inherit the
    // variable (and LD_PRELOAD) and write parts of their own beside the
    // trace, PATH.PID, which `tether trace` adds to it after the run.
    setenv("TETHER_THREADS_CHILDREN", where.c_str(), 1);
  } else if (const char* base = std::getenv("TETHER_THREADS_CHILDREN");
             base != nullptr && *base != '\0' && !traced_already) {
    // A child of the traced program (or of one of its children): its main
    // thread is its `process` task, which its parent recorded under the same
    // id (process_ids.hpp), so the threads it creates are charged where the
    // parent started it.
    g_child_pid = getpid();
    where = std::string(base) + "." + std::to_string(g_child_pid);
    parent_pid = getppid();
    g_next_id.store(ProcessTaskId(g_child_pid) + 1, std::memory_order_relaxed);
    t_task = ProcessTaskId(g_child_pid);
  } else {
    return;
  }
  setenv("TETHER_THREADS_PID", self.c_str(), 1);
  g_ids = new std::unordered_map<pthread_t, std::uint64_t>();
  g_live = new std::unordered_map<std::uint64_t, LiveThread>();
  g_ignore = new std::vector<std::string>(tether::trace::detail::IgnorePatternsFromEnvironment());
  g_ignore_top = new std::vector<std::string>(
      tether::trace::detail::IgnorePatternsFromEnvironment("TETHER_IGNORE_TOP"));
  g_ignore_running = new std::vector<std::string>(
      tether::trace::detail::IgnorePatternsFromEnvironment("TETHER_IGNORE_RUNNING"));
  void* warm[2];
  backtrace(warm, 2);  // loads the unwinder now, not inside a traced call
  tether::threads::SetStackTop(reinterpret_cast<std::uintptr_t>(__libc_stack_end));
  FindLibc();
  g_tid_from_clock = TidFromClock() == static_cast<std::uint64_t>(syscall(SYS_gettid));
  FileSink* sink = nullptr;
  // The sink's own flusher thread is created here, before g_sink is set:
  // it is not one of the program's threads.
  if (tether::Error err = FileSink::Open(where, &sink, parent_pid); !err.ok()) {
    std::fprintf(stderr, "libtether_threads: TETHER_THREADS_TRACE: %s; threads untraced\n",
                 err.message().c_str());
    return;
  }
  sink->PutNewModules();
  // Registered after the sink's own on_exit handler, so run before it: where
  // the threads still running at exit are goes into the rings it writes out.
  on_exit(
      [](int status, void*) {
        if (FileSink* sink = g_sink.load(std::memory_order_acquire)) {
          g_exit_begun.store(true, std::memory_order_release);
          RecordRunningStacks(sink, tether::threads::OtherThreads());
          EndThisProcess(sink, &status);
        }
      },
      nullptr);
  tether::threads::InstallRunningStackCapture();
  g_libtether = tether::threads::FindLibtether();
  g_previous_terminate = std::set_terminate(OnTerminate);
  tether::threads::FlushOnSignals();  // its thread, like the flusher, is not the program's
  g_sink.store(sink, std::memory_order_release);
}

}  // namespace

namespace tether::threads {

int TracedCreate(CreateFn real, std::uintptr_t caller_cfa, pthread_t* thread,
                 const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  FileSink* sink = g_sink.load(std::memory_order_acquire);
  if (sink == nullptr || t_creating_pool_threads) return real(thread, attr, fn, arg);
  const std::uint64_t id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  const Creator creator = ThisCreator();
  sink->PutNamed(EventType::kSpawn, kSpawnKindThread, id, 0, 0, creator.scope, 0, kNoSite, "thread",
                 creator.parent);
  std::uint64_t pcs[kSitePcs];
  const int pc_count = CaptureSite(caller_cfa, pcs);
  sink->PutPcs(id, pcs, pc_count);
  auto* args = new StartArgs{fn, arg, id, creator.charged};
  // The live entry is made before the thread can run (and end).
  LiveBegin(id, creator.charged, pcs, pc_count);
  pthread_t created{};
  int rc = real(&created, attr, Trampoline, args);
  if (rc != 0) {
    delete args;
    EndThisTask(sink, id);  // never ran
    return rc;
  }
  Remember(created, id);
  *thread = created;
  return 0;
}

int TracedJoin(JoinFn real, pthread_t thread, void** result) {
  // A join that never returns (the thread ignores its stop) is then reported
  // as such, not as a thread nobody joined.
  if (FileSink* sink = g_sink.load(std::memory_order_acquire))
    if (const std::uint64_t id = IdOf(thread))
      sink->Put(EventType::kThreadJoinBegin, 0, id, 0, 0, 0, 0, kNoSite);
  int rc = real(thread, result);
  FileSink* sink = g_sink.load(std::memory_order_acquire);
  if (sink == nullptr || rc != 0) return rc;
  if (std::uint64_t id = Forget(thread)) {
    sink->Put(EventType::kThreadJoin, 0, id, 0, 0, 0, 0, kNoSite);
  }
  return rc;
}

int TracedDetach(DetachFn real, std::uintptr_t caller_cfa, pthread_t thread) {
  FileSink* sink = g_sink.load(std::memory_order_acquire);
  // Forget before the real detach: the thread may end, and its pthread_t be
  // reused, as soon as it is detached.
  const std::uint64_t id = sink != nullptr ? Forget(thread) : 0;
  int rc = real(thread);
  if (id != 0 && rc == 0) {
    sink->Put(EventType::kThreadDetach, 0, id, 0, 0, 0, 0, kNoSite);
    // Where it was detached: the line `tether check` reports a detached
    // thread at, so `tether report --static` joins the two there.
    std::uint64_t pcs[kSitePcs];
    sink->PutPcs(id, pcs, CaptureSite(caller_cfa, pcs), kStackOfDetach);
  }
  return rc;
}

// The name a report gives the thread (`thread "io-poller"`), by whichever
// thread sets it: the thread itself (also once detached), or its creator.
int TracedSetName(SetNameFn real, pthread_t thread, const char* name) {
  const int rc = real(thread, name);
  FileSink* sink = g_sink.load(std::memory_order_acquire);
  if (sink == nullptr || rc != 0 || name == nullptr) return rc;
  const std::uint64_t id = pthread_equal(thread, pthread_self()) ? t_task : IdOf(thread);
  if (id != 0) sink->PutNamed(EventType::kThreadName, 0, id, 0, 0, 0, 0, kNoSite, name);
  return rc;
}

void TracedExit(ExitFn real, void* result) {
  if (FileSink* sink = g_sink.load(std::memory_order_acquire);
      sink != nullptr && t_task != 0 && !t_task_ended &&
      !g_exit_begun.load(std::memory_order_acquire)) {
    EndThisTask(sink, t_task);
  }
  t_task_ended = true;  // pthread_exit unwinds through the trampoline
  ForgetQuietCallSlot();
  real(result);
  __builtin_unreachable();
}

void RecordProcessStart(std::uintptr_t caller_cfa, pid_t pid, const char* name) {
  FileSink* sink = g_sink.load(std::memory_order_acquire);
  if (sink == nullptr || pid <= 0) return;
  const std::uint64_t id = ProcessTaskId(pid);
  const Creator creator = ThisCreator();
  sink->PutNamed(EventType::kSpawn, kSpawnKindProcess, id, 0, 0, creator.scope, 0, kNoSite,
                 name != nullptr ? name : "", creator.parent);
  std::uint64_t pcs[kSitePcs];
  sink->PutPcs(id, pcs, CaptureSite(caller_cfa, pcs));
  sink->Put(EventType::kStart, 0, id, static_cast<std::uint64_t>(pid), 0, 0, 0, kNoSite);
}

void RecordProcessEnd(pid_t pid, int status) {
  FileSink* sink = g_sink.load(std::memory_order_acquire);
  if (sink == nullptr || pid <= 0) return;
  const auto result = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? tether::ErrorCode::kOk
                                                                    : tether::ErrorCode::kFailed;
  sink->Put(EventType::kEnd, static_cast<std::uint32_t>(result), ProcessTaskId(pid), 0, 0, 0, 0,
            kNoSite);
}

}  // namespace tether::threads

extern "C" {

std::uint64_t ScopeBegin(const char* name) {
  FileSink* sink = g_sink.load(std::memory_order_acquire);
  if (sink == nullptr) return 0;
  const std::uint64_t id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  sink->PutNamed(EventType::kScopeBegin, 0, id, 0, 0, 0, 0, kNoSite, name ? name : "");
  RecordStack(sink, id, TETHER_THIS_CFA());  // the caller's site, symbolized by the tool
  t_scopes.push_back(id);
  return id;
}

// ScopeBegin with the site the caller names (a test's TEST line) in place of
// its return address.
std::uint64_t ScopeBeginAt(const char* name, const char* file, int line) {
  FileSink* sink = g_sink.load(std::memory_order_acquire);
  if (sink == nullptr) return 0;
  if (file == nullptr || *file == '\0') return ScopeBegin(name);
  const std::uint64_t id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  sink->PutNamed(EventType::kScopeBegin, 0, id, 0, 0, 0, 0, kNoSite, name ? name : "");
  sink->PutNamed(EventType::kScopeSite, 0, id, static_cast<std::uint64_t>(line < 0 ? 0 : line), 0,
                 0, 0, kNoSite, file);
  t_scopes.push_back(id);
  return id;
}

void ScopeEnd(std::uint64_t id) {
  FileSink* sink = g_sink.load(std::memory_order_acquire);
  if (sink == nullptr || id == 0) return;
  // Ended out of order, the scope is removed where it is; ended by another
  // thread, the opening thread's list keeps it (not tracked across threads).
  for (auto it = t_scopes.rbegin(); it != t_scopes.rend(); ++it) {
    if (*it == id) {
      t_scopes.erase(std::next(it).base());
      break;
    }
  }
  sink->Put(EventType::kScopeEnd, 0, id, ThisThreadTid(), 0, 0, 0, kNoSite);
  // The threads that outlive it: where each runs now (why it did not stop).
  std::vector<pid_t> running;
  {
    std::lock_guard<std::mutex> lock(g_live_mu);
    for (const auto& [thread, live] : *g_live)
      if (live.scope == id && live.tid != 0) running.push_back(live.tid);
  }
  if (!running.empty()) RecordRunningStacks(sink, running);
  sink->FlushThisThread();  // written through, as libtether's scope ends are
}

// Waits up to grace_ms for the threads charged to scope to end (woken as each
// ends, no polling); then writes up to max of those still running to out and
// returns how many there are.
std::size_t ScopeThreadsRunning(std::uint64_t scope, std::uint32_t grace_ms,
                                tether_running_thread* out, std::size_t max) {
  if (g_sink.load(std::memory_order_acquire) == nullptr || scope == 0) return 0;
  auto charged = [scope](const auto& entry) { return entry.second.scope == scope; };
  struct Running {
    std::uint64_t id;
    std::uint64_t age_ns;
    LiveThread live;
  };
  std::vector<Running> running;
  {
    std::unique_lock<std::mutex> lock(g_live_mu);
    g_live_cv.wait_for(lock, std::chrono::milliseconds(grace_ms),
                       [&] { return std::none_of(g_live->begin(), g_live->end(), charged); });
    const auto now = std::chrono::steady_clock::now();
    for (const auto& entry : *g_live) {
      if (!charged(entry)) continue;
      running.push_back(
          {entry.first,
           static_cast<std::uint64_t>(
               std::chrono::duration_cast<std::chrono::nanoseconds>(now - entry.second.created)
                   .count()),
           entry.second});
    }
  }
  // Outside the lock: symbolizing runs addr2line, and the program's threads
  // must not wait for it to start or end. A thread not asked where it runs
  // yet (it had not started when its scope ended; a libtether scope) is
  // asked now, for --ignore-top and --ignore-running and for the report.
  FileSink* sink = g_sink.load(std::memory_order_acquire);
  for (Running& r : running) {
    if (r.live.running_count != 0 || r.live.tid == 0) continue;
    tether::threads::RunningStack stack;
    if (!RecordRunningStack(sink, r.live.tid, r.id, &stack)) continue;
    std::copy(stack.pcs, stack.pcs + stack.count, r.live.running_pcs);
    r.live.running_count = stack.count;
    std::lock_guard<std::mutex> lock(g_live_mu);  // for ThreadRunningAt
    if (auto it = g_live->find(r.id); it != g_live->end()) {
      std::copy(stack.pcs, stack.pcs + stack.count, it->second.running_pcs);
      it->second.running_count = stack.count;
    }
  }
  std::size_t count = 0;
  for (const Running& r : running) {
    if (tether::threads::SiteIgnored(r.live.pcs, r.live.pc_count, *g_ignore) ||
        tether::threads::RunningIgnored(r.live.running_pcs, r.live.running_count, *g_ignore_top,
                                        *g_ignore_running)) {
      continue;
    }
    if (count < max) out[count] = {r.id, r.age_ns};
    ++count;
  }
  return count;
}

// Writes the site of a running thread charged to a scope (by its task id) to
// out; 0 when it is not one, or has no frame in the program's code.
std::size_t ThreadSite(std::uint64_t id, char* out, std::size_t cap) {
  if (g_sink.load(std::memory_order_acquire) == nullptr) return 0;
  std::uint64_t pcs[kSitePcs];
  int count = 0;
  {
    std::lock_guard<std::mutex> lock(g_live_mu);
    auto it = g_live->find(id);
    if (it == g_live->end()) return 0;
    count = it->second.pc_count;
    std::copy(it->second.pcs, it->second.pcs + count, pcs);
  }
  return tether::threads::DescribeSite(pcs, count, out, cap);
}

// Writes where a running thread charged to a scope was running when asked
// (by its task id) to out; 0 when it was never asked or has no frame in the
// program's code.
std::size_t ThreadRunningAt(std::uint64_t id, char* out, std::size_t cap) {
  if (g_sink.load(std::memory_order_acquire) == nullptr) return 0;
  std::uint64_t pcs[tether::threads::kRunningPcs];
  int count = 0;
  {
    std::lock_guard<std::mutex> lock(g_live_mu);
    auto it = g_live->find(id);
    if (it == g_live->end()) return 0;
    count = it->second.running_count;
    std::copy(it->second.running_pcs, it->second.running_pcs + count, pcs);
  }
  return count == 0 ? 0 : tether::threads::DescribeSite(pcs, count, out, cap);
}

void CreatingPoolThreads(int on) { t_creating_pool_threads = on != 0; }

// Not const: a const object would have internal linkage in C++.
__attribute__((visibility("default")))
tether_scope_api_v1 tether_scope_api_v1{ScopeBegin, ScopeEnd};
__attribute__((visibility("default"))) tether_scope_at_v1 tether_scope_at_v1{ScopeBeginAt};
__attribute__((visibility("default")))
tether_scope_threads_v1 tether_scope_threads_v1{ScopeThreadsRunning};

__attribute__((visibility("default")))
tether_thread_pool_v1 tether_thread_pool_v1{CreatingPoolThreads};
__attribute__((visibility("default"))) tether_thread_site_v1 tether_thread_site_v1{ThreadSite};
__attribute__((visibility("default")))
tether_thread_running_v1 tether_thread_running_v1{ThreadRunningAt};

}  // extern "C"
