// cmd/vela-worker/start.go, fixed: done() on every path.
#include "vela.hpp"

namespace vela {

tether::Error Worker::Start() {
  // tether:detached(the process root: Start runs once, called from main)
  tether::Context process = tether::Background();
  tether::ContextAndCancel root = tether::WithCancel(process);
  auto [group, gctx] = tether::TaskGroup::WithContext(root.ctx);
  ctx_ = gctx;
  group.Go([this] { return Serve(); });
  group.Go([this] { return operate(); });
  WaitForSignal();
  root.cancel();
  return group.Wait();
}

}  // namespace vela
