// cmd/vela-worker/start.go (newest 8ae8b6f), Worker.Start: site 1 is STILL
// present (vela.md §2: `done` is not called when the server or the operator
// returns an error).
#include "vela.hpp"

namespace vela {

tether::Error Worker::Start() {
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
}

}  // namespace vela
