// executor/local/api.go (pre-fix), client.CancelBuild. The local client keeps
// the build's context (from CreateBuild) in ctx_.
#include "vela.hpp"

namespace vela::local_executor {

tether::Error Client::CreateBuild(const tether::Context& ctx) {
  ctx_ = ctx;
  return tether::Error();
}

tether::Error Client::CancelBuild() {
  // Site 10 (DET): `err = c.DestroyBuild(context.Background())`, with the
  // build's context in reach.
  return DestroyBuild(tether::Background());
  // CHECK: executor/local/api.cpp:[[@LINE-1]]:23: warning: root context 'tether::Background()' created in 'vela::local_executor::Client::CancelBuild', which can reach context 'ctx_'; {{.*}} [tether-detached-context]
}

}  // namespace vela::local_executor
