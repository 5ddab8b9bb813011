// cmd/vela-worker/start.go (pre-fix d0b714d), Worker.Start. The worker keeps
// its context in the ctx_ member; the cancel function stays in the pair.
#include "vela.hpp"

namespace vela {

tether::Error Worker::Start() {
  // tether:detached(the process root: Start runs once, called from main)
  tether::Context process = tether::Background();
  // Site 1 (CNC): `ctx, done := context.WithCancel(context.Background())`;
  // done() is called only in the signal branch.
  tether::ContextAndCancel root = tether::WithCancel(process);
  // CHECK: cmd/start.cpp:[[@LINE-1]]:28: warning: the cancel function 'root.cancel' is not called on every path (possible context leak); {{.*}} [tether-lost-cancel]
  auto [group, gctx] = tether::TaskGroup::WithContext(root.ctx);
  ctx_ = gctx;
  group.Go([this] { return Serve(); });
  group.Go([this] { return operate(); });
  if (WaitForSignal()) {
    root.cancel();
    return group.Wait();
  }
  return group.Wait();
  // CHECK: cmd/start.cpp:[[@LINE-1]]:3: note: this path reaches the end of the scope without calling 'root.cancel'
}

}  // namespace vela
