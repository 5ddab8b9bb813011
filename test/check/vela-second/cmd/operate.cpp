// cmd/vela-worker/operate.go (pre-fix), the check-in loop and the executor
// loops. The worker's context is its ctx_ member.
#include <thread>

#include "vela.hpp"

namespace vela {

tether::Error Worker::CheckInLoop() {
  while (true) {
    tether::Error err = CheckIn();
    if (!err.ok()) Log(err.message());
    // Site 2 (LOOP): `time.Sleep(w.Config.CheckIn)` (15 minutes) in a loop
    // that never looks at the context: SIGTERM waits for it.
    std::this_thread::sleep_for(check_in_);
    // CHECK: cmd/operate.cpp:[[@LINE-1]]:23: warning: blocking call in a loop that never reads context 'ctx_': {{.*}} [tether-loop-without-context]
  }
}

tether::Error Worker::operate() {
  auto [executors, gctx] = tether::TaskGroup::WithContext(ctx_);
  executors.Go([this] { return CheckInLoop(); });
  // CHECK: cmd/operate.cpp:[[@LINE-1]]:13: warning: task started here has context 'ctx_' but never reads it {{.*}} [tether-task-ignores-context]
  for (int i = 0; i < build_limit_; ++i) {
    executors.Go([this, i] {
      while (ctx_.Err().ok()) {
        // Site 3 (NF): `// nolint: contextcheck // ignore passing context` / `err = w.exec(id)`.
        // In this rendering exec can reach the worker's ctx_ itself, so it
        // answers for its roots (sites 4-7, tether-detached-context in
        // exec.cpp): this call is not reported (docs/checks/context-not-forwarded.md).
        tether::Error err = exec(i);
        // CHECK-NOT: cmd/operate.cpp:[[@LINE-1]]:{{.*}}[tether-context-not-forwarded]
        if (!err.ok()) return err;
      }
      return tether::Error();
    });
  }
  return executors.Wait();
}

}  // namespace vela
