// executor/linux/service.go (pre-fix), ExecService.
#include "vela.hpp"

namespace vela::linux_executor {

tether::Error Client::ExecService(const tether::Context& ctx, const Container& ctn) {
  // Site 12 (UW): `logs, logCtx := errgroup.WithContext(ctx)` ... `logs.Wait()` is never called.
  auto [logs, log_ctx] = tether::TaskGroup::WithContext(ctx);
  logs.Go([this, c = log_ctx, ctn] { return StreamService(c, ctn); });
  // CHECK: executor/linux/service.cpp:[[@LINE-1]]:3: warning: task group 'logs' starts a task here but is not waited for on every path; call logs.Wait() before it goes out of scope [tether-unwaited-group]
  return tether::Error();
}

}  // namespace vela::linux_executor
