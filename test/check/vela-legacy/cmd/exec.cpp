// cmd/vela-worker/exec.go (pre-fix), one build. exec has no context, so its
// roots (sites 4-7) are reported once, at the call in operate (site 3).
#include "vela.hpp"

namespace vela {

tether::Error Worker::exec(int index) {
  // Site 4 (DET): `item, err := w.Queue.Pop(context.Background())`.
  Item item = queue.Pop(tether::Background());
  linux_executor::Client* executor = executors[index];
  // Site 5 (DET): `ctx := context.Background()`, the build root.
  tether::Context ctx = tether::Background();
  auto [timeout_ctx, timeout] = tether::WithTimeout(ctx, std::chrono::minutes(30));
  struct Destroy {
    linux_executor::Client* e;
    // Site 6 (DET): the deferred `_executor.DestroyBuild(context.Background())`.
    ~Destroy() { e->DestroyBuild(tether::Background()); }
  } destroy{executor};
  tether::Error err = executor->CreateBuild(timeout_ctx);
  if (err.ok()) err = executor->ExecBuild(timeout_ctx);
  // Site 7 (DET): the second, duplicate `DestroyBuild(context.Background())`.
  executor->DestroyBuild(tether::Background());
  timeout();
  (void)item;
  return err;
}

}  // namespace vela
