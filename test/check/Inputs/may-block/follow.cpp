#include <tether/context.hpp>
#include "stream.hpp"
namespace logs {
// Copies until cancelled, but never looks at ctx: CopyOutput blocks (stream.cpp).
void Follow(const tether::Context& ctx, int pipe_fd, std::string* out) {
  for (;;) CopyOutput(pipe_fd, out);
}
// Annotate never blocks (stream.cpp): nothing to report.
void Decorate(const tether::Context& ctx, std::string* out) {
  for (;;) Annotate(out);
}
}  // namespace logs
