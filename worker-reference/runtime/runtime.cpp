#include "runtime/runtime.hpp"

#include <algorithm>

#include "runtime/bwrap.hpp"
#include "runtime/process.hpp"

namespace tether::worker::runtime {

Error LogTail::Read(const Context& ctx, std::string* out, std::size_t max) {
  char buf[64 << 10];
  std::size_t n = 0;
  Error err = Read(ctx, buf, std::min(max, sizeof buf), &n);
  out->append(buf, n);
  return err;
}

std::unique_ptr<Runtime> NewRuntime(RuntimeOptions options) {
  if (options.isolation == Isolation::kBwrap)
    return std::make_unique<BwrapRuntime>(std::move(options));
  return std::make_unique<ProcessRuntime>(std::move(options));
}

}  // namespace tether::worker::runtime
