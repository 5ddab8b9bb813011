// The build verbs of the Engine: Create, Plan, Assemble, Exec, Destroy
// (StreamBuild is in stream.cpp).
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "executor/engine.hpp"
#include "executor/live_output.hpp"
#include "tether/io/read_file.hpp"
#include "tether/task.hpp"

namespace tether::worker::executor {

namespace {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

ContainerRecord NewRecord(const ContainerState& c, std::string log_file) {
  ContainerRecord r;
  r.name = c.spec.name;
  r.kind = c.kind;
  r.stage = c.stage;
  r.image = c.spec.image;
  r.detach = c.spec.detach;
  r.continue_on_failure = c.spec.continue_on_failure;
  r.log_file = std::move(log_file);
  return r;
}

}  // namespace

Engine::Engine(const Pipeline& pipeline, BuildConfig config)
    : Engine(pipeline, config,
             runtime::NewRuntime(runtime::RuntimeOptions{config.workspace_root, config.kill_grace,
                                                         config.isolation, config.network_none,
                                                         config.workspace_owner})) {}

Engine::Engine(const Pipeline& pipeline, BuildConfig config,
               std::unique_ptr<runtime::Runtime> runtime)
    : pipeline_(pipeline), config_(std::move(config)), runtime_(std::move(runtime)), requests_(16) {
  build_.id = config_.build_id;
  build_.pipeline_file = pipeline_.file;
  build_.notes = pipeline_.notes;
  std::set<std::string> step_names;
  auto add_step = [&](const Container& spec, const std::string& stage) -> ContainerState* {
    auto c = std::make_unique<ContainerState>();
    c->spec = spec;
    c->kind = ContainerKind::kStep;
    c->stage = stage;
    c->record = NewRecord(*c, spec.name + ".log");
    step_names.insert(spec.name);
    steps_.push_back(std::move(c));
    return steps_.back().get();
  };
  if (pipeline_.stages.empty()) {
    auto stage = std::make_unique<StageState>();
    for (const Container& spec : pipeline_.steps) stage->steps.push_back(add_step(spec, ""));
    stages_.push_back(std::move(stage));
  }
  for (const Stage& s : pipeline_.stages) {
    auto stage = std::make_unique<StageState>();
    stage->name = s.name;
    stage->needs = s.needs;
    for (const Container& spec : s.steps) stage->steps.push_back(add_step(spec, s.name));
    stages_.push_back(std::move(stage));
  }
  for (const Container& spec : pipeline_.services) {
    auto c = std::make_unique<ContainerState>();
    c->spec = spec;
    c->kind = ContainerKind::kService;
    // A service named like a step gets its own log file name.
    std::string log =
        step_names.count(spec.name) ? "service-" + spec.name + ".log" : spec.name + ".log";
    c->record = NewRecord(*c, log);
    services_.push_back(std::move(c));
  }
}

Engine::~Engine() = default;

std::optional<std::string> Engine::WorkerEnv(const std::string& name) const {
  for (const std::string& kv : config_.worker_env) {
    if (kv.size() > name.size() && kv.compare(0, name.size(), name) == 0 &&
        kv[name.size()] == '=') {
      return kv.substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

StageState* Engine::FindStage(const std::string& name) {
  for (auto& s : stages_) {
    if (s->name == name) return s.get();
  }
  return nullptr;
}

Error Engine::CreateBuild(const Context& ctx) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    build_.status = BuildStatus::kRunning;
    build_.started = WallClock::now();
  }
  Error err = runtime_->SetupBuild(ctx, config_.build_id);
  std::lock_guard<std::mutex> lock(mu_);
  build_.workspace = runtime_->workspace();
  return err;
}

Error Engine::PlanBuild(const Context& ctx) {
  if (Error err = ctx.Err(); !err.ok()) return err;
  std::vector<std::string> values;
  for (const Secret& secret : pipeline_.secrets) {
    std::string value;
    if (!secret.from_file.empty()) {
      if (std::optional<io::ReadError> err = io::ReadInputFile(secret.from_file, &value)) {
        return Error(ErrorCode::kFailed, "secret " + secret.name + ": cannot read file " +
                                             secret.from_file + ": " + err->message);
      }
      if (!value.empty() && value.back() == '\n') value.pop_back();
    } else {
      std::string var = secret.from_env.empty() ? Upper(secret.name) : secret.from_env;
      std::optional<std::string> found = WorkerEnv(var);
      if (!found) {
        return Error(
            ErrorCode::kFailed,
            "secret " + secret.name + ": the worker's environment variable " + var + " is not set");
      }
      value = *found;
    }
    secret_values_[secret.name] = value;
    values.push_back(value);
  }
  masker_ = Masker(values);
  return Error();
}

Error Engine::AssembleBuild(const Context& ctx) {
  for (auto& s : services_) {
    if (Error err = CreateService(ctx, *s); !err.ok()) return err;
  }
  for (auto& stage : stages_) {
    if (Error err = CreateStage(ctx, *stage); !err.ok()) return err;
  }
  return Error();
}

Error Engine::ExecBuild(const Context& ctx) {
  // The one closer of the stream-request channel: when ExecBuild returns,
  // on every path, StreamBuild learns that no more streams will come.
  struct CloseRequests {
    Channel<StreamRequest>& requests;
    ~CloseRequests() { requests.Close(); }
  } close_requests{requests_};

  Error result;
  for (auto& s : services_) {
    result = PlanService(ctx, *s);
    if (result.ok()) result = ExecService(ctx, *s);
    if (!result.ok()) break;
  }
  if (result.ok()) {
    auto [stages, stage_ctx] = TaskGroup::WithContext(ctx);
    for (auto& st : stages_) {
      StageState* stage = st.get();
      Context sctx = stage_ctx;
      stages.Go("stage " + stage->name, [this, stage, sctx]() -> Error {
        Error err = PlanStage(sctx, *stage);
        if (err.ok()) err = ExecStage(sctx, *stage);
        stage->done.Fire();
        // A step that could not be run (not a step failure) stops the build:
        // returning it cancels the other stages.
        return err.IsContextError() ? Error() : err;
      });
    }
    result = stages.Wait();
  }
  // Whatever never started was canceled (timeout, cancel, or an error above).
  std::string why = ctx.Err().ok() ? "the build stopped before it" : ContextReason(ctx);
  for (auto& c : steps_) {
    bool pending;
    {
      std::lock_guard<std::mutex> lock(mu_);
      pending = c->record.status == Status::kPending;
    }
    if (pending) {
      Finish(*c, Status::kCanceled, std::nullopt, why);
      if (!ctx.Err().ok()) Abort(ctx.Err());
    }
  }
  if (!result.ok() && !result.IsContextError()) Abort(result);
  // tether:detached(services and detached steps are stopped also when ctx timed out or was
  // cancelled; every wait in it is bounded by the kill grace, or ended at once by Kill)
  StopBackground(WithoutCancel(ctx));
  return result;
}

Error Engine::DestroyBuild(const Context& ctx) {
  // One grace period for everything still running (services, detached
  // steps): SIGTERM to all first, then each is waited for and reaped.
  for (auto* list : {&services_, &steps_}) {
    for (auto& c : *list) {
      if (c->started) runtime_->StopContainer(c->spec.name);
    }
  }
  Error first;
  for (auto& s : services_) {
    Error err = DestroyService(ctx, *s);
    if (first.ok()) first = err;
  }
  for (auto& stage : stages_) {
    Error err = DestroyStage(ctx, *stage);
    if (first.ok()) first = err;
  }
  Error err = runtime_->RemoveBuild(ctx);
  if (first.ok()) first = err;
  FinalizeStatus();
  return first;
}

void Engine::Abort(const Error& err) {
  std::lock_guard<std::mutex> lock(mu_);
  if (err.IsContextError()) {
    if (!interrupted_) interrupt_cause_ = err;
    interrupted_ = true;
    return;
  }
  if (build_.status != BuildStatus::kError) {
    build_.status = BuildStatus::kError;
    build_.reason = err.message().empty() ? err.ToString() : err.message();
  }
}

void Engine::SetDeadline(WallClock::time_point deadline) {
  std::lock_guard<std::mutex> lock(mu_);
  build_.deadline = deadline;
}

void Engine::FinalizeStatus() {
  std::lock_guard<std::mutex> lock(mu_);
  build_.finished = WallClock::now();
  // Containers the build never reached (it failed or stopped before them).
  for (auto* list : {&services_, &steps_}) {
    for (auto& c : *list) {
      if (c->record.status != Status::kPending) continue;
      c->record.status = Status::kCanceled;
      c->record.reason = "not run: the build ended before it";
    }
  }
  if (build_.status == BuildStatus::kError) return;
  if (interrupted_) {
    bool timed_out = interrupt_cause_.Is(ErrorCode::kDeadlineExceeded);
    build_.status = timed_out ? BuildStatus::kFailure : BuildStatus::kCanceled;
    build_.reason = timed_out ? "build timed out" : "build canceled";
    return;
  }
  // A service or detached step that failed on its own (not stopped by the
  // worker) fails the build like a step.
  for (auto* list : {&services_, &steps_}) {
    for (auto& c : *list) {
      const ContainerRecord& r = c->record;
      if (r.status == Status::kError || (r.status == Status::kFailure && !r.continue_on_failure)) {
        build_.status = BuildStatus::kFailure;
        build_.reason = std::string(ContainerKindName(r.kind)) + " " + r.name + " failed";
        return;
      }
    }
  }
  build_.status = BuildStatus::kSuccess;
}

BuildRecord Engine::Record() const {
  std::lock_guard<std::mutex> lock(mu_);
  BuildRecord record = build_;
  for (auto& s : services_) record.services.push_back(s->record);
  for (auto& s : steps_) record.steps.push_back(s->record);
  return record;
}

}  // namespace tether::worker::executor
