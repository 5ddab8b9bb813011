// The executor Engine (Vela's executor/linux client, vela.md §4.5): what a
// build is. The worker's exec() calls, in this order:
//
//   CreateBuild(timeout_ctx)  running; the workspace
//   PlanBuild(timeout_ctx)    secrets resolved from the worker's environment/files
//   AssembleBuild(timeout_ctx) every service, stage and step created (log files)
//   StreamBuild(build_ctx)    in a task, concurrently with ExecBuild
//   ExecBuild(timeout_ctx)    services, then the stages as their needs allow
//   DestroyBuild(cleanup_ctx) after StreamBuild returned
//
// and each container goes through Create/Plan/Exec/Stream/Destroy, each
// stage through Create/Plan/Exec/Destroy.
//
// Log streaming (the seed's design): ExecStep/ExecService send a
// StreamRequest on requests_ right after the process started and before
// waiting for it. StreamBuild, the one consumer, starts one stream task per
// request in a TaskGroup it owns and waits for every one of them before it
// returns. ExecBuild is the one closer: it closes requests_ when it returns.
// Before that, ExecBuild stops the services and detached steps (SIGTERM,
// SIGKILL after the kill grace), so that their streams, like the steps',
// reach end-of-file with every line and the goodbye printed after SIGTERM
// (a reader that stopped first would drop what is in the pipe and make the
// next write die of SIGPIPE). Every stream ends at end-of-file, or
// --log-streaming-timeout after the build ended (a pipe held by a process
// that escaped), or when Kill cuts it.
//
// An Engine runs one build, once. Its methods are called from the worker's
// exec thread, the stage tasks and the stream tasks; shared records are
// guarded by mu_.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "executor/log_writer.hpp"
#include "executor/result.hpp"
#include "runtime/runtime.hpp"
#include "tether/channel.hpp"
#include "tether/context.hpp"
#include "tether/signal.hpp"
#include "tether/worker/pipeline.hpp"

namespace tether::worker::executor {

class LiveOutput;

struct BuildConfig {
  std::string build_id;
  std::string result_dir;  // <results>/<build-id>, existing
  std::string workspace_root;
  std::string workspace_owner;  // runtime::RuntimeOptions::workspace_owner
  Duration kill_grace = std::chrono::seconds(10);
  Duration log_streaming_timeout = std::chrono::minutes(5);
  std::uint64_t max_log_size = 0;  // 0: unlimited
  runtime::Isolation isolation = runtime::Isolation::kProcess;
  bool network_none = false;  // kBwrap only
  LiveOutput* live = nullptr;
  // The worker's environment: the base of every step's environment (PATH,
  // HOME, ...) and where secrets come from. "KEY=VALUE".
  std::vector<std::string> worker_env;
};

// One step or service of the build.
struct ContainerState {
  Container spec;
  ContainerKind kind = ContainerKind::kStep;
  std::string stage;               // the stage of a step ("" for services)
  runtime::ProcessSpec process;    // built by Create*; empty argv: a plugin step
  std::unique_ptr<LogWriter> log;  // see LogWriter's one-user rule
  bool started = false;            // the process was started (RunContainer ok)
  ContainerRecord record;          // guarded by Engine::mu_
  // The result line is shown once the result is known and the log stream is
  // done (its last lines come first). Guarded by Engine::mu_.
  bool ended = false, streamed = false, result_shown = false;
  // When its output reached end of file (the process and whatever it left
  // holding the pipe ended): the end time of a service or detached step
  // that ends by itself, which nobody waits for. Guarded by Engine::mu_.
  std::optional<WallClock::time_point> output_ended;
};

struct StageState {
  std::string name;
  std::vector<std::string> needs;
  std::vector<ContainerState*> steps;  // run in order
  Signal done = Signal::Make();        // fired when the stage finished (any outcome)
  bool succeeded = false;              // written before done fires
  std::string blocked_by;              // a need that did not succeed
};

// The message of the stream-request channel (vela.md §4.7).
struct StreamRequest {
  ContainerKind kind = ContainerKind::kStep;  // Vela's key: "step" | "service"
  std::function<Error(const Context&, ContainerState&)> stream;
  ContainerState* container = nullptr;
};

class Engine {
 public:
  // The runtime is the one config's isolation names (runtime::NewRuntime).
  Engine(const Pipeline& pipeline, BuildConfig config);
  // The build runs on this runtime (a FakeRuntime in the executor's tests).
  Engine(const Pipeline& pipeline, BuildConfig config, std::unique_ptr<runtime::Runtime> runtime);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  Error CreateBuild(const Context& ctx);
  Error PlanBuild(const Context& ctx);
  Error AssembleBuild(const Context& ctx);
  Error ExecBuild(const Context& ctx);
  Error StreamBuild(const Context& ctx);
  Error DestroyBuild(const Context& ctx);

  Error CreateStep(const Context& ctx, ContainerState& step);
  Error PlanStep(const Context& ctx, ContainerState& step);
  Error ExecStep(const Context& ctx, ContainerState& step);
  Error StreamStep(const Context& ctx, ContainerState& step);
  Error DestroyStep(const Context& ctx, ContainerState& step);

  Error CreateService(const Context& ctx, ContainerState& service);
  Error PlanService(const Context& ctx, ContainerState& service);
  Error ExecService(const Context& ctx, ContainerState& service);
  Error StreamService(const Context& ctx, ContainerState& service);
  Error DestroyService(const Context& ctx, ContainerState& service);

  Error CreateStage(const Context& ctx, StageState& stage);
  Error PlanStage(const Context& ctx, StageState& stage);
  Error ExecStage(const Context& ctx, StageState& stage);
  Error DestroyStage(const Context& ctx, StageState& stage);

  // The build's outcome so far (final once DestroyBuild returned).
  BuildRecord Record() const;
  // Records why a build phase failed: a context error (timeout, cancel)
  // interrupts the build; any other error makes its status "error".
  void Abort(const Error& err);
  void SetDeadline(WallClock::time_point deadline);
  // The last resort of a shutdown (a third signal, or the kill grace after
  // the build was cancelled): every kill grace ends now (SIGKILL) and the
  // log streams stop reading. Thread-safe; any time, also before or after
  // StreamBuild.
  void Kill();

 private:
  Error CreateContainer(const Context& ctx, ContainerState& c);
  void Start(ContainerState& c);
  Error Exec(const Context& ctx, ContainerState& c, bool wait);
  Error Stream(const Context& ctx, ContainerState& c);
  Error Destroy(const Context& ctx, ContainerState& c);
  void StopBackground(const Context& ctx);
  void RecordStopped(ContainerState& c, const runtime::ExitStatus& status);
  void RecordStoppedLocked(ContainerState& c, const runtime::ExitStatus& status);
  void Finish(ContainerState& c, Status status, std::optional<int> exit_code, std::string reason);
  void SetStatus(ContainerState& c, Status status, std::string reason);
  // Marks the result known (ended) or the log streamed, and shows the result
  // line on the live output once both hold.
  void ShowResultWhenDone(ContainerState& c, bool ended, bool streamed);
  std::string ContextReason(const Context& ctx) const;
  void FinalizeStatus();
  std::optional<std::string> WorkerEnv(const std::string& name) const;
  StageState* FindStage(const std::string& name);

  const Pipeline pipeline_;
  const BuildConfig config_;
  const std::unique_ptr<runtime::Runtime> runtime_;  // never null
  Masker masker_;
  std::map<std::string, std::string> secret_values_;  // by secret name; set in PlanBuild
  Channel<StreamRequest> requests_;
  std::vector<std::unique_ptr<ContainerState>> services_;
  std::vector<std::unique_ptr<ContainerState>> steps_;
  std::vector<std::unique_ptr<StageState>> stages_;

  mutable std::mutex mu_;
  BuildRecord build_;          // guarded by mu_ (its container lists are filled by Record())
  bool interrupted_ = false;   // guarded by mu_: a step was killed or canceled by ctx
  Error interrupt_cause_;      // guarded by mu_
  bool killed_ = false;        // guarded by mu_: Kill ran
  CancelFunc cancel_streams_;  // guarded by mu_: set while StreamBuild runs
};

}  // namespace tether::worker::executor
