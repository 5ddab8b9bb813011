// tether-example: three small CI builds, run the way the reference worker
// runs them, to show libtether's pieces working together:
//   - a Scope per build, and a timeout context for its steps;
//   - a TaskGroup of steps (at most 2 at once): the first failure cancels the
//     others, with the failure as the cancellation's cause;
//   - a Channel of log lines, drained by a streamer task on the build's
//     context (not the timeout's), so every line written is printed;
//   - cancellation (a failing step, a timeout) reaching steps that wait in a
//     Select on their context and a timer.
// It checks its own outcomes and exits 1 if one is not what it should be.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "tether/tether.hpp"

namespace {

using std::chrono::milliseconds;
using tether::Context;
using tether::Error;

struct Step {
  std::string name;
  milliseconds work;   // how long the step takes when nothing stops it
  bool fails = false;  // ends with an error after its work
};

// One step: works in three slices, each a Select on the context and a timer
// (a real step would wait on its process's output the same way).
Error RunStep(const Context& ctx, const Step& step, tether::Channel<std::string>& logs) {
  (void)logs.Send(ctx, step.name + ": started");
  for (int slice = 1; slice <= 3; ++slice) {
    bool stopped = false;
    tether::Select sel;
    sel.OnDone(ctx, [&] { stopped = true; }).OnTimer(step.work / 3, [] {});
    sel.Wait();
    if (stopped) {
      // tether:detached(the stop notice must reach the log after the step's
      // context ended; the log channel is closed only after every step returned)
      (void)logs.Send(tether::WithoutCancel(ctx),
                      step.name + ": stopped (" + ctx.Cause().ToString() + ")");
      return ctx.Err();
    }
    (void)logs.Send(ctx, step.name + ": " + std::to_string(slice * 100 / 3) + "%");
  }
  if (step.fails) return Error::Failed(step.name + " exited with status 2");
  (void)logs.Send(ctx, step.name + ": done");
  return Error();
}

Error RunBuild(const Context& worker, const std::string& name, milliseconds timeout,
               const std::vector<Step>& steps) {
  tether::Scope build(worker, name);
  std::printf("== %s: %zu steps, timeout %lld ms\n", name.c_str(), steps.size(),
              static_cast<long long>(timeout.count()));
  tether::Channel<std::string> logs(16);

  // The streamer lives on the build's context: a step timeout must not stop
  // the log stream (Vela's lesson), only closing the channel does.
  auto [streamer, stream_ctx] = tether::TaskGroup::WithContext(build.context());
  streamer.Go("stream", [&logs, ctx = stream_ctx] {
    while (auto line = logs.Recv(ctx)) std::printf("   | %s\n", line->c_str());
  });

  Error result;
  {
    auto [exec_ctx, cancel] = tether::WithTimeout(build.context(), timeout);
    auto [group, steps_ctx] = tether::TaskGroup::WithContext(exec_ctx);
    group.SetLimit(2);
    for (const Step& step : steps) {
      group.Go(step.name, [&logs, step, ctx = steps_ctx] { return RunStep(ctx, step, logs); });
    }
    result = group.Wait();
    if (result.ok() && !exec_ctx.Err().ok()) result = exec_ctx.Err();
    cancel();
  }
  logs.Close();  // buffered lines are still delivered; then the streamer ends
  (void)streamer.Wait();
  std::printf("== %s: %s\n\n", name.c_str(), result.ok() ? "success" : result.ToString().c_str());
  return result;
}

}  // namespace

int main() {
  Context worker = tether::Background();  // main owns the root
  int wrong = 0;

  Error green = RunBuild(
      worker, "build 1 (all green)", milliseconds(3000),
      {{"clone", milliseconds(30)}, {"compile", milliseconds(60)}, {"test", milliseconds(45)}});
  wrong += !green.ok();

  Error failed = RunBuild(worker, "build 2 (lint fails, test is cancelled)", milliseconds(3000),
                          {{"lint", milliseconds(30), true}, {"test", milliseconds(2000)}});
  wrong += failed != Error::Failed("lint exited with status 2");

  Error timed_out =
      RunBuild(worker, "build 3 (timeout)", milliseconds(150), {{"compile", milliseconds(3000)}});
  wrong += !timed_out.Is(tether::ErrorCode::kDeadlineExceeded);

  std::printf("%s\n", wrong == 0 ? "all three builds ended as expected"
                                 : "some build did not end as expected");
  return wrong == 0 ? 0 : 1;
}
