// runtime/kubernetes/container.go (pre-fix).
#include "vela.hpp"

namespace vela::kubernetes_runtime {

tether::Error Client::InspectContainer(const tether::Context& ctx, const Container& ctn) {
  // Site 24 (DET): `Pods(c.config.Namespace).Get(context.Background(), ...)`.
  kube::Pod pod = pods_.Get(tether::Background(), pod_.name);
  // CHECK: runtime/kubernetes/container.cpp:[[@LINE-1]]:29: warning: root context 'tether::Background()' created in 'vela::kubernetes_runtime::Client::InspectContainer'
  (void)pod;
  return tether::Error();
}

tether::Error Client::RunContainer(const tether::Context& ctx, const Container& ctn) {
  // Site 25 (DET): `Pods(c.config.Namespace).Patch(context.Background(), ...)`.
  pods_.Patch(tether::Background(), pod_.name, ctn.id);
  // CHECK: runtime/kubernetes/container.cpp:[[@LINE-1]]:15: warning: root context 'tether::Background()' created in 'vela::kubernetes_runtime::Client::RunContainer'
  return tether::Error();
}

int Client::TailContainer(const tether::Context& ctx, const Container& ctn) {
  // Site 26 (DET): inside logsFunc, `Stream(context.Background())`; the Go
  // closure sees ctx, as a [&] lambda does.
  auto logs_func = [&] { return pods_.Stream(tether::Background(), ctn.id); };
  // CHECK: runtime/kubernetes/container.cpp:[[@LINE-1]]:46: warning: root context 'tether::Background()' created in 'vela::kubernetes_runtime::Client::TailContainer::<lambda@[[@LINE-1]]>', which can reach context 'ctx'
  return logs_func();
}

tether::Error Client::WaitContainer(const tether::Context& ctx, const Container& ctn) {
  // Site 29 (DET): `// nolint: contextcheck` / `...Watch(context.Background(), opts)`.
  int watch = pods_.Watch(tether::Background(), pod_.name);
  // CHECK: runtime/kubernetes/container.cpp:[[@LINE-1]]:27: warning: root context 'tether::Background()' created in 'vela::kubernetes_runtime::Client::WaitContainer'
  return watch == 0 ? tether::Error() : tether::Error::Canceled();
}

}  // namespace vela::kubernetes_runtime
