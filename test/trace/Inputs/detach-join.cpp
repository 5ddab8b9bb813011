// A thread made by a statement over several lines and detached on the next:
// `tether check` reports the detach (line 17), the tracer records the thread's
// creation (lines 13-16) and where it was detached (line 17), so
// test/report/static-join-threads.test can join the two there.
#include <chrono>
#include <thread>

namespace {
void Poll() { std::this_thread::sleep_for(std::chrono::seconds(30)); }
}  // namespace

int main() {
  std::thread poller(
      [] {
        Poll();
      });
  poller.detach();
  return 0;
}
