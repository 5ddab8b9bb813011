// The worker process (Vela's cmd/vela-worker): Start, operate, exec.
//
// Contexts and tasks (docs/worker.md has the diagram):
//   Start(ctx)          run_ctx = WithCancel(ctx): ends the signal watcher once
//                       the work is done; group `start` (TaskGroup) owns two tasks:
//     signals task      first SIGINT/SIGTERM: stop_intake(); then after
//                       --shutdown-grace or a second signal: builds_.CancelAll();
//                       then after --kill-grace or a third signal:
//                       builds_.KillAll()
//     operate task      Operate(intake_ctx): group `executors` of --build-limit
//                       loops, each: Pop(intake_ctx) -> Exec(intake_ctx, item)
//   Exec(ctx, item)     a tether::Scope per build, rooted in WithoutCancel(ctx)
//                       (the first signal drains builds, it does not cancel
//                       them); build_ctx = WithCancel(scope), registered in
//                       builds_ so that the shutdown path can cancel it;
//                       timeout_ctx = WithTimeout(build_ctx) for Create, Plan,
//                       Assemble and Exec; StreamBuild(build_ctx) in a
//                       TaskGroup owned by Exec; DestroyBuild on its own
//                       cleanup deadline after streaming drained.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cmd/flags.hpp"
#include "executor/live_output.hpp"
#include "executor/result.hpp"
#include "queue/memory_queue.hpp"
#include "tether/context.hpp"

namespace tether::worker::cmd {

// The cancel and kill functions of the running builds (Vela's executors
// map, with a lock): the shutdown path's only way into a build. CancelAll
// cancels every build's context (its steps get SIGTERM and the kill grace);
// KillAll is the last resort after that (SIGKILL now, log streams cut).
class RunningBuilds {
 public:
  // Registers a build; if CancelAll or KillAll already ran, calls it at once.
  // kill must stay callable until Remove returned.
  std::uint64_t Add(CancelFunc cancel, std::function<void()> kill);
  void Remove(std::uint64_t token);
  void CancelAll();
  void KillAll();

 private:
  struct Entry {
    CancelFunc cancel;
    std::function<void()> kill;
  };
  std::mutex mu_;
  std::map<std::uint64_t, Entry> builds_;  // guarded by mu_
  std::uint64_t next_ = 1;                 // guarded by mu_
  bool canceled_all_ = false;              // guarded by mu_
  bool killed_all_ = false;                // guarded by mu_
};

class Worker {
 public:
  Worker(RunOptions options, queue::MemoryQueue* queue, executor::LiveOutput* live,
         std::vector<std::string> worker_env);

  // Runs every queued build (or until shutdown); returns the exit status
  // of `tether-worker run`.
  int Start(const Context& ctx);

 private:
  Error Operate(const Context& ctx);
  Error Exec(const Context& ctx, queue::BuildItem item);
  Error WatchSignals(const Context& ctx, const CancelFunc& stop_intake);
  void Recorded(const executor::BuildRecord& record);

  const RunOptions options_;
  queue::MemoryQueue* queue_;
  executor::LiveOutput* live_;
  const std::vector<std::string> worker_env_;
  RunningBuilds builds_;
  std::mutex mu_;
  std::map<std::string, int> status_counts_;  // guarded by mu_
};

}  // namespace tether::worker::cmd
