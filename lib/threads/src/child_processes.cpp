// The processes a traced program starts: recorded in the parent as `process`
// tasks when started (fork, posix_spawn, system) and ended when reaped
// (waitpid, wait, wait4); traced inside by their own copy of this library
// (threads.cpp, TETHER_THREADS_CHILDREN), as strace -f follows children.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <mutex>
#include <unordered_set>

#include "interpose.hpp"

namespace {

// The children started traced and not reaped yet: a reap records an end only
// for them (a pid the program reaps that it started untraced, or through
// system(), names no task). Never freed: reaps may come during exit.
std::mutex g_children_mu;
std::unordered_set<pid_t>* g_children = nullptr;  // guarded by g_children_mu

void Started(pid_t pid) {
  std::lock_guard<std::mutex> lock(g_children_mu);
  if (g_children == nullptr) g_children = new std::unordered_set<pid_t>();
  g_children->insert(pid);
}

// Records the end of pid when it is a traced child that has ended (a status
// of a stopped or continued child is no end).
void Reaped(pid_t pid, int status) {
  if (pid <= 0 || !(WIFEXITED(status) || WIFSIGNALED(status))) return;
  {
    std::lock_guard<std::mutex> lock(g_children_mu);
    if (g_children == nullptr || g_children->erase(pid) == 0) return;
  }
  tether::threads::RecordProcessEnd(pid, status);
}

// SIGINT and SIGQUIT are ignored in the caller while any system() runs: the
// first call to begin saves their actions, the last to end restores them
// (glibc's system() does the same, so concurrent calls do not restore an
// action another still needs ignored).
std::mutex g_system_mu;
int g_systems_running = 0;         // guarded by g_system_mu
struct sigaction g_saved_int {};   // guarded by g_system_mu
struct sigaction g_saved_quit {};  // guarded by g_system_mu

void IgnoreInterrupts(struct sigaction* intr, struct sigaction* quit) {
  std::lock_guard<std::mutex> lock(g_system_mu);
  if (g_systems_running++ == 0) {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, &ignore, &g_saved_int);
    sigaction(SIGQUIT, &ignore, &g_saved_quit);
  }
  *intr = g_saved_int;
  *quit = g_saved_quit;
}

void RestoreInterrupts() {
  std::lock_guard<std::mutex> lock(g_system_mu);
  if (--g_systems_running == 0) {
    sigaction(SIGINT, &g_saved_int, nullptr);
    sigaction(SIGQUIT, &g_saved_quit, nullptr);
  }
}

}  // namespace

extern char** environ;

namespace tether::threads {

pid_t TracedFork(ForkFn real, std::uintptr_t caller_cfa) {
  const pid_t pid = real();
  if (pid > 0) {
    // Before it is recorded: a reap on another thread must find it.
    Started(pid);
    RecordProcessStart(caller_cfa, pid, "");
  }
  return pid;
}

int TracedSpawn(SpawnFn real, std::uintptr_t caller_cfa, pid_t* pid, const char* path,
                const posix_spawn_file_actions_t* actions, const posix_spawnattr_t* attr,
                char* const argv[], char* const envp[]) {
  pid_t child = 0;
  const int rc = real(&child, path, actions, attr, argv, envp);
  if (pid != nullptr) *pid = child;
  if (rc == 0 && child > 0) {
    Started(child);
    RecordProcessStart(caller_cfa, child, argv != nullptr && argv[0] != nullptr ? argv[0] : path);
  }
  return rc;
}

int TracedSystem(SpawnFn real_spawn, WaitPidFn real_wait, std::uintptr_t caller_cfa,
                 const char* command) {
  // As POSIX specifies and glibc does it: SIGCHLD blocked and SIGINT, SIGQUIT
  // ignored in the caller while the shell runs; the shell gets the caller's
  // mask and the default actions of those it did not ignore already.
  struct sigaction intr {
  }, quit{};
  IgnoreInterrupts(&intr, &quit);
  sigset_t child_ended, caller_mask;
  sigemptyset(&child_ended);
  sigaddset(&child_ended, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &child_ended, &caller_mask);
  sigset_t reset;
  sigemptyset(&reset);
  if (intr.sa_handler != SIG_IGN) sigaddset(&reset, SIGINT);
  if (quit.sa_handler != SIG_IGN) sigaddset(&reset, SIGQUIT);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &caller_mask);
  posix_spawnattr_setsigdefault(&attr, &reset);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  char sh[] = "sh", dash_c[] = "-c", end_of_options[] = "--";
  char* argv[] = {sh, dash_c, end_of_options, const_cast<char*>(command), nullptr};
  pid_t pid = 0;
  int status = 0;
  int error = TracedSpawn(real_spawn, caller_cfa, &pid, "/bin/sh", nullptr, &attr, argv, environ);
  posix_spawnattr_destroy(&attr);
  if (error == 0) {
    while (TracedWaitPid(real_wait, pid, &status, 0) != pid) {
      if (errno != EINTR) {
        error = errno;
        status = -1;
        break;
      }
    }
  } else {
    status = 127 << 8;  // as if the shell had run and called _exit(127)
  }
  RestoreInterrupts();
  pthread_sigmask(SIG_SETMASK, &caller_mask, nullptr);
  if (status == -1) errno = error;
  return status;
}

pid_t TracedWaitPid(WaitPidFn real, pid_t pid, int* status, int options) {
  int seen = 0;
  const pid_t reaped = real(pid, &seen, options);
  if (status != nullptr) *status = seen;
  if (reaped > 0 && (options & WNOWAIT) == 0) Reaped(reaped, seen);
  return reaped;
}

pid_t TracedWait(WaitFn real, int* status) {
  int seen = 0;
  const pid_t reaped = real(&seen);
  if (status != nullptr) *status = seen;
  Reaped(reaped, seen);
  return reaped;
}

pid_t TracedWait4(Wait4Fn real, pid_t pid, int* status, int options, struct rusage* usage) {
  int seen = 0;
  const pid_t reaped = real(pid, &seen, options, usage);
  if (status != nullptr) *status = seen;
  if (reaped > 0 && (options & WNOWAIT) == 0) Reaped(reaped, seen);
  return reaped;
}

}  // namespace tether::threads
