// cmd/vela-worker/exec.go (pre-fix), one build. exec takes no context, but
// the worker's ctx_ is in reach, so each root is reported where it is made.
#include "vela.hpp"

namespace vela {

tether::Error Worker::exec(int index) {
  // Site 4 (DET): `item, err := w.Queue.Pop(context.Background())`.
  Item item = queue_.Pop(tether::Background());
  // CHECK: cmd/exec.cpp:[[@LINE-1]]:26: warning: root context 'tether::Background()' created in 'vela::Worker::exec', which can reach context 'ctx_'; {{.*}} [tether-detached-context]
  Executor* e = executor(index);
  // Site 5 (DET): `ctx := context.Background()`, the build root, here made
  // by a context factory in another translation unit (internal/context.cpp).
  tether::Context build_ctx = NewBuildContext();
  // CHECK: cmd/exec.cpp:[[@LINE-1]]:31: warning: call to 'vela::NewBuildContext' drops the context: {{.*}} pass 'ctx_' [tether-context-not-forwarded]
  // CHECK: internal/context.cpp:{{[0-9]+}}:{{[0-9]+}}: note: root context 'tether::Background()' created here, via vela::NewBuildContext
  auto [timeout_ctx, timeout] = tether::WithTimeout(build_ctx, std::chrono::minutes(30));
  // Site 6 (DET): the deferred `_executor.DestroyBuild(context.Background())`.
  Defer destroy([&] { e->DestroyBuild(tether::Background()); });
  // CHECK: cmd/exec.cpp:[[@LINE-1]]:39: warning: root context 'tether::Background()' created in 'vela::Worker::exec::<lambda@[[@LINE-1]]>', which can reach context 'ctx_'; {{.*}} [tether-detached-context]
  tether::Error err = e->CreateBuild(timeout_ctx);
  if (err.ok()) err = e->ExecBuild(timeout_ctx);
  // Site 7 (DET): the second, duplicate `DestroyBuild(context.Background())`.
  e->DestroyBuild(tether::Background());
  // CHECK: cmd/exec.cpp:[[@LINE-1]]:19: warning: root context 'tether::Background()' created in 'vela::Worker::exec', which can reach context 'ctx_'; {{.*}} [tether-detached-context]
  timeout();
  (void)item;
  return err;
}

}  // namespace vela
