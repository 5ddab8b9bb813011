#include "running_stacks.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "stack_capture.hpp"

namespace tether::threads {
namespace {

// glibc keeps SIGRTMIN and SIGRTMIN + 1 for itself (SIGRTMIN() is already
// past them); programs that use real-time signals mostly count up from
// SIGRTMIN(), so this one counts down from the top.
int RunningStackSignal() { return SIGRTMAX - 3; }

constexpr auto kAnswerWait = std::chrono::milliseconds(100);

// The one request in flight (requests are serialized by g_requester_mu).
// States: idle; asked (tid is the target); answering (the target's handler
// fills the slot); answered. A handler that runs late (its request given up,
// or a reused tid) finds the state or the tid is not its own and does nothing.
enum : int { kIdle, kAsked, kAnswering, kAnswered };
struct Request {
  std::atomic<int> state{kIdle};
  std::atomic<pid_t> tid{0};
  std::uint64_t id = 0;
  int count = 0;
  std::uint64_t pcs[kRunningPcs] = {};
};
Request g_request;
std::mutex g_requester_mu;
std::atomic<bool> g_installed{false};

std::uint64_t InterruptedPc(const void* context) {
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<std::uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<std::uint64_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

// The QuietCall registry: a thread's slot says whether it is in a wrapped
// interruptible call (depth), readable by the asking thread by tid. Slots
// are claimed on a thread's first QuietCall and freed when a traced thread
// ends; a full table, or a lookup that an emptied slot cuts short, only
// means a thread is not asked (as before the wrappers).
constexpr int kQuietSlots = 4096;
struct QuietSlot {
  std::atomic<pid_t> tid{0};
  std::atomic<int> depth{0};
};
QuietSlot g_quiet_slots[kQuietSlots];
thread_local QuietSlot* t_quiet_slot = nullptr;
thread_local bool t_quiet_looked = false;
// Set by the handler on the thread it interrupted: the EINTR the wrapper is
// about to see is the asking's, not the program's.
thread_local volatile sig_atomic_t t_asked_interrupt = 0;

QuietSlot* ThisQuietSlot() {
  if (t_quiet_looked) return t_quiet_slot;
  t_quiet_looked = true;
  const auto tid = static_cast<pid_t>(syscall(SYS_gettid));
  for (int i = 0; i < kQuietSlots; ++i) {
    QuietSlot& slot = g_quiet_slots[(static_cast<unsigned>(tid) + i) % kQuietSlots];
    pid_t seen = slot.tid.load(std::memory_order_acquire);
    if (seen == tid || (seen == 0 && slot.tid.compare_exchange_strong(seen, tid))) {
      slot.depth.store(0, std::memory_order_relaxed);
      t_quiet_slot = &slot;
      break;
    }
  }
  return t_quiet_slot;
}

void OnRunningStackSignal(int, siginfo_t*, void* context) {
  const int saved_errno = errno;
  t_asked_interrupt = 1;
  int asked = kAsked;
  if (g_request.tid.load(std::memory_order_acquire) == static_cast<pid_t>(syscall(SYS_gettid)) &&
      g_request.state.compare_exchange_strong(asked, kAnswering, std::memory_order_acq_rel)) {
    const std::uint64_t id = TakeRunningStackTask();
    g_request.id = id;
    g_request.count =
        id == 0 ? 0 : CaptureInterrupted(InterruptedPc(context), g_request.pcs, kRunningPcs);
    g_request.state.store(kAnswered, std::memory_order_release);
  }
  errno = saved_errno;
}

// The program may have taken the signal over since: then it is not sent.
bool HandlerStillOurs() {
  struct sigaction now {};
  return g_installed.load(std::memory_order_acquire) &&
         sigaction(RunningStackSignal(), nullptr, &now) == 0 && (now.sa_flags & SA_SIGINFO) != 0 &&
         now.sa_sigaction == OnRunningStackSignal;
}

// Whether thread tid blocks the signal (its SigBlk line in /proc).
bool Blocks(pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/status", static_cast<int>(tid));
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return true;  // gone
  char line[256];
  bool blocked = false;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, "SigBlk:", 7) != 0) continue;
    const unsigned long long mask = std::strtoull(line + 7, nullptr, 16);
    blocked = ((mask >> (RunningStackSignal() - 1)) & 1) != 0;
    break;
  }
  std::fclose(f);
  return blocked;
}

// The first field of /proc/self/task/TID/syscall ("" when unreadable).
std::string SyscallState(pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/syscall", static_cast<int>(tid));
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return "";
  char first[32] = {};
  const bool read = std::fscanf(f, "%31s", first) == 1;
  std::fclose(f);
  return read ? first : "";
}

// Whether a signal with a handler leaves thread tid's program as it was: the
// thread runs in user space, or sleeps in a system call that SA_RESTART
// resumes as if nothing happened (/proc/self/task/TID/syscall names it).
// Others end early with EINTR whatever the handler's flags (pause, sleep,
// poll, select, epoll_wait, sigwait: signal(7)), and a thread that ends its loop on
// EINTR would stop because it was asked: those are not asked. (The thread may
// enter such a call between this read and the signal: a window of
// microseconds, taken; at exit a thread's end after that is not recorded.)
// The calls a QuietCall wrapper takes the asking's EINTR for (what glibc's
// nanosleep, sleep, usleep, poll, select, epoll_wait, pause and the sigwait
// family enter).
bool QuietSyscall(long nr) {
  switch (nr) {
    case SYS_nanosleep:
    case SYS_clock_nanosleep:
    case SYS_poll:
    case SYS_ppoll:
    case SYS_select:
    case SYS_pselect6:
    case SYS_rt_sigtimedwait:
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
    case SYS_pause:
      return true;
    default:
      return false;
  }
}

bool ResumesTransparently(pid_t tid) {
  std::string state = SyscallState(tid);
  // A thread seen running may be on its way into such a call (one just
  // started, about to sleep): it is asked only if it is still running a
  // few milliseconds later, busy rather than passing through.
  for (int look = 0; look < 3 && state == "running"; ++look) {
    const timespec pause{0, 1'000'000};
    nanosleep(&pause, nullptr);
    state = SyscallState(tid);
  }
  if (state == "running") return true;
  const char* first = state.c_str();
  char* end = nullptr;
  const long nr = std::strtol(first, &end, 10);
  if (end == first || *end != '\0') return false;
  switch (nr) {
    case SYS_futex:  // mutexes, condition variables, joins
    case SYS_read:
    case SYS_write:
    case SYS_readv:
    case SYS_writev:
    case SYS_pread64:
    case SYS_pwrite64:
    case SYS_recvfrom:
    case SYS_recvmsg:
    case SYS_sendto:
    case SYS_sendmsg:
    case SYS_accept:
    case SYS_accept4:
    case SYS_wait4:
    case SYS_waitid:
    case SYS_flock:
    case SYS_fcntl:
      return true;
    default:
      // -1 (stopped), or a call a signal cuts short: asked only inside a
      // wrapper that goes on after the asking's EINTR.
      return QuietSyscall(nr) && InQuietCall(tid);
  }
}

}  // namespace

void InstallRunningStackCapture() {
  struct sigaction now {};
  if (sigaction(RunningStackSignal(), nullptr, &now) != 0 || now.sa_handler != SIG_DFL ||
      (now.sa_flags & SA_SIGINFO) != 0) {
    return;
  }
  struct sigaction capture {};
  capture.sa_sigaction = OnRunningStackSignal;
  sigemptyset(&capture.sa_mask);
  // SA_RESTART: the interrupted call goes on (a condition variable's wait
  // goes back to sleep; it does not return).
  capture.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  if (sigaction(RunningStackSignal(), &capture, nullptr) == 0) {
    g_installed.store(true, std::memory_order_release);
  }
}

bool CaptureRunningStack(pid_t tid, RunningStack* out) {
  if (!HandlerStillOurs() || !ResumesTransparently(tid)) return false;
  std::lock_guard<std::mutex> lock(g_requester_mu);
  g_request.tid.store(tid, std::memory_order_relaxed);
  g_request.state.store(kAsked, std::memory_order_release);
  if (syscall(SYS_tgkill, getpid(), tid, RunningStackSignal()) != 0) {
    g_request.state.store(kIdle, std::memory_order_release);
    return false;
  }
  const auto deadline = std::chrono::steady_clock::now() + kAnswerWait;
  for (;;) {
    int state = g_request.state.load(std::memory_order_acquire);
    if (state == kAnswered) break;
    if (state == kAsked && std::chrono::steady_clock::now() >= deadline &&
        g_request.state.compare_exchange_strong(state, kIdle, std::memory_order_acq_rel)) {
      return false;  // a handler that runs later finds the request withdrawn
    }
    const timespec pause{0, 20'000};
    nanosleep(&pause, nullptr);
  }
  out->id = g_request.id;
  out->count = g_request.count;
  std::memcpy(out->pcs, g_request.pcs, sizeof out->pcs);
  g_request.state.store(kIdle, std::memory_order_release);
  return out->id != 0 && out->count > 0;
}

QuietCall::QuietCall() : slot_(ThisQuietSlot()) {
  t_asked_interrupt = 0;
  if (slot_ != nullptr)
    static_cast<QuietSlot*>(slot_)->depth.fetch_add(1, std::memory_order_seq_cst);
}

QuietCall::~QuietCall() {
  if (slot_ != nullptr)
    static_cast<QuietSlot*>(slot_)->depth.fetch_sub(1, std::memory_order_seq_cst);
}

bool QuietCall::AskedMeanwhile() {
  if (t_asked_interrupt == 0) return false;
  t_asked_interrupt = 0;
  return true;
}

bool InQuietCall(pid_t tid) {
  for (int i = 0; i < kQuietSlots; ++i) {
    const QuietSlot& slot = g_quiet_slots[(static_cast<unsigned>(tid) + i) % kQuietSlots];
    const pid_t seen = slot.tid.load(std::memory_order_acquire);
    if (seen == tid) return slot.depth.load(std::memory_order_seq_cst) > 0;
    if (seen == 0) return false;
  }
  return false;
}

void ForgetQuietCallSlot() {
  if (t_quiet_slot != nullptr) t_quiet_slot->tid.store(0, std::memory_order_release);
  t_quiet_slot = nullptr;
}

std::vector<pid_t> OtherThreads() {
  std::vector<pid_t> tids;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return tids;
  const auto self = static_cast<pid_t>(syscall(SYS_gettid));
  while (const dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long tid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || tid == self) continue;
    if (!Blocks(static_cast<pid_t>(tid))) tids.push_back(static_cast<pid_t>(tid));
  }
  closedir(dir);
  return tids;
}

}  // namespace tether::threads
