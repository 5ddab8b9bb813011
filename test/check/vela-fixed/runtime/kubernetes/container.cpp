// runtime/kubernetes/container.go (newest): the calls take ctx (#314).
// WaitContainer(_ context.Context) ignoring its context (vela.md §3.2) is a
// task-ignores-context problem, which tether check does not implement yet:
// it is NOT reported here.
#include "vela.hpp"

namespace vela::kubernetes_runtime {

tether::Error Client::InspectContainer(const tether::Context& ctx, const Container& ctn) {
  kube::Pod pod = pods_.Get(ctx, pod_.name);
  (void)pod;
  return tether::Error();
}

int Client::TailContainer(const tether::Context& ctx, const Container& ctn) {
  auto logs_func = [&] { return pods_.Stream(ctx, ctn.id); };
  return logs_func();
}

tether::Error Client::WaitContainer(const tether::Context&, const Container& ctn) {
  return tether::Error();
}

}  // namespace vela::kubernetes_runtime
