// The process runtime: each step or service of a build is a real process
// group, started in the build's workspace directory (Vela's runtime Engine,
// with processes instead of containers).
//
// Contract:
//  - One ProcessRuntime per build (never shared between builds: Vela's
//    per-worker runtime was overwritten by concurrent builds).
//  - RunContainer starts `argv` in a new session (so a new process group)
//    with stdout and stderr on one pipe and stdin on /dev/null. Every fd the
//    worker holds is closed in the child.
//  - TailContainer hands the read end of that pipe to exactly one reader.
//  - WaitContainer honours ctx: when ctx is done first it stops the group
//    (SIGTERM, then SIGKILL after the kill grace) and reaps it. When the main
//    process exits on its own, what is left of its group (background
//    children) is killed at once, as a container's leftovers are when its
//    PID 1 exits. Either way every process of the group is reaped before it
//    returns, so a step's pipe reaches end-of-file.
//  - StopContainer/RemoveContainer stop and reap a container that is still
//    running (services, detached steps, steps of an aborted build).
//  - RemoveBuild deletes the workspace.
// Thread-safe: the executor calls these from its stage, stream and destroy tasks.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/wake_fd.hpp"
#include "tether/context.hpp"
#include "tether/error.hpp"

namespace tether::worker::runtime {

// What to run for one container.
struct ProcessSpec {
  std::string name;               // unique in the build
  std::vector<std::string> argv;  // argv[0] is looked up in PATH when it has no '/'
  std::vector<std::string> env;   // "KEY=VALUE", the whole environment
};

// How a container ended. code is the exit status, or 128+signal when a
// signal ended it (as a shell reports it).
struct ExitStatus {
  bool exited = false;  // false while running or never started
  int code = -1;
  int signal = 0;                  // the signal that ended it, if any
  bool stopped_by_worker = false;  // the worker sent SIGTERM/SIGKILL
};

// The read side of a container's output (Vela's TailContainer ReadCloser).
class LogTail {
 public:
  explicit LogTail(int fd) : fd_(fd) {}
  ~LogTail();
  LogTail(const LogTail&) = delete;
  LogTail& operator=(const LogTail&) = delete;
  // Reads up to cap bytes into buf (*n of them). Ok with data; Closed at end
  // of file; ctx.Err() when ctx is done first; kIo on a read error. Reads
  // what is ready without waiting; only an empty pipe waits (on ctx too).
  Error Read(const Context& ctx, char* buf, std::size_t cap, std::size_t* n);
  // The same, appending to *out (at most max bytes).
  Error Read(const Context& ctx, std::string* out, std::size_t max);

 private:
  int fd_;
};

class Process;
class Cgroup;

class ProcessRuntime {
 public:
  // How a container runs: a process (group) on this machine, or the same
  // inside bubblewrap (`bwrap`: its own pid, ipc and uts namespaces, a
  // read-only root, the workspace bind-mounted read-write, a tmpfs /tmp,
  // optionally no network).
  enum class Isolation { kProcess, kBwrap };
  struct Options {
    std::string workspace_root;  // the build's workspace is created under it
    Duration kill_grace = std::chrono::seconds(10);
    Isolation isolation = Isolation::kProcess;
    bool network_none = false;  // kBwrap: a network namespace of its own (loopback only)
    // The worker's workspace ledger tag: the workspace is ROOT/<build>-<owner>-XXXXXX,
    // so a dead worker's recovery removes its own workspaces only, never a live
    // worker's of the same build id (a rerun) under a shared root. "": ROOT/<build>-XXXXXX.
    std::string workspace_owner = "";
  };
  explicit ProcessRuntime(Options options);
  // Safety net only: SIGKILLs and reaps any group still running.
  ~ProcessRuntime();
  ProcessRuntime(const ProcessRuntime&) = delete;
  ProcessRuntime& operator=(const ProcessRuntime&) = delete;

  // Makes this process the reaper of orphaned descendants, so the
  // background children of a step are reparented to (and reaped by) the
  // worker instead of escaping to init. Call once at start-up.
  static void BecomeSubreaper();

  Error SetupBuild(const Context& ctx, const std::string& build_id);
  const std::string& workspace() const { return workspace_; }
  Error RunContainer(const Context& ctx, const ProcessSpec& spec);
  Error TailContainer(const Context& ctx, const std::string& name, std::unique_ptr<LogTail>* out);
  Error WaitContainer(const Context& ctx, const std::string& name, ExitStatus* status);
  // Sends SIGTERM to the group if it still runs (the grace period starts now).
  void StopContainer(const std::string& name);
  // Stops (SIGTERM unless already sent; SIGKILL once the grace period or
  // ctx ends) and reaps the group. Fills status.
  Error RemoveContainer(const Context& ctx, const std::string& name, ExitStatus* status);
  // Ends every kill grace of this build, now and later: a container that
  // was sent SIGTERM is SIGKILLed at once. (The worker's last resort after a
  // second shutdown signal.) Thread-safe, from any thread.
  void KillNow();
  Error RemoveBuild(const Context& ctx);

 private:
  Process* Find(const std::string& name);
  std::vector<std::string> BwrapArgv(const std::vector<std::string>& argv) const;

  Options options_;
  std::string workspace_;
  std::unique_ptr<Cgroup> build_cgroup_;  // null without cgroup containment; set by SetupBuild
  int containers_ = 0;                    // guarded by mu_: names the containers' cgroups
  WakeFlag kill_now_;                     // fired by KillNow
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Process>> processes_;  // guarded by mu_
};

}  // namespace tether::worker::runtime
