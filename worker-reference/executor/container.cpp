// The container verbs of the Engine, for steps and services: Create, Plan,
// Exec, Destroy (Stream is in stream.cpp). A service is a container that
// ExecBuild starts before the steps and that runs until DestroyBuild.
#include <csignal>
#include <map>

#include "executor/engine.hpp"
#include "executor/live_output.hpp"

namespace tether::worker::executor {

namespace {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Vela's build script: each command echoed as "$ cmd" before it runs, under
// `sh -e` so the first failing command ends the step.
std::string BuildScript(const std::vector<std::string>& commands) {
  std::string script;
  for (const std::string& cmd : commands) {
    script += "printf '%s\\n' " + ShellQuote("$ " + cmd) + "\n";
    script += cmd + "\n";
  }
  return script;
}

// The variables a step sees from the worker itself; everything else of the
// worker's environment (where secrets live) stays out.
constexpr const char* kInherited[] = {"PATH", "HOME", "LANG",    "LC_ALL", "TZ",
                                      "TERM", "USER", "LOGNAME", "TMPDIR", "SHELL"};

}  // namespace

Error Engine::CreateContainer(const Context& ctx, ContainerState& c) {
  if (Error err = ctx.Err(); !err.ok()) return err;
  const Container& spec = c.spec;
  std::map<std::string, std::string> env;
  for (const char* name : kInherited) {
    if (auto v = WorkerEnv(name)) env[name] = *v;
  }
  if (!env.count("PATH")) env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  env["CI"] = "true";
  env["TETHER_BUILD_ID"] = config_.build_id;
  env["TETHER_WORKSPACE"] = runtime_->workspace();
  env["VELA_WORKSPACE"] = runtime_->workspace();
  env[c.kind == ContainerKind::kService ? "VELA_SERVICE_NAME" : "VELA_STEP_NAME"] = spec.name;
  for (const auto& [k, v] : pipeline_.environment) env[k] = v;
  for (const auto& [k, v] : spec.environment) env[k] = v;
  std::vector<SecretRef> refs = spec.secret_refs;
  if (refs.empty()) {
    for (const std::string& name : spec.secrets) refs.push_back({name, Upper(name)});
  }
  for (const SecretRef& ref : refs) {
    auto it = secret_values_.find(ref.source);
    if (it == secret_values_.end()) {
      return Error(ErrorCode::kFailed, std::string(ContainerKindName(c.kind)) + " " + spec.name +
                                           ": unknown secret " + ref.source);
    }
    env[ref.target] = it->second;
  }
  c.process.name = spec.name;
  c.process.env.clear();
  for (const auto& [k, v] : env) c.process.env.push_back(k + "=" + v);
  c.process.argv.clear();
  if (!spec.commands.empty()) {
    c.process.argv =
        spec.entrypoint.empty() ? std::vector<std::string>{"/bin/sh", "-e", "-c"} : spec.entrypoint;
    c.process.argv.push_back(BuildScript(spec.commands));
  } else if (!spec.entrypoint.empty()) {
    c.process.argv = spec.entrypoint;
  }  // else: a plugin (image + parameters only) that the process runtime cannot run

  std::string prefix = "[" + config_.build_id + "/" + spec.name + "] ";
  LogWriter::Options options{config_.result_dir + "/" + c.record.log_file, prefix, &masker_,
                             config_.max_log_size, config_.live};
  if (config_.live != nullptr && !config_.live->lines()) options.live = nullptr;
  return LogWriter::Open(std::move(options), &c.log);
}

void Engine::SetStatus(ContainerState& c, Status status, std::string reason) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    c.record.status = status;
    if (!reason.empty()) c.record.reason = std::move(reason);
  }
  if (config_.live != nullptr)
    config_.live->SetStatus(config_.build_id, c.spec.name, StatusName(status));
}

void Engine::Start(ContainerState& c) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    c.record.started = WallClock::now();
  }
  SetStatus(c, Status::kRunning, "");
}

void Engine::Finish(ContainerState& c, Status status, std::optional<int> exit_code,
                    std::string reason) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    c.record.exit_code = exit_code;
    c.record.finished = WallClock::now();
  }
  SetStatus(c, status, std::move(reason));
  ShowResultWhenDone(c, /*ended=*/true, /*streamed=*/false);
}

// "[b-1/flaky] step failure exit 3 (continue)", "[b-1/db] service success:
// stopped when the build ended": the result as build.json records it.
void Engine::ShowResultWhenDone(ContainerState& c, bool ended, bool streamed) {
  std::string line;
  {
    std::lock_guard<std::mutex> lock(mu_);
    c.ended |= ended;
    c.streamed |= streamed || !c.started || !c.log;
    if (!c.ended || !c.streamed || c.result_shown) return;
    c.result_shown = true;
    const ContainerRecord& r = c.record;
    line = std::string(ContainerKindName(c.kind)) + " " + std::string(StatusName(r.status));
    if (r.exit_code) line += " exit " + std::to_string(*r.exit_code);
    if (r.status == Status::kFailure && r.continue_on_failure) line += " (continue)";
    if (!r.reason.empty()) line += ": " + r.reason;
  }
  if (config_.live != nullptr) config_.live->ContainerDone(config_.build_id, c.spec.name, line);
}

std::string Engine::ContextReason(const Context& ctx) const {
  Error err = ctx.Err();
  if (err.Is(ErrorCode::kDeadlineExceeded)) return "build timed out";
  if (err.Is(ErrorCode::kCanceled)) return "build canceled";
  return "";
}

// Starts the process, asks StreamBuild to stream its log, and (wait) waits
// for it to exit.
Error Engine::Exec(const Context& ctx, ContainerState& c, bool wait) {
  if (c.process.argv.empty()) {
    c.log->Note("[tether-worker] not run: " + std::string(ContainerKindName(c.kind)) + " " +
                c.spec.name + " has no commands" +
                (c.spec.image.empty() ? "" : " (plugin image " + c.spec.image + ")") +
                ", and the process runtime does not run images");
    Finish(c, Status::kSkipped, std::nullopt, "plugin: the process runtime does not run images");
    return Error();
  }
  Start(c);
  if (Error err = runtime_->RunContainer(ctx, c.process); !err.ok()) {
    if (err.IsContextError()) {
      Finish(c, Status::kCanceled, std::nullopt, ContextReason(ctx));
      Abort(err);
    } else {
      c.log->Note("[tether-worker] " + err.message());
      Finish(c, Status::kError, std::nullopt, err.message());
    }
    return err;
  }
  c.started = true;
  StreamRequest request;
  request.kind = c.kind;
  request.container = &c;
  if (c.kind == ContainerKind::kService) {
    request.stream = [this](const Context& sctx, ContainerState& s) {
      return StreamService(sctx, s);
    };
  } else {
    request.stream = [this](const Context& sctx, ContainerState& s) { return StreamStep(sctx, s); };
  }
  // The request is queued even if ctx was cancelled since the start (a cancel
  // landing between the spawn and this send, seen under load by the fault
  // soak): the output already in the pipe is this container's log, and
  // StreamBuild takes what is queued after a cancel too. The channel is
  // buffered: this waits only if StreamBuild stopped taking requests while
  // the queue is full, and then for at most --kill-grace.
  // tether:detached(a cancel right after the start must not drop the container's log: the send
  // keeps ctx's values, drops its cancellation, and is bounded by --kill-grace)
  auto [send_ctx, cancel_send] = WithTimeout(WithoutCancel(ctx), config_.kill_grace);
  Error sent = requests_.Send(send_ctx, std::move(request));
  cancel_send();
  if (!sent.ok()) {
    // No stream task owns the log: this task still does.
    c.log->Note("[tether-worker] log not streamed: " + sent.ToString());
  }
  if (!wait) return Error();
  runtime::ExitStatus status;
  Error err = runtime_->WaitContainer(ctx, c.spec.name, &status);
  if (status.stopped_by_worker) {
    Finish(c, Status::kKilled, status.code, ContextReason(ctx));
    Abort(err.IsContextError() ? err : ctx.Err());
  } else if (status.exited) {
    Finish(c, status.code == 0 ? Status::kSuccess : Status::kFailure, status.code, "");
  } else {
    Finish(c, Status::kError, std::nullopt, err.message());
  }
  return err.IsContextError() ? Error() : err;
}

// A container that was still running when the build ended (a service or a
// detached step) has now been stopped and reaped: its status is "success,
// stopped when the build ended" if the worker stopped it, or its own exit
// status if it ended by itself (a service that exits 3 fails the build).
void Engine::RecordStopped(ContainerState& c, const runtime::ExitStatus& status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (c.record.status != Status::kRunning || !status.exited) return;
    RecordStoppedLocked(c, status);
  }
  ShowResultWhenDone(c, /*ended=*/true, /*streamed=*/false);
}

void Engine::RecordStoppedLocked(ContainerState& c, const runtime::ExitStatus& status) {
  c.record.exit_code = status.code;
  // One that ended by itself ended when its output did (it was recorded as
  // ending with the build); one the worker stopped ends now.
  c.record.finished =
      !status.stopped_by_worker && c.output_ended ? *c.output_ended : WallClock::now();
  if (killed_ && status.signal == SIGPIPE) {
    // Kill cut its log while it still wrote (the kill stage of a shutdown,
    // racing the stop of services at the end of ExecBuild): the worker ended
    // it, it did not fail (found by the fault soak).
    c.record.status = Status::kKilled;
    c.record.reason = "killed: its log was cut when the worker was told to stop at once";
  } else if (status.stopped_by_worker) {
    c.record.status = Status::kSuccess;
    c.record.reason = "stopped when the build ended";
  } else {
    c.record.status = status.code == 0 ? Status::kSuccess : Status::kFailure;
  }
}

// The end of ExecBuild: services and detached steps are stopped (one kill
// grace for all: SIGTERM to every one first) and reaped before their log
// streams are asked to finish, so the streams read to end-of-file. ctx is
// not ExecBuild's (which may be done): the waits are bounded by the kill
// grace instead.
void Engine::StopBackground(const Context& ctx) {
  std::vector<ContainerState*> background;
  for (auto& c : services_) {
    if (c->started) background.push_back(c.get());
  }
  for (auto& c : steps_) {
    if (c->started && c->spec.detach) background.push_back(c.get());
  }
  for (ContainerState* c : background) runtime_->StopContainer(c->spec.name);
  for (ContainerState* c : background) {
    runtime::ExitStatus status;
    runtime_->RemoveContainer(ctx, c->spec.name, &status);
    RecordStopped(*c, status);
  }
}

Error Engine::Destroy(const Context& ctx, ContainerState& c) {
  Error err;
  if (c.started) {
    runtime::ExitStatus status;
    err = runtime_->RemoveContainer(ctx, c.spec.name, &status);
    RecordStopped(c, status);
  }
  if (c.log) {
    c.log->Close();
    std::lock_guard<std::mutex> lock(mu_);
    c.record.log_bytes = c.log->bytes();
    c.record.log_truncated = c.log->truncated();
  }
  ShowResultWhenDone(c, /*ended=*/false, /*streamed=*/true);
  return err;
}

Error Engine::CreateStep(const Context& ctx, ContainerState& step) {
  return CreateContainer(ctx, step);
}

Error Engine::PlanStep(const Context& ctx, ContainerState& step) { return ctx.Err(); }

Error Engine::ExecStep(const Context& ctx, ContainerState& step) {
  return Exec(ctx, step, /*wait=*/!step.spec.detach);
}

Error Engine::DestroyStep(const Context& ctx, ContainerState& step) { return Destroy(ctx, step); }

Error Engine::CreateService(const Context& ctx, ContainerState& service) {
  return CreateContainer(ctx, service);
}

Error Engine::PlanService(const Context& ctx, ContainerState& service) { return ctx.Err(); }

Error Engine::ExecService(const Context& ctx, ContainerState& service) {
  return Exec(ctx, service, /*wait=*/false);
}

Error Engine::DestroyService(const Context& ctx, ContainerState& service) {
  return Destroy(ctx, service);
}

}  // namespace tether::worker::executor
