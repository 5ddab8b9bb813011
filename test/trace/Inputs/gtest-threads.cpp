// A real GoogleTest binary linked with Tether::gtest_main, for
// test/trace/gtest-threads.test: one test leaks a std::thread, the others
// end theirs (joined, a std::jthread, a std::async) before they end.
// The line numbers are checked by the test: add lines at the end only.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

namespace {

void BlockForever() {
  for (;;) pause();
}

int Work() {
  std::atomic<int> sum{0};
  for (int i = 0; i < 1000; ++i) sum += i;
  return sum.load();
}

}  // namespace

TEST(Threads, Leaks) {
  std::thread worker(BlockForever);
  worker.detach();
}

TEST(Threads, Clean) { EXPECT_EQ(Work(), 499500); }

TEST(Threads, JoinedBeforeTheEnd) {
  std::thread worker(Work);
  worker.join();
}

TEST(Threads, JthreadAndAsync) {
  std::jthread worker(Work);
  std::future<int> result = std::async(std::launch::async, Work);
  EXPECT_EQ(result.get(), 499500);
}

// A detached thread that ends 200 ms after its test: still running when the
// test ends, so at --grace 0 both the listener and the report flag it, and at
// --grace 2s neither does (one grace for both).
TEST(Threads, EndsSoonAfter) {
  std::thread([] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); }).detach();
}

// A worker a test starts and leaves waiting for work (a background thread by
// design): --ignore-top names it by where it waits, and then neither the
// listener nor the report blames the test.
// (Never destroyed: a condition variable destroyed at exit waits for its waiters.)
std::mutex* const g_work_mu = new std::mutex;
std::condition_variable* const g_work_cv = new std::condition_variable;

void WaitForWork() {
  std::unique_lock<std::mutex> lock(*g_work_mu);
  g_work_cv->wait(lock, [] { return false; });
}

TEST(Threads, WaitsForWork) {
  std::thread(WaitForWork).detach();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // in its wait
}
