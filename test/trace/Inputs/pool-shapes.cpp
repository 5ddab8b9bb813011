// Thread shapes seen in real test suites (bench/results/trace-realcode.md),
// traced through libtether_threads.so; not linked with libtether.
//   global-pool   a test (a TETHER_SCOPE) initialises a process-wide pool, as
//                 spdlog::init_thread_pool does: the pool's threads outlive the
//                 test. They are created in the pool's constructor, in an
//                 anonymous namespace, out of line (as a library's are); the
//                 report must name the functions readably and show which code
//                 made the pool.
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tether/trace/scope.h"

namespace {

class Pool {
 public:
  __attribute__((noinline)) Pool(int threads, const char* name) : name_(name) {
    for (int i = 0; i < threads; ++i) {
      workers_.emplace_back([this] { Work(); });  // the threads' site
    }
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

 private:
  void Work() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return stop_; });
  }

  const char* name_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

std::unique_ptr<Pool> g_pool;  // process-wide, like a logging library's pool

__attribute__((noinline)) void InitPool(int threads) {
  g_pool = std::make_unique<Pool>(threads, "global");  // caller 1
}

__attribute__((noinline)) int GlobalPool() {
  {
    TETHER_SCOPE("test uses the global pool");
    InitPool(2);  // caller 2: the test's own line
  }
  g_pool.reset();  // joined at the end: the threads then end
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "global-pool") == 0) return GlobalPool();
  std::fprintf(stderr, "usage: pool-shapes global-pool\n");
  return 2;
}
