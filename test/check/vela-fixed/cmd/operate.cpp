// cmd/vela-worker/operate.go (newest), the executor loops: site 3 is kept on
// purpose, with the maintainers' reason (#670).
#include "vela.hpp"

namespace vela {

tether::Error Worker::operate(const tether::Context& ctx) {
  auto [executors, gctx] = tether::TaskGroup::WithContext(ctx);
  for (int i = 0; i < build_limit; ++i) {
    executors.Go([this, i, c = gctx] {
      while (c.Err().ok()) {
        // tether:detached(pass background context to avoid errors in one executor+build inadvertently canceling other builds)
        tether::Error err = exec(tether::Background(), i);
        if (!err.ok()) return err;
      }
      return tether::Error();
    });
  }
  return executors.Wait();
}

}  // namespace vela
