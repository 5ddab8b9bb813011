// A program built against an installed Tether. `consumer clean` waits for
// its tasks; `consumer zombie` lets a task outlive its scope, which
// `tether trace` must report. Built with Tether::context alone
// (CONTEXT_ONLY) it must run the same and never write a trace.
#include <cstdio>
#include <cstring>
#include <optional>

#include "tether/tether.hpp"
#ifndef CONTEXT_ONLY
#include "tether/trace/runtime.hpp"
#endif

int main(int argc, char** argv) {
  const bool zombie = argc > 1 && std::strcmp(argv[1], "zombie") == 0;
  tether::Signal release = tether::Signal::Make();
  std::optional<tether::TaskGroup> owner;
  tether::Error err;
  {
    tether::Scope request(tether::Background(), "consumer request");
    auto [ctx, cancel] = tether::WithCancel(request.context());
    auto [group, gctx] = tether::TaskGroup::WithContext(ctx);
    owner.emplace(std::move(group));
    owner->Go("installed worker", [release] { release.Wait(); });
    if (!zombie) {
      release.Fire();
      err = owner->Wait();
    }
    cancel();
  }
  release.Fire();
  if (zombie) err = owner->Wait();
  std::printf("consumer: %s\n", err.ToString().c_str());
#ifndef CONTEXT_ONLY
  tether::trace::RuntimeStats stats = tether::trace::GetRuntimeStats();
  std::printf("consumer: tracing %s\n", stats.file_trace ? "on" : "off");
#endif
  return 0;
}
