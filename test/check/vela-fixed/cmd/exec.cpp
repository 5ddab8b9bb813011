// cmd/vela-worker/exec.go (newest): exec(ctx) with ctx == Background (site
// 5's root moved to operate); StreamBuild on the build context, waited for
// before DestroyBuild (#390/#410).
#include "vela.hpp"

namespace vela {

tether::Error Worker::exec(const tether::Context& ctx, int index) {
  Item item = queue.Pop(ctx);
  linux_executor::Client* executor = executors[index];
  // "log/event streaming uses buildCtx so that it is not subject to the timeout"
  auto [build_ctx, done] = tether::WithCancel(ctx);
  auto [timeout_ctx, timeout] = tether::WithTimeout(build_ctx, std::chrono::minutes(30));
  auto [streaming, stream_ctx] = tether::TaskGroup::WithContext(build_ctx);
  tether::Error err = executor->CreateBuild(timeout_ctx);
  if (err.ok()) {
    streaming.Go([executor, c = stream_ctx] { return executor->StreamBuild(c); });
    err = executor->ExecBuild(timeout_ctx);
  }
  timeout();
  done();
  streaming.Wait();
  executor->DestroyBuild(ctx);
  (void)item;
  return err;
}

}  // namespace vela
