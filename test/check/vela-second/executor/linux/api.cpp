// executor/linux/api.go (pre-fix), client.CancelBuild, for both runtimes.
#include "vela.hpp"

namespace vela::linux_executor {

template <class Runtime>
tether::Error Client<Runtime>::CancelBuild() {
  // Site 9 (DET): `err = c.DestroyBuild(context.Background())`. CancelBuild
  // has no context to pass; the API handler that has one is reported (site 8).
  return DestroyBuild(tether::Background());
}

template class Client<docker_runtime::Runtime>;
template class Client<kubernetes_runtime::Runtime>;

}  // namespace vela::linux_executor
