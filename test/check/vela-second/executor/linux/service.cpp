// executor/linux/service.go (pre-fix): ExecService and StreamService of the
// executor class template, instantiated for both runtimes.
#include <atomic>
#include <thread>

#include "vela.hpp"

namespace vela::linux_executor {

template <class Runtime>
tether::Error Client<Runtime>::ExecService(const tether::Context& ctx, const Container& ctn) {
  // Site 12 (UW): `logs, logCtx := errgroup.WithContext(ctx)`; never waited for.
  auto [logs, log_ctx] = tether::TaskGroup::WithContext(ctx);
  logs.Go([this, c = log_ctx, ctn] { return StreamService(c, ctn); });
  // CHECK: executor/linux/service.cpp:[[@LINE-1]]:3: warning: task group 'logs' starts a task here but is not waited for on every path; {{.*}} [tether-unwaited-group]
  return tether::Error();
}

template <class Runtime>
tether::Error Client<Runtime>::StreamService(const tether::Context& ctx, const Container& ctn) {
  std::atomic<bool> done{false};
  // Site 19 (CLN): the deferred re-tail, on the streaming context.
  Defer final_upload([&] {
    int rc = runtime_.TailContainer(ctx, ctn);
    // CHECK: executor/linux/service.cpp:[[@LINE-1]]:37: warning: call to 'TailContainer' in a scope guard is passed context 'ctx', which 'tether::TaskGroup::WithContext' may already have ended; {{.*}} [tether-cleanup-on-cancellable-context]
    // CHECK: executor/linux/service.cpp:14:45: note: 'vela::linux_executor::Client::StreamService' is called here with a context that may already be done
    // CHECK: executor/linux/service.cpp:13:26: note: 'tether::TaskGroup::WithContext' derives the context here
    UploadLogs(std::to_string(rc));
  });
  // Site 17 (GI): the time-chunks uploader, as in StreamStep.
  auto upload_chunks = [&] {
    for (;;) {
      if (done.load()) return;
      UploadLogs(logs_);
      std::this_thread::sleep_for(std::chrono::seconds(1));
      // CHECK: executor/linux/service.cpp:[[@LINE-1]]:25: warning: blocking call in a loop that never reads context 'ctx': {{.*}} [tether-loop-without-context]
      // CHECK: executor/linux/service.cpp:[[@LINE-5]]:5: note: this loop has no constant bound
    }
  };
  std::thread uploader(upload_chunks);
  // CHECK: executor/linux/service.cpp:[[@LINE-1]]:15: warning: task started here has context 'ctx' but never reads it {{.*}} [tether-task-ignores-context]
  logs_ += std::to_string(runtime_.TailContainer(ctx, ctn));
  done = true;
  uploader.join();
  return tether::Error();
}

template class Client<docker_runtime::Runtime>;
template class Client<kubernetes_runtime::Runtime>;

}  // namespace vela::linux_executor
