// executor/linux/step.go (newest): ExecStep's deferred upload is justified;
// StreamStep's time-chunks uploader (site 16) is STILL a goroutine nobody
// owns, that ignores ctx.
#include <string>

#include "vela.hpp"

namespace vela::linux_executor {

tether::Error Client::ExecStep(const tether::Context& ctx, const Container& ctn) {
  if (!ctx.Err().ok()) {
    // tether:detached(ctx canceled. need to pass background context here)
    return step::Upload(tether::Background());
  }
  return tether::Error();
}

tether::Error Client::StreamStep(const tether::Context& ctx, const Container& ctn) {
  tether::Go(ctx, [this] { UploadLogChunk("time chunk"); });
  // CHECK: executor/linux/step.cpp:[[@LINE-1]]:3: warning: detached task: 'tether::Go' {{.*}} [tether-detached-task]
  std::string line;
  while (ScanLine(&line)) {
  }
  // tether:detached(ctx can be canceled by build timing out. need to pass background context here)
  return step::Upload(tether::Background());
}

}  // namespace vela::linux_executor
