// runtime/docker/container.go, fixed: the copier stops with the context.
#include <unistd.h>

#include "vela.hpp"

namespace vela::docker_runtime {

int Runtime::TailContainer(const tether::Context& ctx, const Container& ctn) {
  int logs = ContainerLogs(ctx, ctn.id);
  int pipe_fds[2] = {-1, -1};
  if (::pipe(pipe_fds) != 0) return -1;
  copier_ = std::thread([=] {
    char buf[4096];
    long n = 0;
    while (ctx.Err().ok() && (n = ::read(logs, buf, sizeof buf)) > 0) ::write(pipe_fds[1], buf, n);
    ::close(pipe_fds[1]);
  });
  return pipe_fds[0];
}

}  // namespace vela::docker_runtime
