// internal/context/context.go (#390): rooted at Background on purpose; the
// PR description gives the reason the code does not.
#include "vela.hpp"

namespace vela {

tether::ContextAndCancel WithDelayedCancelPropagation(const tether::Context& parent,
                                                      tether::Duration timeout) {
  auto [ctx, cancel] = tether::WithCancel(tether::Background());
  // tether:detached(log streaming must outlive the build by log_streaming_timeout, PR #390)
  tether::Go(parent, [parent, timeout, c = ctx, cancel = cancel] {
    parent.Done().Wait();
    (void)timeout;
    cancel();
  });
  return {ctx, cancel};
}

}  // namespace vela
