// The worker process (Vela's cmd/vela-worker): Start, operate, exec.
//
// Contexts and tasks (docs/worker.md has the diagram):
//   Start(ctx, side)    run_ctx = WithCancel(ctx): ends the signal watcher, the
//                       reaper and the side tasks once the work is done; group
//                       `start` (TaskGroup) owns them and the operate task:
//     signals task      first SIGINT/SIGTERM: stop_intake(); then after
//                       --shutdown-grace or a second signal: builds_.CancelAll();
//                       then after --kill-grace or a third signal:
//                       builds_.KillAll()
//     reaper task       on SIGCHLD: reaps children that left their step and
//                       exited (the worker is their subreaper)
//     operate task      Operate(intake_ctx): group `executors` of --build-limit
//                       loops, each: Pop(intake_ctx) -> Exec(intake_ctx, item)
//     side tasks        (serve) the queue's heartbeat, the HTTP API: until
//                       the executor loops returned
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
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "api/control.hpp"
#include "cmd/flags.hpp"
#include "cmd/workspace_ledger.hpp"
#include "executor/engine.hpp"
#include "executor/live_output.hpp"
#include "executor/result.hpp"
#include "queue/queue.hpp"
#include "tether/context.hpp"

namespace tether::worker::cmd {

// The running build of each executor slot, with its cancel and kill
// functions (Vela's executors map, with a lock): the shutdown path's and the
// API's only way into a build. CancelAll cancels every build's context (its
// steps get SIGTERM and the kill grace); KillAll is the last resort after
// that (SIGKILL now, log streams cut); Cancel(slot) is the API's.
class RunningBuilds {
 public:
  explicit RunningBuilds(int slots);
  // Registers slot's build; if CancelAll or KillAll already ran, calls it at
  // once. kill must stay callable until End returned.
  void Begin(const api::SlotInfo& info, CancelFunc cancel, std::function<void()> kill);
  void End(int slot);
  void CancelAll();
  void KillAll();
  api::WorkerControl::CancelResult Cancel(int slot, std::string* build_id);
  // Cancels build id if a slot runs it; false if none does.
  bool CancelBuild(const std::string& id);
  std::vector<api::SlotInfo> Slots() const;

 private:
  struct Entry {
    api::SlotInfo info;
    CancelFunc cancel;
    std::function<void()> kill;
  };
  mutable std::mutex mu_;
  std::vector<Entry> slots_;   // guarded by mu_
  bool canceled_all_ = false;  // guarded by mu_
  bool killed_all_ = false;    // guarded by mu_
};

// A task that runs beside the executors for as long as the worker takes
// builds (the Redis heartbeat, the HTTP API): its ctx is cancelled once the
// executor loops returned. An error stops intake, like an executor's.
struct SideTask {
  std::string name;
  std::function<Error(const Context&)> run;
};

class Worker : public api::WorkerControl {
 public:
  // worker_name names this worker in the results it acknowledges.
  Worker(RunOptions options, queue::BuildSource* queue, executor::LiveOutput* live,
         std::vector<std::string> worker_env, std::string worker_name = "");

  // Runs builds until the queue is exhausted (run) or a shutdown signal
  // (serve), with side tasks beside; returns the exit status of `run`.
  int Start(const Context& ctx, std::vector<SideTask> side_tasks = {});
  // Before Start: every build is entered in ledger while its workspace
  // exists (crash recovery of workspaces; not owned, outlives Start).
  void SetLedger(WorkspaceLedger* ledger) { ledger_ = ledger; }

  std::vector<api::SlotInfo> Slots() const override { return builds_.Slots(); }
  CancelResult CancelSlot(int slot, std::string* build_id) override {
    return builds_.Cancel(slot, build_id);
  }
  Error CancelBuild(const std::string& id, BuildCancelResult* out) override;
  std::vector<api::BuildInfo> Builds() const override;
  api::WorkerStats Stats() const override;
  // A side task (serve): cancels asked through the queue for the builds this
  // worker runs (`tether-worker cancel`, another worker's API) are acted on;
  // each running build is asked about every 500 ms until ctx is done.
  Error WatchCancels(const Context& ctx);
  // After Start: it returned because of an infrastructure error (a queue
  // that failed, results that could not be written), not a shutdown.
  bool InfrastructureFailed() const;

 private:
  Error Operate(const Context& ctx);
  Error Exec(const Context& ctx, int slot, queue::BuildItem item);
  Error WatchSignals(const Context& ctx, const CancelFunc& stop_intake);
  Error ReapOrphans(const Context& ctx);
  void Recorded(const executor::BuildRecord& record);
  executor::BuildConfig BuildConfigFor(const std::string& build_id,
                                       const std::string& result_dir) const;
  void ListEnded(const queue::BuildItem& item, const executor::BuildRecord& record,
                 WallClock::time_point claimed, const std::string& result_dir);

  const RunOptions options_;
  queue::BuildSource* queue_;
  executor::LiveOutput* live_;
  const std::vector<std::string> worker_env_;
  const std::string worker_name_;
  WorkspaceLedger* ledger_ = nullptr;  // set before Start, then only read
  RunningBuilds builds_;
  mutable std::mutex mu_;
  api::WorkerStats stats_;            // guarded by mu_
  std::deque<api::BuildInfo> ended_;  // guarded by mu_: newest first, kBuildHistory at most
  bool infra_failed_ = false;         // guarded by mu_
};

}  // namespace tether::worker::cmd
