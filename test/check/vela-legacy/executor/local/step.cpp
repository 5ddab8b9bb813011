// executor/local/step.go (pre-fix), ExecStep.
#include "vela.hpp"

namespace vela::local_executor {

tether::Error Client::ExecStep(const tether::Context& ctx, const Container& ctn) {
  // Site 14 (UW + DET): `go func() { ... err := c.StreamStep(context.Background(), ctn) }()`.
  tether::Go(ctx, [=] { StreamStep(tether::Background(), ctn); });
  // CHECK: executor/local/step.cpp:[[@LINE-1]]:3: warning: detached task: 'tether::Go' {{.*}} [tether-detached-task]
  // CHECK: executor/local/step.cpp:[[@LINE-2]]:36: warning: root context 'tether::Background()' created in 'vela::local_executor::Client::ExecStep::<lambda@[[@LINE-2]]>', which can reach context 'ctx'; {{.*}} [tether-detached-context]
  return tether::Error();
}

}  // namespace vela::local_executor
