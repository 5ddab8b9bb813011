// libtether's own cached threads under `tether trace --threads on`
// (test/trace/cache-threads.test): tasks started with tether::Go run on the
// thread cache and end; their threads then sit idle, owned by the cache (not
// a leak). The program's own std::thread, detached and still running at exit,
// is a leak. The line numbers are checked by the test: add lines at the end only.
#include <unistd.h>

#include <thread>

#include "tether/tether.hpp"

int main() {
  auto [group, gctx] = tether::TaskGroup::WithContext(tether::Background());
  for (int i = 0; i < 3; ++i) {
    group.Go("short task", [] { return tether::Error(); });
  }
  if (!group.Wait().ok()) return 1;
  tether::Signal done = tether::Signal::Make();
  tether::Go(tether::Background(), "background task", [done] { done.Fire(); });
  done.Wait();
  std::thread([] {
    for (;;) pause();
  }).detach();
  return 0;
}
