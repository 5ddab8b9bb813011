// The kubernetes runtime's pod lookup, fixed: it takes the context.
#include "vela.hpp"

namespace vela::kubernetes_runtime {

kube::Pod Runtime::Lookup(const tether::Context& ctx, const std::string& name) {
  return pods_.Get(ctx, name);
}

}  // namespace vela::kubernetes_runtime
