// executor/linux/secret.go (pre-fix), secretSvc.exec.
#include <vector>

#include "vela.hpp"

namespace vela::linux_executor {

template <class Runtime>
tether::Error Client<Runtime>::ExecSecrets(const tether::Context& ctx) {
  std::vector<std::string> origins = {"vault", "native"};
  for (const std::string& origin : origins) {
    // Site 13 (UW): `go func() { ... err = s.client.secret.stream(ctx, _secret.Origin) }()`.
    tether::Go(ctx, [this, origin](const tether::Context& c) { StreamSecret(c, origin); });
    // CHECK: executor/linux/secret.cpp:[[@LINE-1]]:5: warning: detached task: 'tether::Go' starts work that nobody waits for; {{.*}} [tether-detached-task]
  }
  return tether::Error();
}

template class Client<docker_runtime::Runtime>;
template class Client<kubernetes_runtime::Runtime>;

}  // namespace vela::linux_executor
