// cmd/vela-worker/exec.go, fixed: everything on the context exec is given;
// the deferred DestroyBuild on that context, which the build timeout does
// not end.
#include "vela.hpp"

namespace vela {

tether::Error Worker::exec(const tether::Context& ctx, int index) {
  Item item = queue_.Pop(ctx);
  Executor* e = executor(index);
  tether::Context build_ctx = NewBuildContext(ctx);
  auto [timeout_ctx, timeout] = tether::WithTimeout(build_ctx, std::chrono::minutes(30));
  Defer destroy([&] { e->DestroyBuild(build_ctx); });
  tether::Error err = e->CreateBuild(timeout_ctx);
  if (err.ok()) err = e->ExecBuild(timeout_ctx);
  timeout();
  (void)item;
  return err;
}

}  // namespace vela
