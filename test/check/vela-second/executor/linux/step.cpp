// executor/linux/step.go (pre-fix): ExecStep and StreamStep of the executor
// class template, instantiated for both runtimes at the end of the file.
// Each site is reported once, where it is written.
#include <atomic>
#include <thread>

#include "vela.hpp"

namespace vela::linux_executor {

template <class Runtime>
tether::Error Client<Runtime>::ExecStep(const tether::Context& ctx, const Container& ctn) {
  // Site 11 (UW): `logs, logCtx := errgroup.WithContext(ctx)` / `logs.Go(...)`;
  // logs.Wait() is never called.
  auto logs = tether::TaskGroup::WithContext(ctx);
  logs.group.Go([this, c = logs.ctx, ctn] { return StreamStep(c, ctn); });
  // CHECK: executor/linux/step.cpp:[[@LINE-1]]:3: warning: task group 'logs.group' starts a task here but is not waited for on every path; {{.*}} [tether-unwaited-group]
  return tether::Error();
}

template <class Runtime>
tether::Error Client<Runtime>::StreamStep(const tether::Context& ctx, const Container& ctn) {
  // Site 18 (CLN): the deferred "tail everything and upload" block re-tails
  // the container on the streaming context, which ExecStep's group cancels.
  Defer final_upload([&] { UploadLogs(std::to_string(runtime_.TailContainer(ctx, ctn))); });
  // CHECK: executor/linux/step.cpp:[[@LINE-1]]:77: warning: call to 'TailContainer' in a scope guard is passed context 'ctx', which 'tether::TaskGroup::WithContext' may already have ended; {{.*}} [tether-cleanup-on-cancellable-context]
  // CHECK: executor/linux/step.cpp:16:52: note: 'vela::linux_executor::Client::StreamStep' is called here with a context that may already be done
  // CHECK: executor/linux/step.cpp:15:15: note: 'tether::TaskGroup::WithContext' derives the context here
  std::atomic<bool> done{false};
  // Site 16 (GI): the time-chunks uploader: `go func() { for { ...
  // time.Sleep(1 * time.Second) } }()`; it never looks at ctx.
  std::thread uploader([&] {
    // CHECK: executor/linux/step.cpp:[[@LINE-1]]:15: warning: task started here has context 'ctx' but never reads it {{.*}} [tether-task-ignores-context]
    while (!done.load()) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      // CHECK: executor/linux/step.cpp:[[@LINE-1]]:25: warning: blocking call in a loop that never reads context 'ctx': {{.*}} [tether-loop-without-context]
      // CHECK: executor/linux/step.cpp:[[@LINE-3]]:5: note: this loop has no constant bound
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
