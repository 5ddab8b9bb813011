// The processes a traced program starts: recorded in the parent as `process`
// tasks when started (fork, posix_spawn; system and popen through
// shell_commands.cpp) and ended when reaped (waitpid, wait, wait4); traced
// inside by their own copy of this library (threads.cpp,
// TETHER_THREADS_CHILDREN), as strace -f follows children.
#include <sys/wait.h>

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

}  // namespace

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
