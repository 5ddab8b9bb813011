// runtime/kubernetes/container.go (pre-fix).
#include "vela.hpp"

namespace vela::kubernetes_runtime {

tether::Error Runtime::InspectContainer(const tether::Context& ctx, const Container& ctn) {
  // Site 24 (DET): the Get on a root is in Lookup (runtime/kubernetes/pods.cpp).
  kube::Pod pod = Lookup(pod_.name);
  // CHECK: runtime/kubernetes/container.cpp:[[@LINE-1]]:19: warning: call to 'vela::kubernetes_runtime::Runtime::Lookup' drops the context: {{.*}} pass 'ctx' [tether-context-not-forwarded]
  // CHECK: runtime/kubernetes/pods.cpp:9:20: note: root context 'tether::Background()' created here, via vela::kubernetes_runtime::Runtime::Lookup
  (void)pod;
  return tether::Error();
}

tether::Error Runtime::RunContainer(const tether::Context& ctx, const Container& ctn) {
  // Site 25 (DET): `Pods(c.config.Namespace).Patch(context.Background(), ...)`.
  pods_.Patch(tether::Background(), pod_.name, ctn.id);
  // CHECK: runtime/kubernetes/container.cpp:[[@LINE-1]]:15: warning: root context 'tether::Background()' created in 'vela::kubernetes_runtime::Runtime::RunContainer', which can reach context 'ctx'; {{.*}} [tether-detached-context]
  return tether::Error();
}

int Runtime::TailContainer(const tether::Context& ctx, const Container& ctn) {
  int stream = -1;
  // Site 26 (DET): inside logsFunc, `Stream(context.Background())`, here the
  // factory's root.
  auto logs_func = [&] {
    stream = pods_.Stream(NoTimeout(), ctn.id);
    // CHECK: runtime/kubernetes/container.cpp:[[@LINE-1]]:27: warning: call to 'vela::NoTimeout' drops the context: {{.*}} pass 'ctx' [tether-context-not-forwarded]
    // CHECK: internal/context.cpp:{{[0-9]+}}:{{[0-9]+}}: note: root context 'tether::Background()' created here, via vela::NoTimeout
    return stream >= 0;
  };
  // Site 27 (LOOP): `wait.ExponentialBackoff(backoff, logsFunc)` (10 steps,
  // factor 2, cap 2m) cannot be cancelled; its WithContext sibling can.
  wait::ExponentialBackoff(wait::Backoff{}, logs_func);
  // CHECK: runtime/kubernetes/container.cpp:[[@LINE-1]]:9: warning: call to 'ExponentialBackoff' drops the context: 'ExponentialBackoffWithContext' takes one; call it with 'ctx' [tether-context-not-forwarded]
  // CHECK: include/vela.hpp:51:6: note: 'ExponentialBackoffWithContext' that takes a context is declared here
  // Site 28 (CNC, out of scope): every failed retry drops its stream without
  // closing it (see README.md).
  return stream;
}

tether::Error Runtime::WaitContainer(const tether::Context& ctx, const Container& ctn) {
  // Site 29 (DET): `// nolint: contextcheck` / `...Watch(context.Background(), opts)`.
  kube::Watcher watch = pods_.Watch(NoTimeout(), pod_.name);
  // CHECK: runtime/kubernetes/container.cpp:[[@LINE-1]]:37: warning: call to 'vela::NoTimeout' drops the context: {{.*}} pass 'ctx' [tether-context-not-forwarded]
  // CHECK: internal/context.cpp:{{[0-9]+}}:{{[0-9]+}}: note: root context 'tether::Background()' created here, via vela::NoTimeout
  // Site 30 (LOOP): `for { result := <-podWatch.ResultChan() ... }`, no
  // select on ctx.Done().
  for (;;) {
    std::optional<kube::Event> ev = watch.Next();
    // CHECK: runtime/kubernetes/container.cpp:[[@LINE-1]]:43: warning: call to 'Next' drops the context: 'Next' takes one; call it with 'ctx' [tether-context-not-forwarded]
    // CHECK: include/vela.hpp:30:24: note: 'Next' that takes a context is declared here
    // CHECK: runtime/kubernetes/container.cpp:[[@LINE-3]]:43: warning: blocking call in a loop that never reads context 'ctx': {{.*}} [tether-loop-without-context]
    // CHECK: runtime/kubernetes/container.cpp:[[@LINE-5]]:3: note: this loop has no constant bound
    if (!ev) return tether::Error::Canceled();
    if (ev->terminated) return tether::Error();
  }
}

}  // namespace vela::kubernetes_runtime
