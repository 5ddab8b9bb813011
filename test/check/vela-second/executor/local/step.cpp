// executor/local/step.go (pre-fix), ExecStep; the context is the member ctx_.
#include "vela.hpp"

namespace vela::local_executor {

tether::Error Client::ExecStep(const Container& ctn) {
  // Site 14 (UW + DET): `go func() { ... err := c.StreamStep(context.Background(), ctn) }()`.
  tether::Go(ctx_, [this, ctn] { StreamStep(tether::Background(), ctn); });
  // CHECK: executor/local/step.cpp:[[@LINE-1]]:3: warning: detached task: 'tether::Go' {{.*}} [tether-detached-task]
  // CHECK: executor/local/step.cpp:[[@LINE-2]]:45: warning: root context 'tether::Background()' created in 'vela::local_executor::Client::ExecStep::<lambda@[[@LINE-2]]>', which can reach context 'ctx_'; {{.*}} [tether-detached-context]
  return tether::Error();
}

}  // namespace vela::local_executor
