// executor/linux/secret.go, fixed: the secret streams have an owner.
#include <vector>

#include "vela.hpp"

namespace vela::linux_executor {

template <class Runtime>
tether::Error Client<Runtime>::ExecSecrets(const tether::Context& ctx) {
  std::vector<std::string> origins = {"vault", "native"};
  auto [streams, sctx] = tether::TaskGroup::WithContext(ctx);
  for (const std::string& origin : origins)
    streams.Go([this, c = sctx, origin] { return StreamSecret(c, origin); });
  return streams.Wait();
}

template class Client<docker_runtime::Runtime>;
template class Client<kubernetes_runtime::Runtime>;

}  // namespace vela::linux_executor
