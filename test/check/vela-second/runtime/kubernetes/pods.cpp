// The kubernetes runtime's pod lookup, in its own translation unit (in Go it
// is inline in InspectContainer).
#include "vela.hpp"

namespace vela::kubernetes_runtime {

kube::Pod Runtime::Lookup(const std::string& name) {
  // Site 24 (DET), the root: `Pods(c.config.Namespace).Get(context.Background(), ...)`.
  return pods_.Get(tether::Background(), name);
}

}  // namespace vela::kubernetes_runtime
