// Thread shapes seen in real test suites (bench/results/trace-realcode.md),
// traced through libtether_threads.so; not linked with libtether.
//   global-pool   a test (a TETHER_SCOPE) initialises a process-wide pool, as
//                 spdlog::init_thread_pool does: the pool's threads outlive the
//                 test. They are created in the pool's constructor, in an
//                 anonymous namespace, out of line (as a library's are); the
//                 report must name the functions readably and show which code
//                 made the pool.
//   background    two tests (scopes) schedule work on a process-wide
//                 background worker started lazily by the first one and
//                 detached, as leveldb's PosixEnv::Schedule does; the second
//                 test also leaks a thread of its own.
//   late-join     threads that end well before they are joined (a pool's
//                 workers at its destructor): in the file their end records
//                 come before the joins, which another thread wrote.
#include <chrono>
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

class Env {
 public:
  __attribute__((noinline)) void Schedule(void (*work)()) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!started_) {
      started_ = true;
      std::thread(&Env::Background, this).detach();  // lives as long as the process
    }
    queue_.push_back(work);
    cv_.notify_one();
  }

 private:
  [[noreturn]] void Background() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return !queue_.empty(); });
      void (*work)() = queue_.back();
      queue_.pop_back();
      lock.unlock();
      work();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool started_ = false;
  std::vector<void (*)()> queue_;
};

Env* DefaultEnv() {
  static Env* env = new Env;  // never destroyed, as leveldb's Env::Default()
  return env;
}

void Nothing() {}
[[noreturn]] void Forever() {
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

__attribute__((noinline)) int Background() {
  {
    TETHER_SCOPE("test 1");
    DefaultEnv()->Schedule(Nothing);  // the first test starts the worker
  }
  {
    TETHER_SCOPE("test 2");
    DefaultEnv()->Schedule(Nothing);
    std::thread(Forever).detach();  // a leak of the test's own
  }
  return 0;
}

__attribute__((noinline)) int LateJoin() {
  std::vector<std::thread> workers;
  for (int i = 0; i < 2; ++i) workers.emplace_back(Nothing);
  // Longer than the flusher's interval (100 ms): the spawns and the ends are
  // written before the joins are recorded.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (std::thread& t : workers) t.join();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "global-pool") == 0) return GlobalPool();
  if (argc == 2 && std::strcmp(argv[1], "background") == 0) return Background();
  if (argc == 2 && std::strcmp(argv[1], "late-join") == 0) return LateJoin();
  std::fprintf(stderr, "usage: pool-shapes global-pool|background|late-join\n");
  return 2;
}
