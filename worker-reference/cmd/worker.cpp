#include "cmd/worker.hpp"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cmd/exec.hpp"
#include "cmd/exit_codes.hpp"
#include "executor/engine.hpp"
#include "runtime/reaper.hpp"
#include "runtime/wake_fd.hpp"
#include "tether/scope.hpp"
#include "tether/task.hpp"

namespace tether::worker::cmd {

RunningBuilds::RunningBuilds(int slots) : slots_(static_cast<std::size_t>(slots)) {
  for (std::size_t i = 0; i < slots_.size(); ++i) slots_[i].info.slot = static_cast<int>(i);
}

void RunningBuilds::Begin(const api::SlotInfo& info, CancelFunc cancel,
                          std::function<void()> kill) {
  std::lock_guard<std::mutex> lock(mu_);
  if (canceled_all_) cancel();
  if (killed_all_) kill();
  Entry& e = slots_[static_cast<std::size_t>(info.slot)];
  e.info = info;
  e.info.busy = true;
  e.cancel = std::move(cancel);
  e.kill = std::move(kill);
}

void RunningBuilds::End(int slot) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = slots_[static_cast<std::size_t>(slot)];
  e = Entry();
  e.info.slot = slot;
}

void RunningBuilds::CancelAll() {
  std::lock_guard<std::mutex> lock(mu_);
  canceled_all_ = true;
  for (Entry& e : slots_) {
    if (e.info.busy) e.cancel();
  }
}

void RunningBuilds::KillAll() {
  std::lock_guard<std::mutex> lock(mu_);
  canceled_all_ = true;
  killed_all_ = true;
  for (Entry& e : slots_) {
    if (!e.info.busy) continue;
    e.cancel();
    e.kill();
  }
}

api::WorkerControl::CancelResult RunningBuilds::Cancel(int slot, std::string* build_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (slot < 0 || static_cast<std::size_t>(slot) >= slots_.size())
    return api::WorkerControl::CancelResult::kNoSuchSlot;
  Entry& e = slots_[static_cast<std::size_t>(slot)];
  if (!e.info.busy) return api::WorkerControl::CancelResult::kIdle;
  if (build_id) *build_id = e.info.build_id;
  e.cancel();
  return api::WorkerControl::CancelResult::kCanceled;
}

bool RunningBuilds::CancelBuild(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Entry& e : slots_) {
    if (!e.info.busy || e.info.build_id != id) continue;
    e.cancel();
    return true;
  }
  return false;
}

Error Worker::CancelBuild(const std::string& id, BuildCancelResult* out) {
  if (builds_.CancelBuild(id)) {
    *out = BuildCancelResult::kRunningHere;
    return Error();
  }
  queue::CancelOutcome outcome = queue::CancelOutcome::kNoSuchJob;
  if (Error err = queue_->Cancel(id, &outcome); !err.ok()) return err;
  switch (outcome) {
    case queue::CancelOutcome::kQueued:
      *out = BuildCancelResult::kQueued;
      break;
    case queue::CancelOutcome::kRunning:
      // Claimed by this worker between the two looks, or by another one:
      // the cancel watcher of whichever runs it acts on it.
      *out = builds_.CancelBuild(id) ? BuildCancelResult::kRunningHere
                                     : BuildCancelResult::kRunningElsewhere;
      break;
    case queue::CancelOutcome::kDone:
      *out = BuildCancelResult::kEnded;
      break;
    case queue::CancelOutcome::kNoSuchJob:
      *out = BuildCancelResult::kNoSuchBuild;
      break;
  }
  return Error();
}

std::vector<api::BuildInfo> Worker::Builds() const {
  std::vector<api::BuildInfo> out;
  for (const api::SlotInfo& s : builds_.Slots()) {
    if (!s.busy) continue;
    api::BuildInfo b;
    b.id = s.build_id;
    b.pipeline = s.pipeline;
    b.status = BuildStatus::kRunning;
    b.slot = s.slot;
    b.attempt = s.attempt;
    b.started = s.started;
    b.result_dir = options_.results_dir + "/" + s.build_id;
    out.push_back(std::move(b));
  }
  std::lock_guard<std::mutex> lock(mu_);
  out.insert(out.end(), ended_.begin(), ended_.end());
  return out;
}

Error Worker::WatchCancels(const Context& ctx) {
  while (!ctx.Done().WaitFor(std::chrono::milliseconds(500))) {
    for (const api::SlotInfo& s : builds_.Slots()) {
      if (s.busy && queue_->CancelRequested(s.build_id)) builds_.CancelBuild(s.build_id);
    }
  }
  return Error();
}

std::vector<api::SlotInfo> RunningBuilds::Slots() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<api::SlotInfo> out;
  for (const Entry& e : slots_) out.push_back(e.info);
  return out;
}

namespace {

// Seconds: queue waits and build durations from 10 ms to an hour.
std::vector<double> SecondsBuckets() {
  return {0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600};
}

double Seconds(WallClock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

Worker::Worker(RunOptions options, queue::BuildSource* queue, executor::LiveOutput* live,
               std::vector<std::string> worker_env, std::string worker_name)
    : options_(std::move(options)),
      queue_(queue),
      live_(live),
      worker_env_(std::move(worker_env)),
      worker_name_(std::move(worker_name)),
      builds_(options_.build_limit) {
  stats_.queue_wait_seconds = api::Histogram(SecondsBuckets());
  stats_.build_duration_seconds = api::Histogram(SecondsBuckets());
}

bool Worker::InfrastructureFailed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return infra_failed_;
}

api::WorkerStats Worker::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

int Worker::Start(const Context& ctx, std::vector<SideTask> side_tasks) {
  auto [run_ctx, end_run] = WithCancel(ctx);
  auto [start, start_ctx] = TaskGroup::WithContext(run_ctx);
  // The first signal cancels intake_ctx: no loop pops another build.
  auto [intake_ctx, stop_intake] = WithCancel(start_ctx);
  start.Go("signals",
           [this, sctx = start_ctx, stop = stop_intake] { return WatchSignals(sctx, stop); });
  start.Go("reaper", [this, rctx = start_ctx] { return ReapOrphans(rctx); });
  for (SideTask& task : side_tasks) {
    // A side task that fails stops intake (running builds drain), like an
    // executor loop's infrastructure error.
    start.Go(task.name, [run = std::move(task.run), sctx = start_ctx, stop = stop_intake] {
      Error err = run(sctx);
      if (!err.ok()) stop();
      return err;
    });
  }
  start.Go("operate", [this, ictx = intake_ctx, end = end_run] {
    Error err = Operate(ictx);
    end();  // the work is done: the signal watcher and the side tasks can stop
    return err;
  });
  Error err = start.Wait();
  stop_intake();
  end_run();

  // Builds nobody started (shutdown) are recorded as canceled.
  for (queue::BuildItem& item : queue_->Drain()) {
    executor::BuildRecord record;
    record.id = item.id;
    record.pipeline_file = item.pipeline.file;
    record.status = BuildStatus::kCanceled;
    record.reason = "not started: the worker was shutting down";
    executor::WriteBuildJson(record, options_.results_dir + "/" + item.id + "/build.json");
    Recorded(record);
    if (live_) live_->BuildDone(item.id, record.status, record.reason);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!err.ok()) {
    std::cerr << "tether-worker: " << err.ToString() << "\n";
    infra_failed_ = true;
    return kExitInfrastructure;
  }
  auto& counts = stats_.builds_by_status;
  if (counts[BuildStatus::kError] > 0) return kExitInfrastructure;
  if (counts[BuildStatus::kFailure] > 0 || counts[BuildStatus::kCanceled] > 0)
    return kExitBuildFailed;
  return kExitOk;
}

Error Worker::Operate(const Context& ctx) {
  auto [executors, executors_ctx] = TaskGroup::WithContext(ctx);
  for (int i = 0; i < options_.build_limit; ++i) {
    executors.Go("executor " + std::to_string(i), [this, i, ectx = executors_ctx]() -> Error {
      for (;;) {
        std::optional<queue::BuildItem> item;
        if (Error err = queue_->Pop(ectx, &item); !err.ok()) return err;
        if (!item) return Error();
        // An infrastructure error stops this loop and, through the group,
        // the other loops' intake; their running builds still finish.
        if (Error err = Exec(ectx, i, std::move(*item)); !err.ok()) return err;
      }
    });
  }
  return executors.Wait();
}

executor::BuildConfig Worker::BuildConfigFor(const std::string& build_id,
                                             const std::string& result_dir) const {
  executor::BuildConfig config;
  config.build_id = build_id;
  config.result_dir = result_dir;
  config.workspace_root = options_.workspace_root;
  if (ledger_ != nullptr) config.workspace_owner = ledger_->tag();
  config.kill_grace = options_.kill_grace;
  config.log_streaming_timeout = options_.log_streaming_timeout;
  config.max_log_size = options_.max_log_size;
  config.isolation = options_.bwrap ? runtime::Isolation::kBwrap : runtime::Isolation::kProcess;
  config.network_none = options_.network_none;
  config.live = live_;
  config.worker_env = worker_env_;
  return config;
}

// Listed as ended at once (the ack may take its retries): the API never loses
// sight of the build between its slot and its history.
void Worker::ListEnded(const queue::BuildItem& item, const executor::BuildRecord& record,
                       WallClock::time_point claimed, const std::string& result_dir) {
  api::BuildInfo ended;
  ended.id = item.id;
  ended.pipeline = item.pipeline.file;
  ended.status = record.status;
  ended.reason = record.reason;
  ended.attempt = item.attempt;
  ended.started = claimed;
  ended.finished = WallClock::now();
  ended.result_dir = result_dir;
  std::lock_guard<std::mutex> lock(mu_);
  ended_.push_front(std::move(ended));
  if (ended_.size() > kBuildHistory) ended_.pop_back();
}

Error Worker::Exec(const Context& ctx, int slot, queue::BuildItem item) {
  const std::string result_dir = options_.results_dir + "/" + item.id;
  const WallClock::time_point claimed = WallClock::now();
  // A rerun (its worker died) starts from an empty result directory.
  std::error_code ec;
  if (item.attempt > 1) std::filesystem::remove_all(result_dir, ec);
  std::filesystem::create_directories(result_dir, ec);
  if (ec) return Error(ErrorCode::kIo, "cannot create " + result_dir + ": " + ec.message());
  // tether:detached(the first SIGINT/SIGTERM cancels ctx to stop intake, but a running build must
  // drain, not die: its root drops ctx's cancellation and keeps its values; the shutdown path
  // cancels it through builds_ after --shutdown-grace, and the build's own timeout still applies)
  Scope scope(WithoutCancel(ctx), "build " + item.id);
  auto [build_ctx, cancel_build] = WithCancel(scope.context());
  api::SlotInfo info;
  info.slot = slot;
  info.build_id = item.id;
  info.pipeline = item.pipeline.file;
  info.started = claimed;
  info.attempt = item.attempt;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.running;
    if (item.submitted)
      stats_.queue_wait_seconds.Observe(std::max(0.0, Seconds(claimed - *item.submitted)));
  }

  executor::BuildConfig config = BuildConfigFor(item.id, result_dir);
  if (ledger_ != nullptr) {
    if (Error err = ledger_->Begin(item.id, item.pipeline.file, result_dir); !err.ok()) {
      std::cerr << "tether-worker: build " << item.id << ": " << err.message() << "\n";
    }
  }
  executor::Engine engine(item.pipeline, config);
  // Ended below, before engine is destroyed.
  builds_.Begin(info, cancel_build, [&engine] { engine.Kill(); });

  Duration timeout =
      item.pipeline.timeout ? Duration(*item.pipeline.timeout) : options_.build_timeout;
  // The cleanup deadline: the kill grace plus a margin to reap and remove.
  RunBuild(build_ctx, engine, timeout, options_.kill_grace + std::chrono::seconds(30));
  builds_.End(slot);
  cancel_build();

  executor::BuildRecord record = engine.Record();
  Error write_err = executor::WriteBuildJson(record, result_dir + "/build.json");
  if (ledger_ != nullptr) ledger_->End(item.id);  // workspace removed, build.json written
  Recorded(record);
  ListEnded(item, record, claimed, result_dir);
  if (live_) live_->BuildDone(item.id, record.status, record.reason);

  // The acknowledgement: only now may the queue forget the job.
  queue::JobResult result;
  result.status = record.status;
  result.reason = record.reason;
  result.worker = worker_name_;
  result.result_dir = std::filesystem::absolute(result_dir, ec).string();
  result.started = claimed;
  result.finished = WallClock::now();
  // tether:detached(the ack must reach the queue after a shutdown cancelled ctx; it is bounded by
  // its own deadline, after which the job is rerun elsewhere: at least once)
  auto [ack_ctx, cancel_ack] = WithTimeout(WithoutCancel(ctx), std::chrono::seconds(30));
  Error ack_err = queue_->Finish(ack_ctx, item, result);
  cancel_ack();
  {
    std::lock_guard<std::mutex> lock(mu_);
    --stats_.running;
    stats_.build_duration_seconds.Observe(Seconds(WallClock::now() - claimed));
  }
  scope.End();
  if (!ack_err.ok()) {
    std::cerr << "tether-worker: build " << item.id
              << ": cannot acknowledge: " << ack_err.ToString() << "\n";
  }
  return write_err;  // results that cannot be written are an infrastructure error
}

void Worker::Recorded(const executor::BuildRecord& record) {
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.builds_by_status[record.status];
  for (const auto* list : {&record.steps, &record.services}) {
    for (const executor::ContainerRecord& c : *list) {
      if (c.status == executor::Status::kKilled) ++stats_.steps_killed;
    }
  }
}

namespace {

// One message on stderr in one write: the shutdown's lines are printed while
// other threads print theirs (a dead worker's sweep, the API's log), and a
// message written in pieces came out interleaved with another.
void Say(const std::string& message) { std::fwrite(message.data(), 1, message.size(), stderr); }

// A non-blocking signalfd for signals that every thread blocks (RunCommand
// blocks them before any thread exists); closed when it goes out of scope.
struct SignalFd {
  explicit SignalFd(std::initializer_list<int> signos) {
    sigset_t set;
    sigemptyset(&set);
    for (int signo : signos) sigaddset(&set, signo);
    fd = ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (fd < 0) err = Error(ErrorCode::kIo, std::string("signalfd: ") + std::strerror(errno));
  }
  ~SignalFd() {
    if (fd >= 0) ::close(fd);
  }
  SignalFd(const SignalFd&) = delete;
  SignalFd& operator=(const SignalFd&) = delete;
  int fd = -1;
  Error err;
};

int ToMillis(Duration d) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  return static_cast<int>(std::clamp<long long>(ms, 0, 1LL << 30));
}

}  // namespace

// SIGCHLD comes for every child that exits: the main processes of steps
// (their waits reap them) and the orphans nobody else reaps. Signals
// coalesce, so each wake-up reaps every orphan that has exited by then.
Error Worker::ReapOrphans(const Context& ctx) {
  SignalFd signals({SIGCHLD});
  if (!signals.err.ok()) return signals.err;
  const int fd = signals.fd;
  while (runtime::PollWithContext(ctx, &fd, 1, -1).err.ok()) {
    signalfd_siginfo info{};
    while (::read(fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    }
    runtime::ReapOrphans();
  }
  return Error();
}

Error Worker::WatchSignals(const Context& ctx, const CancelFunc& stop_intake) {
  SignalFd signals({SIGINT, SIGTERM});
  if (!signals.err.ok()) return signals.err;
  const int fd = signals.fd;
  auto take_signal = [fd]() -> std::string {
    signalfd_siginfo info{};
    if (::read(fd, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) return "a signal";
    return info.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM";
  };

  runtime::PollResult first = runtime::PollWithContext(ctx, &fd, 1, -1);
  if (!first.err.ok()) return Error();  // the work is done
  Say(std::string("tether-worker: ") + take_signal() +
      ": taking no new builds; running builds have " + FormatDuration(options_.shutdown_grace) +
      " to finish (send the signal again to cancel them now)\n");
  stop_intake();

  runtime::PollResult second =
      runtime::PollWithContext(ctx, &fd, 1, ToMillis(options_.shutdown_grace));
  if (!ctx.Err().ok()) return Error();  // every build finished within the grace period
  if (second.err.ok()) {
    Say(std::string("tether-worker: ") + take_signal() +
        " again: canceling running builds (send it once more to kill them now)\n");
  } else {
    Say(std::string("tether-worker: shutdown grace of ") + FormatDuration(options_.shutdown_grace) +
        " passed: canceling running builds\n");
  }
  builds_.CancelAll();

  // Canceled steps get SIGTERM and, after --kill-grace, SIGKILL. Whatever
  // still holds a build after that (a log pipe kept open by a process that
  // left its step) is cut then, or at once on a further signal: after the
  // second signal everything ends within the kill grace.
  runtime::PollResult third = runtime::PollWithContext(ctx, &fd, 1, ToMillis(options_.kill_grace));
  if (!ctx.Err().ok()) return Error();
  if (third.err.ok()) {
    Say(std::string("tether-worker: ") + take_signal() + " again: killing running builds now\n");
  } else {
    Say(std::string("tether-worker: kill grace of ") + FormatDuration(options_.kill_grace) +
        " passed: killing what is left of the running builds\n");
  }
  builds_.KillAll();
  // Later signals are read (not left pending) and change nothing more.
  while (runtime::PollWithContext(ctx, &fd, 1, -1).err.ok()) {
    Say(std::string("tether-worker: ") + take_signal() + ": already killing the running builds\n");
    builds_.KillAll();
  }
  return Error();
}

}  // namespace tether::worker::cmd
