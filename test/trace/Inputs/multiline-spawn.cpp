// A thread made by a call written over several lines, left joinable on one
// path: the checker reports the statement's first line, the tracer the line
// the compiler gives the call (its last); `tether report --static` joins them.
#include <chrono>
#include <thread>

namespace {
void Poll() { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }
}  // namespace

int main(int argc, char**) {
  std::thread poller(
      [] {
        Poll();
      });
  if (argc > 1) poller.join();
  return 0;
}
