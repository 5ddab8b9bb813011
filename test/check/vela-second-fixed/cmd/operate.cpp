// cmd/vela-worker/operate.go, fixed (#596): the check-in loop waits on the
// context, and exec gets a context.
#include "vela.hpp"

namespace vela {

tether::Error Worker::CheckInLoop() {
  while (ctx_.Err().ok()) {
    tether::Error err = CheckIn();
    if (!err.ok()) Log(err.message());
    ctx_.Done().WaitFor(check_in_);
  }
  return tether::Error();
}

tether::Error Worker::operate() {
  auto [executors, gctx] = tether::TaskGroup::WithContext(ctx_);
  executors.Go([this] { return CheckInLoop(); });
  for (int i = 0; i < build_limit_; ++i) {
    executors.Go([this, i] {
      while (ctx_.Err().ok()) {
        // tether:detached(pass a context without cancellation to avoid errors in one executor+build inadvertently canceling other builds; #670)
        tether::Error err = exec(tether::WithoutCancel(ctx_), i);
        if (!err.ok()) return err;
      }
      return tether::Error();
    });
  }
  return executors.Wait();
}

}  // namespace vela
