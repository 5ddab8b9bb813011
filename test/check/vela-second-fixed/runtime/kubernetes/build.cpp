// runtime/kubernetes/build.go, fixed (#314).
#include "vela.hpp"

namespace vela::kubernetes_runtime {

tether::Error Runtime::SetupBuild(const tether::Context& ctx) {
  pod_ = pods_.Get(ctx, template_name_);
  return tether::Error();
}

tether::Error Runtime::AssembleBuild(const tether::Context& ctx) {
  pods_.Create(ctx, pod_);
  return tether::Error();
}

tether::Error Runtime::RemoveBuild(const tether::Context& ctx) {
  pods_.Delete(ctx, pod_.name);
  return tether::Error();
}

}  // namespace vela::kubernetes_runtime
