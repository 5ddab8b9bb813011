// executor/linux/api.go, fixed.
#include "vela.hpp"

namespace vela::linux_executor {

template <class Runtime>
tether::Error Client<Runtime>::CancelBuild(const tether::Context& ctx) {
  // tether:detached(destroy the build even when the request that cancelled it is gone)
  return DestroyBuild(tether::WithoutCancel(ctx));
}

template class Client<docker_runtime::Runtime>;
template class Client<kubernetes_runtime::Runtime>;

}  // namespace vela::linux_executor
