// executor/local/api.go, fixed.
#include "vela.hpp"

namespace vela::local_executor {

tether::Error Client::CreateBuild(const tether::Context& ctx) {
  ctx_ = ctx;
  return tether::Error();
}

tether::Error Client::CancelBuild(const tether::Context& ctx) {
  // tether:detached(destroy the build even when the request that cancelled it is gone)
  return DestroyBuild(tether::WithoutCancel(ctx));
}

}  // namespace vela::local_executor
