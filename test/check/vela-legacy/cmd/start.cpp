// cmd/vela-worker/start.go (pre-fix d0b714d), Worker.Start.
#include "vela.hpp"

namespace vela {

tether::Error Worker::Start() {
  // Site 1 (CNC): done() is called only in the signal branch.
  auto [ctx, done] = tether::WithCancel(tether::Background());
  // CHECK: cmd/start.cpp:[[@LINE-1]]:14: warning: the cancel function 'done' is not called on every path (possible context leak); {{.*}} [tether-lost-cancel]
  auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
  group.Go([this, c = gctx] { return Serve(c); });
  group.Go([this, c = gctx] { return operate(c); });
  if (WaitForSignal(gctx)) {
    done();
    return group.Wait();
  }
  return group.Wait();
  // CHECK: cmd/start.cpp:[[@LINE-1]]:3: note: this path reaches the end of the scope without calling 'done'
}

}  // namespace vela
