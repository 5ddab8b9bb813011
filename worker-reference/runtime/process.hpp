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

#include "runtime/runtime.hpp"
#include "runtime/wake_fd.hpp"
#include "tether/context.hpp"
#include "tether/error.hpp"

namespace tether::worker::runtime {

// The read side of a container's pipe (non-blocking; closed with the tail).
class PipeTail final : public LogTail {
 public:
  explicit PipeTail(int fd) : fd_(fd) {}
  ~PipeTail() override;
  PipeTail(const PipeTail&) = delete;
  PipeTail& operator=(const PipeTail&) = delete;
  using LogTail::Read;
  Error Read(const Context& ctx, char* buf, std::size_t cap, std::size_t* n) override;

 private:
  int fd_;
};

class Process;
class Cgroup;

class ProcessRuntime : public Runtime {
 public:
  using Options = RuntimeOptions;  // isolation is NewRuntime's choice: BwrapRuntime confines
  explicit ProcessRuntime(Options options);
  // Safety net only: SIGKILLs and reaps any group still running.
  ~ProcessRuntime() override;
  ProcessRuntime(const ProcessRuntime&) = delete;
  ProcessRuntime& operator=(const ProcessRuntime&) = delete;

  // Makes this process the reaper of orphaned descendants, so the
  // background children of a step are reparented to (and reaped by) the
  // worker instead of escaping to init. Call once at start-up.
  static void BecomeSubreaper();

  Error SetupBuild(const Context& ctx, const std::string& build_id) override;
  const std::string& workspace() const override { return workspace_; }
  Error RunContainer(const Context& ctx, const ProcessSpec& spec) override;
  Error TailContainer(const Context& ctx, const std::string& name,
                      std::unique_ptr<LogTail>* out) override;
  Error WaitContainer(const Context& ctx, const std::string& name, ExitStatus* status) override;
  // Sends SIGTERM to the group if it still runs (the grace period starts now).
  void StopContainer(const std::string& name) override;
  // Stops (SIGTERM unless already sent; SIGKILL once the grace period or
  // ctx ends) and reaps the group. Fills status.
  Error RemoveContainer(const Context& ctx, const std::string& name, ExitStatus* status) override;
  // Ends every kill grace of this build, now and later: a container that
  // was sent SIGTERM is SIGKILLed at once. (The worker's last resort after a
  // second shutdown signal.) Thread-safe, from any thread.
  void KillNow() override;
  Error RemoveBuild(const Context& ctx) override;

 protected:
  const Options& options() const { return options_; }
  // The command line that runs argv confined, or empty to run argv as it is
  // (a process group on this machine). BwrapRuntime wraps it in bwrap.
  virtual std::vector<std::string> ConfinedArgv(const std::vector<std::string>& argv) const {
    return {};
  }

 private:
  Process* Find(const std::string& name);

  Options options_;
  std::string workspace_;
  std::unique_ptr<Cgroup> build_cgroup_;  // null without cgroup containment; set by SetupBuild
  int containers_ = 0;                    // guarded by mu_: names the containers' cgroups
  WakeFlag kill_now_;                     // fired by KillNow
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Process>> processes_;  // guarded by mu_
};

}  // namespace tether::worker::runtime
