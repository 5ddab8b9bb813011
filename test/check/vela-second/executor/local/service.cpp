// executor/local/service.go (pre-fix), ExecService; the context is ctx_.
#include "vela.hpp"

namespace vela::local_executor {

tether::Error Client::ExecService(const Container& ctn) {
  // Site 15 (UW + DET): `go func() { ... err := c.StreamService(context.Background(), ctn) }()`.
  auto stream = [this, ctn] { StreamService(tether::Background(), ctn); };
  // CHECK: executor/local/service.cpp:[[@LINE-1]]:45: warning: root context 'tether::Background()' created in 'vela::local_executor::Client::ExecService::<lambda@[[@LINE-1]]>', which can reach context 'ctx_'; {{.*}} [tether-detached-context]
  tether::Go(ctx_, stream);
  // CHECK: executor/local/service.cpp:[[@LINE-1]]:3: warning: detached task: 'tether::Go' {{.*}} [tether-detached-task]
  return tether::Error();
}

}  // namespace vela::local_executor
