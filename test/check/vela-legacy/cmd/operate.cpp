// cmd/vela-worker/operate.go (pre-fix), the executor loops.
#include "vela.hpp"

namespace vela {

tether::Error Worker::operate(const tether::Context& ctx) {
  auto [executors, gctx] = tether::TaskGroup::WithContext(ctx);
  for (int i = 0; i < build_limit; ++i) {
    executors.Go([this, i, c = gctx] {
      while (c.Err().ok()) {
        // Site 3 (NF): `// nolint: contextcheck // ignore passing context` / `err = w.exec(id)`.
        // exec takes no context and creates its roots itself (sites 4-7).
        tether::Error err = exec(i);
        // CHECK: cmd/operate.cpp:[[@LINE-1]]:29: warning: call to 'vela::Worker::exec' drops the context: 'vela::Worker::exec' takes no context but creates a root context itself; give it a context parameter and pass 'c' [tether-context-not-forwarded]
        // CHECK: cmd/exec.cpp:{{[0-9]+}}:{{[0-9]+}}: note: root context 'tether::Background()' created here, via vela::Worker::exec
        if (!err.ok()) return err;
      }
      return tether::Error();
    });
  }
  return executors.Wait();
}

}  // namespace vela
