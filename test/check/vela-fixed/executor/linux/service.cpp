// executor/linux/service.go (newest): ExecService's deferred upload is justified;
// StreamService's time-chunks uploader (site 17) is STILL a goroutine nobody
// owns, that ignores ctx.
#include <string>

#include "vela.hpp"

namespace vela::linux_executor {

tether::Error Client::ExecService(const tether::Context& ctx, const Container& ctn) {
  if (!ctx.Err().ok()) {
    // tether:detached(ctx canceled. need to pass background context here)
    return step::Upload(tether::Background());
  }
  return tether::Error();
}

tether::Error Client::StreamService(const tether::Context& ctx, const Container& ctn) {
  tether::Go(ctx, [this] { UploadLogChunk("time chunk"); });
  // CHECK: executor/linux/service.cpp:[[@LINE-1]]:3: warning: detached task: 'tether::Go' {{.*}} [tether-detached-task]
  std::string line;
  while (ScanLine(&line)) {
  }
  // tether:detached(ctx can be canceled by build timing out. need to pass background context here)
  return step::Upload(tether::Background());
}

}  // namespace vela::linux_executor
