// runtime/kubernetes/container.go, fixed (#314, #329, #337).
#include "vela.hpp"

namespace vela::kubernetes_runtime {

tether::Error Runtime::InspectContainer(const tether::Context& ctx, const Container& ctn) {
  kube::Pod pod = Lookup(ctx, pod_.name);
  (void)pod;
  return tether::Error();
}

tether::Error Runtime::RunContainer(const tether::Context& ctx, const Container& ctn) {
  pods_.Patch(ctx, pod_.name, ctn.id);
  return tether::Error();
}

int Runtime::TailContainer(const tether::Context& ctx, const Container& ctn) {
  int stream = -1;
  auto logs_func = [&] {
    stream = pods_.Stream(ctx, ctn.id);
    return stream >= 0;
  };
  wait::ExponentialBackoffWithContext(ctx, wait::Backoff{}, logs_func);
  return stream;
}

tether::Error Runtime::WaitContainer(const tether::Context& ctx, const Container& ctn) {
  kube::Watcher watch = pods_.Watch(ctx, pod_.name);
  for (;;) {
    std::optional<kube::Event> ev = watch.Next(ctx);
    if (!ev) return ctx.Err();
    if (ev->terminated) return tether::Error();
  }
}

}  // namespace vela::kubernetes_runtime
