// libtether's own cached threads under `tether trace --threads on`
// (test/trace/cache-threads.test): a group's tasks run on the thread cache
// and end; their threads then sit idle, owned by the cache (not a leak). The
// program's own std::thread, detached and still running at exit, is a leak.
// The line numbers are checked by the test: add lines at the end only.
#include <unistd.h>

#include <thread>

#include "tether/tether.hpp"

int main() {
  auto [group, gctx] = tether::TaskGroup::WithContext(tether::Background());
  for (int i = 0; i < 3; ++i) {
    group.Go("short task", [] { return tether::Error(); });
  }
  if (!group.Wait().ok()) return 1;  // the tasks ended, their threads idle
  std::thread([] {
    for (;;) pause();
  }).detach();
  return 0;
}
// Before, a detached tether::Go task fired a Signal that main waited for,
// then returned: under load its end came after main's exit, and the report
// rightly called it still running (a flake of the test, not of the tracer).
// A group's Wait returns once its tasks have ended.
