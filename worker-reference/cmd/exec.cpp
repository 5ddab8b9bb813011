#include "cmd/exec.hpp"

#include <algorithm>
#include <iostream>

#include "tether/task.hpp"
#include "tether/worker/pipeline.hpp"

namespace tether::worker::cmd {

void RunBuild(const Context& build_ctx, executor::Engine& engine, Duration timeout,
              Duration cleanup_timeout) {
  // Validation refuses longer timeouts; the clamp keeps now + timeout inside
  // both clocks' ranges even if a caller did not validate.
  timeout = std::min<Duration>(timeout, kMaxTimeout);
  cleanup_timeout = std::min<Duration>(cleanup_timeout, kMaxTimeout);
  engine.SetDeadline(WallClock::now() + std::chrono::duration_cast<WallClock::duration>(timeout));
  auto [timeout_ctx, cancel_timeout] = WithTimeout(build_ctx, timeout);
  Error err = engine.CreateBuild(timeout_ctx);
  if (err.ok()) err = engine.PlanBuild(timeout_ctx);
  if (err.ok()) err = engine.AssembleBuild(timeout_ctx);
  if (!err.ok()) {
    engine.Abort(err);
  } else {
    // StreamBuild starts only after AssembleBuild succeeded (Vela #544), so
    // ExecBuild, the channel's closer, always runs while it does.
    auto [streaming, streaming_ctx] = TaskGroup::WithContext(build_ctx);
    streaming.Go("StreamBuild",
                 [&engine, sctx = streaming_ctx] { return engine.StreamBuild(sctx); });
    engine.ExecBuild(timeout_ctx);
    cancel_timeout();
    streaming.Wait();  // every stream task joined: the logs are complete
  }
  cancel_timeout();
  // tether:detached(cleanup must run even when the build was cancelled or timed out, so it drops
  // build_ctx's cancellation; it is bounded by its own deadline instead)
  auto [cleanup_ctx, cancel_cleanup] = WithTimeout(WithoutCancel(build_ctx), cleanup_timeout);
  Error destroy_err = engine.DestroyBuild(cleanup_ctx);
  cancel_cleanup();
  if (!destroy_err.ok()) {
    std::cerr << "tether-worker: build " << engine.Record().id
              << ": cleanup: " << destroy_err.ToString() << "\n";
  }
}

}  // namespace tether::worker::cmd
