// executor/linux/api.go (pre-fix), client.CancelBuild.
#include "vela.hpp"

namespace vela::linux_executor {

tether::Error Client::CancelBuild() {
  // Site 9 (DET): `err = c.DestroyBuild(context.Background())`. CancelBuild
  // has no context to pass; the API handler that has one is reported (site 8).
  return DestroyBuild(tether::Background());
}

}  // namespace vela::linux_executor
