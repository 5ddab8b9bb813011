// Child processes under `tether trace` (test/trace/child-processes.test): a
// program that starts others, as a CI worker starts its steps, traced as
// strace -f follows children. Each child is this program again, in a role:
//   child-processes leaky      in scope "build 1": fork + exec a child that
//                              leaves a detached thread running when it exits
//   child-processes clean      posix_spawn a child that joins its thread
//   child-processes slow       the scope ends while its child still runs
//   child-processes orphan     exits without waiting for its child
//   child-processes nested     a child starts a grandchild that leaks a thread
//   child-processes system     system() runs a shell that runs a leaky child
//   child-processes system-background
//                              system() runs a shell that leaves its command
//                              running (`&`) after the scope ends
//   child-processes popen      popen() runs a shell that runs a leaky child
//   child-processes system-status, popen-status
//                              what the calls return, traced as untraced
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "tether/trace/scope.h"

extern char** environ;

namespace {

std::string g_self;  // this program's path (argv[0])

// fork + exec of this program in role; returns the child's pid.
pid_t ForkExec(const char* role) {
  const pid_t pid = fork();
  if (pid == 0) {
    execl(g_self.c_str(), g_self.c_str(), role, static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int Reap(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The children's roles.
// The thread is asleep at its line when the child exits (the report says
// where it was running): the child waits until the thread has begun, then
// gives it time to enter its sleep. Without the wait, a loaded machine that
// had not yet run the new thread left it nowhere to be found (a CI flake).
int LeavesThreadRunning() {
  static std::atomic<bool> begun{false};
  std::thread([] {
    begun.store(true);
    std::this_thread::sleep_for(std::chrono::hours(1));
  }).detach();
  while (!begun.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return 0;
}

int JoinsItsThread() {
  std::thread worker([] { std::this_thread::sleep_for(std::chrono::milliseconds(5)); });
  worker.join();
  return 0;
}

int RunsAWhile(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return 0;
}

int StartsLeakyGrandchild() { return Reap(ForkExec("child-leaky")); }

// The parent's scenarios.
int Leaky() {
  const std::uint64_t build = tether_scope_begin("build 1");
  const int rc = Reap(ForkExec("child-leaky"));
  tether_scope_end(build);
  return rc;
}

int Clean() {
  const std::uint64_t build = tether_scope_begin("build 1");
  char role[] = "child-clean";
  char* argv[] = {g_self.data(), role, nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, g_self.c_str(), nullptr, nullptr, argv, environ) != 0) return 2;
  const int rc = Reap(pid);
  tether_scope_end(build);
  return rc;
}

int Slow() {
  const std::uint64_t build = tether_scope_begin("build 1");
  const pid_t pid = ForkExec("child-slow");
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  tether_scope_end(build);  // the step is still running
  return Reap(pid);
}

int Orphan() {
  const std::uint64_t build = tether_scope_begin("build 1");
  ForkExec("child-orphan");  // never waited for
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  (void)build;  // the scope never ends either
  return 0;
}

int Nested() {
  const std::uint64_t build = tether_scope_begin("build 1");
  const int rc = Reap(ForkExec("child-nested"));
  tether_scope_end(build);
  return rc;
}

int System() {
  const std::uint64_t build = tether_scope_begin("build 1");
  const std::string command = "'" + g_self + "' child-leaky";
  const int rc = std::system(command.c_str());
  tether_scope_end(build);
  return rc == 0 ? 0 : 1;
}

// The shell returns at once; its command runs on after the scope's end and
// ends before the program's: the program does not wait for it, but reads a
// pipe the command holds open until it exits (no timing to miss on a loaded
// machine). The command starts only once the shell is gone (reaped by
// system()), so its parent is init by then, as a daemon's is.
int SystemBackground() {
  int ended[2];
  if (pipe(ended) != 0) return 2;
  const std::uint64_t build = tether_scope_begin("build 1");
  const std::string command =
      "( while kill -0 $$ 2>/dev/null; do :; done; exec '" + g_self + "' child-slow ) &";
  const int rc = std::system(command.c_str());
  tether_scope_end(build);
  close(ended[1]);
  char byte;
  while (read(ended[0], &byte, 1) > 0) {
  }
  return rc == 0 ? 0 : 1;
}

// popen() in a scope: the shell it starts runs a leaky child; the program
// reads what the command printed, then pclose() waits for it.
int Popen() {
  const std::uint64_t build = tether_scope_begin("build 1");
  const std::string command = "'" + g_self + "' child-leaky; echo done";
  FILE* out = popen(command.c_str(), "r");
  if (out == nullptr) return 2;
  char line[64] = {};
  const bool read = std::fgets(line, sizeof line, out) != nullptr;
  const int status = pclose(out);
  tether_scope_end(build);
  return read && std::strcmp(line, "done\n") == 0 && status == 0 ? 0 : 1;
}

// What popen() and pclose() return and do, as libc's.
int PopenStatus() {
  FILE* out = popen("echo hello; exit 4", "r");
  char line[64] = {};
  if (out != nullptr && std::fgets(line, sizeof line, out) != nullptr)
    std::printf("popen(\"echo hello; exit 4\", \"r\") read: %s", line);
  const int status = out != nullptr ? pclose(out) : -1;
  std::printf("its pclose: exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  FILE* in = popen("read word; test \"$word\" = hi", "we");
  if (in != nullptr) std::fputs("hi\n", in);
  const int written = in != nullptr ? pclose(in) : -1;
  std::printf("popen(..., \"we\") read what was written: %s\n", written == 0 ? "yes" : "no");
  errno = 0;
  FILE* bad = popen("true", "rw");
  std::printf("popen(\"true\", \"rw\"): %s\n",
              bad == nullptr && errno == EINVAL ? "EINVAL" : "accepted");
  // Two at once: the second shell must not hold the first's stream, or the
  // first cat never sees its input end and pclose() waits for ever (the
  // alarm ends the program then).
  alarm(20);
  FILE* both[2] = {popen("cat", "w"), nullptr};
  both[1] = popen("cat", "w");
  const int first = both[0] != nullptr ? pclose(both[0]) : -1;
  std::printf("two streams: first closed %s\n", first == 0 ? "ok" : "failed");
  if (both[1] != nullptr) pclose(both[1]);
  return 0;
}

void OnInterrupt(int) {}

// What system() returns, and that the caller's SIGINT action and signal mask
// are as they were after it (the shell ran with SIGINT ignored here).
int SystemStatus() {
  std::printf("system(NULL): %s\n", std::system(nullptr) != 0 ? "a shell is there" : "no shell");
  auto describe = [](const char* command) {
    const int status = std::system(command);
    if (WIFEXITED(status))
      std::printf("system(\"%s\"): exited %d\n", command, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
      std::printf("system(\"%s\"): killed by signal %d\n", command, WTERMSIG(status));
  };
  struct sigaction own {};
  own.sa_handler = OnInterrupt;
  sigemptyset(&own.sa_mask);
  sigaction(SIGINT, &own, nullptr);
  describe("exit 3");
  describe("kill -INT $$");
  describe("no-such-command-here 2>/dev/null");
  struct sigaction after {};
  sigaction(SIGINT, nullptr, &after);
  std::printf("SIGINT's action after: %s\n",
              after.sa_handler == OnInterrupt ? "the caller's own" : "changed");
  sigset_t mask;
  sigprocmask(SIG_SETMASK, nullptr, &mask);
  std::printf("SIGCHLD blocked after: %s\n", sigismember(&mask, SIGCHLD) ? "yes" : "no");
  errno = 42;
  std::system("true");
  std::printf("errno kept: %s\n", errno == 42 ? "yes" : "no");
  // A thread cancelled in its system(): the shell is killed (the join
  // returns long before its 30 s), and the caller's signals are given back.
  pthread_t runner;
  pthread_create(
      &runner, nullptr,
      [](void*) -> void* {
        std::system("exec sleep 30");
        return nullptr;
      },
      nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  pthread_cancel(runner);
  void* result = nullptr;
  pthread_join(runner, &result);
  sigaction(SIGINT, nullptr, &after);
  std::printf("a cancelled system(): %s; SIGINT's action after: %s\n",
              result == PTHREAD_CANCELED ? "cancelled" : "returned",
              after.sa_handler == OnInterrupt ? "the caller's own" : "changed");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  g_self = argv[0];
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "child-leaky") return LeavesThreadRunning();
  if (what == "child-clean") return JoinsItsThread();
  if (what == "child-slow") return RunsAWhile(300);
  if (what == "child-nested") return StartsLeakyGrandchild();
  if (what == "child-orphan") {
    // Outlives the program: nothing of it keeps the test's output open.
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    return RunsAWhile(1500);
  }
  if (what == "leaky") return Leaky();
  if (what == "clean") return Clean();
  if (what == "slow") return Slow();
  if (what == "orphan") return Orphan();
  if (what == "nested") return Nested();
  if (what == "system") return System();
  if (what == "system-background") return SystemBackground();
  if (what == "system-status") return SystemStatus();
  if (what == "popen") return Popen();
  if (what == "popen-status") return PopenStatus();
  std::fprintf(stderr,
               "usage: child-processes leaky|clean|slow|orphan|nested|system|system-background|"
               "system-status|popen|popen-status\n");
  return 2;
}
