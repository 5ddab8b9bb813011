// The stage verbs of the Engine. Stages run concurrently (one task each in
// ExecBuild's TaskGroup); a stage starts when every stage it needs has
// finished, and runs its steps in order.
//
// Ordering rules:
//  - A step that fails (non-zero exit) without `continue` skips the rest of
//    its stage, and every stage that needs that stage (transitively) is
//    skipped. Stages that do not need it run on.
//  - A step that fails with `continue: true` is recorded as failed; its
//    stage goes on and counts as succeeded.
//  - When the build is cancelled or times out, the running step is killed
//    and every step not yet started is canceled.
#include "executor/engine.hpp"
#include "tether/select.hpp"

namespace tether::worker::executor {

Error Engine::CreateStage(const Context& ctx, StageState& stage) {
  for (ContainerState* step : stage.steps) {
    if (Error err = CreateStep(ctx, *step); !err.ok()) return err;
  }
  return Error();
}

Error Engine::PlanStage(const Context& ctx, StageState& stage) {
  for (const std::string& need : stage.needs) {
    StageState* dep = FindStage(need);
    if (dep == nullptr)
      return Error(ErrorCode::kFailed, "stage " + stage.name + " needs unknown stage " + need);
    bool finished = false;
    Select wait;
    wait.OnSignal(dep->done, [&] { finished = true; });
    wait.OnDone(ctx, [] {});
    wait.Wait();
    if (!finished) return ctx.Err();
    // dep->succeeded was written before dep->done fired.
    if (!dep->succeeded && stage.blocked_by.empty()) {
      stage.blocked_by = dep->blocked_by.empty() ? need : dep->blocked_by;
    }
  }
  return Error();
}

Error Engine::ExecStage(const Context& ctx, StageState& stage) {
  std::string skip_reason;
  if (!stage.blocked_by.empty()) skip_reason = "needs stage " + stage.blocked_by + ", which failed";
  bool failed = !skip_reason.empty();
  for (ContainerState* step : stage.steps) {
    if (!ctx.Err().ok()) break;  // ExecBuild cancels what is left
    if (!skip_reason.empty()) {
      Finish(*step, Status::kSkipped, std::nullopt, skip_reason);
      continue;
    }
    Error err = PlanStep(ctx, *step);
    if (err.ok()) err = ExecStep(ctx, *step);
    if (!err.ok() && !err.IsContextError()) return err;
    Status status;
    {
      std::lock_guard<std::mutex> lock(mu_);
      status = step->record.status;
    }
    if (status == Status::kFailure && !step->spec.continue_on_failure) {
      failed = true;
      skip_reason = "step " + step->spec.name + " failed";
    }
  }
  stage.succeeded = !failed && ctx.Err().ok();
  return ctx.Err();
}

Error Engine::DestroyStage(const Context& ctx, StageState& stage) {
  Error first;
  for (ContainerState* step : stage.steps) {
    Error err = DestroyStep(ctx, *step);
    if (first.ok()) first = err;
  }
  return first;
}

}  // namespace tether::worker::executor
