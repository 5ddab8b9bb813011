// executor/local/api.go (pre-fix), client.CancelBuild.
#include "vela.hpp"

namespace vela::local_executor {

tether::Error Client::CancelBuild() {
  // Site 10 (DET): `err = c.DestroyBuild(context.Background())`. NOT reported:
  // nothing in the worker calls the local executor's CancelBuild with a
  // context at hand (the vela CLI does), so no call drops one.
  return DestroyBuild(tether::Background());
}

}  // namespace vela::local_executor
