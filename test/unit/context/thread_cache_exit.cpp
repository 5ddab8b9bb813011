// A program that returns from main while cached task threads are idle, one
// task still runs, and an AfterFunc fires during exit: the process must exit
// with main's status and print nothing (a sanitizer build would report a
// leak or a race on stderr). Run by ctest (test/unit/context/CMakeLists.txt).
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "tether/task.hpp"

int main() {
  auto [group, gctx] = tether::TaskGroup::WithContext(tether::Background());
  for (int i = 0; i < 16; ++i) group.Go([] {});
  if (!group.Wait().ok()) return 1;
  std::atomic<bool> started{false};
  // tether:detached(deliberately still running at exit: the case under test)
  tether::Go(tether::Background(), [&started] {
    started = true;
    std::this_thread::sleep_for(std::chrono::hours(1));
  });
  while (!started.load()) std::this_thread::yield();
  static auto cancel_at_exit = tether::WithCancel(tether::Background());
  tether::AfterFunc(cancel_at_exit.ctx, [] {});
  std::atexit([] { cancel_at_exit.cancel(); });
  return 0;
}
