// runtime/kubernetes/build.go (pre-fix).
#include "vela.hpp"

namespace vela::kubernetes_runtime {

tether::Error Client::SetupBuild(const tether::Context& ctx) {
  // Site 21 (DET): `// nolint: contextcheck // ignore non-inherited new context` /
  // `context.Background(), c.config.PipelinePodsTemplateName, metav1.GetOptions{},`
  // (a golangci-lint suppression without a reason: not a tether justification).
  kube::Pod tmpl = pods_.Get(tether::Background(), template_name_);
  // CHECK: runtime/kubernetes/build.cpp:[[@LINE-1]]:30: warning: root context 'tether::Background()' created in 'vela::kubernetes_runtime::Client::SetupBuild', which can reach context 'ctx'; {{.*}} [tether-detached-context]
  pod_ = tmpl;
  return tether::Error();
}

tether::Error Client::AssembleBuild(const tether::Context& ctx) {
  // Site 22 (DET): `Create(context.Background(), c.Pod, metav1.CreateOptions{})`.
  pods_.Create(tether::Background(), pod_);
  // CHECK: runtime/kubernetes/build.cpp:[[@LINE-1]]:16: warning: root context 'tether::Background()' created in 'vela::kubernetes_runtime::Client::AssembleBuild'
  return tether::Error();
}

tether::Error Client::RemoveBuild(const tether::Context& ctx) {
  // Site 23 (DET): `Delete(context.Background(), c.Pod.ObjectMeta.Name, opts)`.
  pods_.Delete(tether::Background(), pod_.name);
  // CHECK: runtime/kubernetes/build.cpp:[[@LINE-1]]:16: warning: root context 'tether::Background()' created in 'vela::kubernetes_runtime::Client::RemoveBuild'
  return tether::Error();
}

}  // namespace vela::kubernetes_runtime
