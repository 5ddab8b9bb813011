// Linked with the installed Tether::gtest_main: under the installed
// `tether trace`, the test whose std::thread outlives it fails, the other passes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

TEST(InstalledThreads, JoinedPasses) {
  std::thread worker([] {});
  worker.join();
}

TEST(InstalledThreads, OutlivingThreadFails) {
  std::thread([] {
    for (;;) pause();
  }).detach();
}
