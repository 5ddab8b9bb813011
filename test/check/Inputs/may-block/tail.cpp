#include <tether/context.hpp>
#include <tether/task.hpp>
#include "stream.hpp"
namespace logs {
tether::Error TailStep(const tether::Context& ctx, int pipe_fd, std::string* out) {
  auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
  group.Go([&] {
    CopyOutput(pipe_fd, out);
    return tether::Error();
  });
  // Annotating never blocks: a task that ignores its context but ends by itself.
  group.Go([&] {
    Annotate(out);
    return tether::Error();
  });
  return group.Wait();
}
}  // namespace logs
