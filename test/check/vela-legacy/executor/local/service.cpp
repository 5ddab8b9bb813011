// executor/local/service.go (pre-fix), ExecService.
#include "vela.hpp"

namespace vela::local_executor {

tether::Error Client::ExecService(const tether::Context& ctx, const Container& ctn) {
  // Site 15 (UW + DET): `go func() { ... err := c.StreamService(context.Background(), ctn) }()`.
  tether::Go(ctx, [=] { StreamService(tether::Background(), ctn); });
  // CHECK: executor/local/service.cpp:[[@LINE-1]]:3: warning: detached task: 'tether::Go' {{.*}} [tether-detached-task]
  // CHECK: executor/local/service.cpp:[[@LINE-2]]:39: warning: root context 'tether::Background()' created in 'vela::local_executor::Client::ExecService::<lambda@[[@LINE-2]]>', which can reach context 'ctx'; {{.*}} [tether-detached-context]
  return tether::Error();
}

}  // namespace vela::local_executor
