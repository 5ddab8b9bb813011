// system(), popen() and pclose(), done here as glibc does them but through
// the traced posix_spawn and waitpid (child_processes.cpp): the shell each
// starts is a `process` task of the scope open where it was called, and what
// the shell starts is charged there too. libc's own start their shell inside
// libc, where no interposed call sees it.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "interpose.hpp"

extern char** environ;

namespace {

// SIGINT and SIGQUIT are ignored in the caller while any system() runs: the
// first call to begin saves their actions, the last to end restores them
// (glibc's system() does the same, so concurrent calls do not restore an
// action another still needs ignored).
std::mutex g_system_mu;
int g_systems_running = 0;      // guarded by g_system_mu
struct sigaction g_saved_int;   // guarded by g_system_mu
struct sigaction g_saved_quit;  // guarded by g_system_mu

void IgnoreInterrupts(struct sigaction* intr, struct sigaction* quit) {
  std::lock_guard<std::mutex> lock(g_system_mu);
  if (g_systems_running++ == 0) {
    struct sigaction ignore;
    std::memset(&ignore, 0, sizeof ignore);
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

// Waits for the shell pid to end, through the traced waitpid (which records
// its end), again when a signal cut the wait short; false on another error
// (errno says which).
bool ReapShell(tether::threads::WaitPidFn real_wait, pid_t pid, int* status) {
  while (tether::threads::TracedWaitPid(real_wait, pid, status, 0) != pid) {
    if (errno != EINTR) return false;
  }
  return true;
}

// One system() call's hold on the caller's signals, as POSIX specifies and
// glibc does it: SIGINT and SIGQUIT ignored and SIGCHLD blocked while the
// shell runs; the shell gets the caller's mask and the default actions of
// those the caller did not ignore. Given back however the call ends: its
// return, or the unwinding of a pthread_cancel in its wait, when (as glibc
// does) the shell is killed and reaped first.
class ShellSignals {
 public:
  ShellSignals() {
    struct sigaction intr;
    struct sigaction quit;
    IgnoreInterrupts(&intr, &quit);
    sigset_t child_ended;
    sigemptyset(&child_ended);
    sigaddset(&child_ended, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &child_ended, &caller_mask_);
    sigemptyset(&shell_defaults_);
    if (intr.sa_handler != SIG_IGN) sigaddset(&shell_defaults_, SIGINT);
    if (quit.sa_handler != SIG_IGN) sigaddset(&shell_defaults_, SIGQUIT);
  }
  ShellSignals(const ShellSignals&) = delete;
  ShellSignals& operator=(const ShellSignals&) = delete;

  ~ShellSignals() {
    if (shell_ > 0) {  // cancelled while waiting for it
      int cancel_state = 0;
      pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
      kill(shell_, SIGKILL);
      int status = 0;
      ReapShell(real_wait_, shell_, &status);
      pthread_setcancelstate(cancel_state, nullptr);
    }
    RestoreInterrupts();
    pthread_sigmask(SIG_SETMASK, &caller_mask_, nullptr);
  }

  const sigset_t& caller_mask() const { return caller_mask_; }
  const sigset_t& shell_defaults() const { return shell_defaults_; }
  void Waiting(pid_t shell, tether::threads::WaitPidFn real_wait) {
    shell_ = shell;
    real_wait_ = real_wait;
  }
  void Reaped() { shell_ = 0; }

 private:
  sigset_t caller_mask_;
  sigset_t shell_defaults_;
  pid_t shell_ = 0;  // the shell being waited for (0: none)
  tether::threads::WaitPidFn real_wait_ = nullptr;
};

// sh -c -- command, through the traced posix_spawn.
int SpawnShell(tether::threads::SpawnFn real_spawn, std::uintptr_t caller_cfa, pid_t* pid,
               const posix_spawn_file_actions_t* actions, const posix_spawnattr_t* attr,
               const char* command) {
  char sh[] = "sh", dash_c[] = "-c", end_of_options[] = "--";
  char* argv[] = {sh, dash_c, end_of_options, const_cast<char*>(command), nullptr};
  return tether::threads::TracedSpawn(real_spawn, caller_cfa, pid, "/bin/sh", actions, attr, argv,
                                      environ);
}

// The streams popen() returned and pclose() has not closed, each with its
// shell: a list (a program has a few at a time), each entry freed by its
// pclose().
struct PipeStream {
  FILE* stream;
  pid_t pid;
  PipeStream* next;
};
std::mutex g_streams_mu;
PipeStream* g_streams = nullptr;  // guarded by g_streams_mu

}  // namespace

namespace tether::threads {

int TracedSystem(SpawnFn real_spawn, WaitPidFn real_wait, std::uintptr_t caller_cfa,
                 const char* command) {
  ShellSignals held;
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &held.caller_mask());
  posix_spawnattr_setsigdefault(&attr, &held.shell_defaults());
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  int status = 0;
  const int error = SpawnShell(real_spawn, caller_cfa, &pid, nullptr, &attr, command);
  posix_spawnattr_destroy(&attr);
  if (error != 0) return 127 << 8;  // as if the shell had run and called _exit(127)
  held.Waiting(pid, real_wait);
  const bool reaped = ReapShell(real_wait, pid, &status);
  held.Reaped();
  return reaped ? status : -1;  // errno is waitpid's
}

FILE* TracedPopen(SpawnFn real_spawn, WaitPidFn real_wait, std::uintptr_t caller_cfa,
                  const char* command, const char* mode) {
  // One of 'r' and 'w', and 'e' for a close-on-exec stream, in any order
  // (glibc's modes).
  bool reads = false, writes = false, cloexec = false, known = mode != nullptr;
  for (const char* m = mode; known && *m != '\0'; ++m) {
    reads |= *m == 'r';
    writes |= *m == 'w';
    cloexec |= *m == 'e';
    known = *m == 'r' || *m == 'w' || *m == 'e';
  }
  if (!known || reads == writes) {
    errno = EINVAL;
    return nullptr;
  }
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) return nullptr;
  const int ours = reads ? ends[0] : ends[1];
  int theirs = reads ? ends[1] : ends[0];
  const int their_std = reads ? STDOUT_FILENO : STDIN_FILENO;
  if (theirs == their_std) {  // stdin or stdout was closed: dup2 onto itself keeps CLOEXEC
    const int moved = fcntl(theirs, F_DUPFD_CLOEXEC, 3);
    close(theirs);
    if (moved < 0) {
      close(ours);
      return nullptr;
    }
    theirs = moved;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, theirs, their_std);
  pid_t pid = 0;
  int error = 0;
  FILE* stream = nullptr;
  {
    // POSIX: the streams of earlier popen() calls are closed in the new
    // child (so a reader of one sees its end when its own child exits).
    std::lock_guard<std::mutex> lock(g_streams_mu);
    for (PipeStream* s = g_streams; s != nullptr; s = s->next)
      posix_spawn_file_actions_addclose(&actions, fileno(s->stream));
    error = SpawnShell(real_spawn, caller_cfa, &pid, &actions, nullptr, command);
    if (error == 0) {
      if (!cloexec) fcntl(ours, F_SETFD, 0);
      stream = fdopen(ours, reads ? "r" : "w");
      if (stream != nullptr) g_streams = new PipeStream{stream, pid, g_streams};
    }
  }
  posix_spawn_file_actions_destroy(&actions);
  close(theirs);
  if (error != 0 || stream == nullptr) {
    const int why = error != 0 ? error : errno;
    close(ours);
    if (error == 0) {  // started, but no stream to give: its end is waited for here
      int status = 0;
      ReapShell(real_wait, pid, &status);
    }
    errno = why;
    return nullptr;
  }
  return stream;
}

int TracedPclose(WaitPidFn real_wait, FILE* stream) {
  pid_t pid = -1;
  {
    std::lock_guard<std::mutex> lock(g_streams_mu);
    for (PipeStream** at = &g_streams; *at != nullptr; at = &(*at)->next) {
      if ((*at)->stream != stream) continue;
      PipeStream* found = *at;
      pid = found->pid;
      *at = found->next;
      delete found;
      break;
    }
  }
  // Not a stream of this popen()'s: closed, as glibc's pclose() closes any
  // stream (one of libc's own popen() is waited for by its fclose).
  if (pid < 0) return std::fclose(stream);
  std::fclose(stream);
  int status = 0;
  return ReapShell(real_wait, pid, &status) ? status : -1;
}

}  // namespace tether::threads
