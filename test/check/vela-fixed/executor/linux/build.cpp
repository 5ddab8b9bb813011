// executor/linux/build.go (newest): the final uploads run on a root, on
// purpose, with the maintainers' //nolint:contextcheck reasons.
#include "vela.hpp"

namespace vela::linux_executor {

tether::Error Client::PlanBuild(const tether::Context& ctx) {
  // tether:detached(ctx can be canceled by build timing out. need to pass background context here)
  return build::Snapshot(tether::Background());
}

tether::Error Client::ExecBuild(const tether::Context& ctx) {
  tether::Error err = ExecSecrets(ctx);
  // tether:detached(ctx can be canceled by build timing out. need to pass background context here)
  tether::Error upload = build::Upload(tether::Background());
  return err.ok() ? upload : err;
}

// StreamBuild: each stream request runs in a group on a context that is
// cancelled log_streaming_timeout after the build's (#390); the group is
// waited for before StreamBuild returns.
tether::Error Client::StreamBuild(const tether::Context& ctx) {
  auto [delayed, cancel] = WithDelayedCancelPropagation(ctx, std::chrono::minutes(5));
  auto [streams, stream_ctx] = tether::TaskGroup::WithContext(delayed);
  streams.Go([this, c = stream_ctx] { return StreamSecret(c, "vault"); });
  tether::Error err = streams.Wait();
  cancel();
  return err;
}

}  // namespace vela::linux_executor
