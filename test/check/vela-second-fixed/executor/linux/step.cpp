// executor/linux/step.go, fixed: the log group is waited for, the final
// re-tail runs on a context the stream's cancel does not end, and the
// uploader stops with the context.
#include <atomic>
#include <thread>

#include "vela.hpp"

namespace vela::linux_executor {

template <class Runtime>
tether::Error Client<Runtime>::ExecStep(const tether::Context& ctx, const Container& ctn) {
  auto logs = tether::TaskGroup::WithContext(ctx);
  logs.group.Go([this, c = logs.ctx, ctn] { return StreamStep(c, ctn); });
  return logs.group.Wait();
}

template <class Runtime>
tether::Error Client<Runtime>::StreamStep(const tether::Context& ctx, const Container& ctn) {
  // tether:detached(the final upload must run after the stream is cancelled)
  tether::Context final_ctx = tether::WithoutCancel(ctx);
  Defer final_upload([&] { UploadLogs(std::to_string(runtime_.TailContainer(final_ctx, ctn))); });
  std::atomic<bool> done{false};
  std::thread uploader([&] {
    while (!done.load() && ctx.Err().ok()) {
      ctx.Done().WaitFor(std::chrono::seconds(1));
      UploadLogs(logs_);
    }
  });
  int rc = runtime_.TailContainer(ctx, ctn);
  logs_ += std::to_string(rc);
  done = true;
  uploader.join();
  return tether::Error();
}

template class Client<docker_runtime::Runtime>;
template class Client<kubernetes_runtime::Runtime>;

}  // namespace vela::linux_executor
