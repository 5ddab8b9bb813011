#include "cmd/worker.hpp"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "cmd/exec.hpp"
#include "executor/engine.hpp"
#include "runtime/wake_fd.hpp"
#include "tether/scope.hpp"
#include "tether/task.hpp"

namespace tether::worker::cmd {

std::uint64_t RunningBuilds::Add(CancelFunc cancel, std::function<void()> kill) {
  std::lock_guard<std::mutex> lock(mu_);
  if (canceled_all_) cancel();
  if (killed_all_) kill();
  builds_[next_] = Entry{std::move(cancel), std::move(kill)};
  return next_++;
}

void RunningBuilds::Remove(std::uint64_t token) {
  std::lock_guard<std::mutex> lock(mu_);
  builds_.erase(token);
}

void RunningBuilds::CancelAll() {
  std::lock_guard<std::mutex> lock(mu_);
  canceled_all_ = true;
  for (auto& [token, build] : builds_) build.cancel();
}

void RunningBuilds::KillAll() {
  std::lock_guard<std::mutex> lock(mu_);
  canceled_all_ = true;
  killed_all_ = true;
  for (auto& [token, build] : builds_) {
    build.cancel();
    build.kill();
  }
}

Worker::Worker(RunOptions options, queue::MemoryQueue* queue, executor::LiveOutput* live,
               std::vector<std::string> worker_env)
    : options_(std::move(options)), queue_(queue), live_(live), worker_env_(std::move(worker_env)) {}

int Worker::Start(const Context& ctx) {
  auto [run_ctx, end_run] = WithCancel(ctx);
  auto [start, start_ctx] = TaskGroup::WithContext(run_ctx);
  // The first signal cancels intake_ctx: no loop pops another build.
  auto [intake_ctx, stop_intake] = WithCancel(start_ctx);
  start.Go("signals", [this, sctx = start_ctx, stop = stop_intake] { return WatchSignals(sctx, stop); });
  start.Go("operate", [this, ictx = intake_ctx, end = end_run] {
    Error err = Operate(ictx);
    end();  // the work is done: the signal watcher can stop
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
    record.status = "canceled";
    record.reason = "not started: the worker was shutting down";
    executor::WriteBuildJson(record, options_.results_dir + "/" + item.id + "/build.json");
    Recorded(record);
    if (live_) live_->BuildDone(item.id, record.status, record.reason);
  }
  if (!err.ok()) {
    std::cerr << "tether-worker: " << err.ToString() << "\n";
    return 3;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (status_counts_["error"] > 0) return 3;
  if (status_counts_["failure"] > 0 || status_counts_["canceled"] > 0) return 1;
  return 0;
}

Error Worker::Operate(const Context& ctx) {
  auto [executors, executors_ctx] = TaskGroup::WithContext(ctx);
  for (int i = 0; i < options_.build_limit; ++i) {
    executors.Go("executor " + std::to_string(i), [this, ectx = executors_ctx]() -> Error {
      while (std::optional<queue::BuildItem> item = queue_->Pop(ectx)) {
        // An infrastructure error stops this loop and, through the group,
        // the other loops' intake; their running builds still finish.
        if (Error err = Exec(ectx, std::move(*item)); !err.ok()) return err;
      }
      return Error();
    });
  }
  return executors.Wait();
}

Error Worker::Exec(const Context& ctx, queue::BuildItem item) {
  const std::string result_dir = options_.results_dir + "/" + item.id;
  // tether:detached(the first SIGINT/SIGTERM cancels ctx to stop intake, but a running build must drain, not die: its root drops ctx's cancellation and keeps its values; the shutdown path cancels it through builds_ after --shutdown-grace, and the build's own timeout still applies)
  Scope scope(WithoutCancel(ctx), "build " + item.id);
  auto [build_ctx, cancel_build] = WithCancel(scope.context());

  executor::BuildConfig config;
  config.build_id = item.id;
  config.result_dir = result_dir;
  config.workspace_root = options_.workspace_root;
  config.kill_grace = options_.kill_grace;
  config.log_streaming_timeout = options_.log_streaming_timeout;
  config.max_log_size = options_.max_log_size;
  config.live = live_;
  config.worker_env = worker_env_;
  executor::Engine engine(item.pipeline, config);
  // Removed below, before engine is destroyed.
  const std::uint64_t token = builds_.Add(cancel_build, [&engine] { engine.Kill(); });

  Duration timeout = item.pipeline.timeout ? Duration(*item.pipeline.timeout) : options_.build_timeout;
  // The cleanup deadline: the kill grace plus a margin to reap and remove.
  RunBuild(build_ctx, engine, timeout, options_.kill_grace + std::chrono::seconds(30));
  builds_.Remove(token);
  cancel_build();

  executor::BuildRecord record = engine.Record();
  Error write_err = executor::WriteBuildJson(record, result_dir + "/build.json");
  Recorded(record);
  if (live_) live_->BuildDone(item.id, record.status, record.reason);
  scope.End();
  return write_err;  // results that cannot be written are an infrastructure error
}

void Worker::Recorded(const executor::BuildRecord& record) {
  std::lock_guard<std::mutex> lock(mu_);
  ++status_counts_[record.status];
}

namespace {

int ToMillis(Duration d) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  return static_cast<int>(std::clamp<long long>(ms, 0, 1LL << 30));
}

}  // namespace

Error Worker::WatchSignals(const Context& ctx, const CancelFunc& stop_intake) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  int fd = ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  if (fd < 0) return Error(ErrorCode::kIo, std::string("signalfd: ") + std::strerror(errno));
  struct CloseFd {
    int fd;
    ~CloseFd() { ::close(fd); }
  } close_fd{fd};
  auto take_signal = [fd]() -> std::string {
    signalfd_siginfo info{};
    if (::read(fd, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) return "a signal";
    return info.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM";
  };

  runtime::PollResult first = runtime::PollWithContext(ctx, &fd, 1, -1);
  if (!first.err.ok()) return Error();  // the work is done
  std::cerr << "tether-worker: " << take_signal()
            << ": taking no new builds; running builds have " << FormatDuration(options_.shutdown_grace)
            << " to finish (send the signal again to cancel them now)\n";
  stop_intake();

  runtime::PollResult second = runtime::PollWithContext(ctx, &fd, 1, ToMillis(options_.shutdown_grace));
  if (!ctx.Err().ok()) return Error();  // every build finished within the grace period
  if (second.err.ok()) {
    std::cerr << "tether-worker: " << take_signal() << " again: canceling running builds (send it "
              << "once more to kill them now)\n";
  } else {
    std::cerr << "tether-worker: shutdown grace of " << FormatDuration(options_.shutdown_grace)
              << " passed: canceling running builds\n";
  }
  builds_.CancelAll();

  // Canceled steps get SIGTERM and, after --kill-grace, SIGKILL. Whatever
  // still holds a build after that (a log pipe kept open by a process that
  // left its step) is cut then, or at once on a further signal: after the
  // second signal everything ends within the kill grace.
  runtime::PollResult third = runtime::PollWithContext(ctx, &fd, 1, ToMillis(options_.kill_grace));
  if (!ctx.Err().ok()) return Error();
  if (third.err.ok()) {
    std::cerr << "tether-worker: " << take_signal() << " again: killing running builds now\n";
  } else {
    std::cerr << "tether-worker: kill grace of " << FormatDuration(options_.kill_grace)
              << " passed: killing what is left of the running builds\n";
  }
  builds_.KillAll();
  // Later signals are read (not left pending) and change nothing more.
  while (runtime::PollWithContext(ctx, &fd, 1, -1).err.ok()) {
    std::cerr << "tether-worker: " << take_signal() << ": already killing the running builds\n";
    builds_.KillAll();
  }
  return Error();
}

}  // namespace tether::worker::cmd
