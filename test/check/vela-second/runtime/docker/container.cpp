// runtime/docker/container.go (pre-fix), TailContainer.
#include <unistd.h>

#include "vela.hpp"

namespace vela::docker_runtime {

int Runtime::TailContainer(const tether::Context& ctx, const Container& ctn) {
  int logs = ContainerLogs(ctx, ctn.id);
  int pipe_fds[2] = {-1, -1};
  if (::pipe(pipe_fds) != 0) return -1;
  // Site 20 (GI): `go func() { ... _, err := stdcopy.StdCopy(wc, wc, logs) }()`:
  // the copier can see ctx (Go closures, like [=], reach everything) but
  // never checks it; it ends only at EOF.
  copier_ = std::thread([=] {
    // CHECK: runtime/docker/container.cpp:[[@LINE-1]]:13: warning: task started here has context 'ctx' but never reads it {{.*}} [tether-task-ignores-context]
    char buf[4096];
    long n = 0;
    while ((n = ::read(logs, buf, sizeof buf)) > 0) ::write(pipe_fds[1], buf, n);
    // CHECK: runtime/docker/container.cpp:[[@LINE-1]]:19: warning: blocking call in a loop that never reads context 'ctx': {{.*}} [tether-loop-without-context]
    // CHECK: runtime/docker/container.cpp:[[@LINE-2]]:5: note: this loop has no constant bound
    ::close(pipe_fds[1]);
  });
  return pipe_fds[0];
}

}  // namespace vela::docker_runtime
