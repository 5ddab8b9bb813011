// First in the batch: clean. Its file-local Work is its own.
#include <thread>

namespace {
void Work() {}
}  // namespace

void Joined() {
  std::thread t(Work);
  t.join();
}
