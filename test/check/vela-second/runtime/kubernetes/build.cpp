// runtime/kubernetes/build.go (pre-fix).
#include "vela.hpp"

namespace vela::kubernetes_runtime {

tether::Error Runtime::SetupBuild(const tether::Context& ctx) {
  // Site 21 (DET): `// nolint: contextcheck // ignore non-inherited new context` /
  // `context.Background(), c.config.PipelinePodsTemplateName, metav1.GetOptions{},`,
  // the root made by a factory in another translation unit.
  kube::Pod tmpl = pods_.Get(NoTimeout(), template_name_);
  // CHECK: runtime/kubernetes/build.cpp:[[@LINE-1]]:30: warning: call to 'vela::NoTimeout' drops the context: {{.*}} pass 'ctx' [tether-context-not-forwarded]
  // CHECK: internal/context.cpp:{{[0-9]+}}:{{[0-9]+}}: note: root context 'tether::Background()' created here, via vela::NoTimeout
  pod_ = tmpl;
  return tether::Error();
}

tether::Error Runtime::AssembleBuild(const tether::Context& ctx) {
  // Site 22 (DET): `Create(context.Background(), c.Pod, metav1.CreateOptions{})`,
  // a default-constructed (root) context.
  pods_.Create(tether::Context{}, pod_);
  // CHECK: runtime/kubernetes/build.cpp:[[@LINE-1]]:16: warning: root context 'tether::Context{}' created in 'vela::kubernetes_runtime::Runtime::AssembleBuild', which can reach context 'ctx'; {{.*}} [tether-detached-context]
  return tether::Error();
}

tether::Error Runtime::RemoveBuild(const tether::Context& ctx) {
  // Site 23 (DET): `Delete(context.Background(), c.Pod.ObjectMeta.Name, opts)`,
  // through a local.
  tether::Context background = tether::Background();
  // CHECK: runtime/kubernetes/build.cpp:[[@LINE-1]]:32: warning: root context 'tether::Background()' created in 'vela::kubernetes_runtime::Runtime::RemoveBuild', which can reach context 'ctx'; {{.*}} [tether-detached-context]
  pods_.Delete(background, pod_.name);
  return tether::Error();
}

}  // namespace vela::kubernetes_runtime
