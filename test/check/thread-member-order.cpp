// REQUIRES: checker
// tether-thread-member-order: a member that joins its threads only when it is
// destroyed must be declared after the members those threads use.
// RUN: %check_tether %s tether-thread-member-order %t -- -- -std=c++20
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

// Desbordante's WorkerThreadPool shape: the jthreads are declared first, so
// the mutex and condition variable are destroyed before the jthreads' own
// destructors join; the destructor only signals.
class Pool {
 public:
  explicit Pool(int n) {
    for (int i = 0; i < n; ++i) workers_.emplace_back(&Pool::Work, this);
  }
  ~Pool() { Terminate(); }

 private:
  std::vector<std::jthread> workers_;
  // CHECK: :[[@LINE-1]]:29: warning: 'workers_' joins its threads only when it is destroyed, but it is declared before 'cv_' and 'mu_', which the threads use: members are destroyed in reverse order of declaration, so they are destroyed while the threads may still run; declare 'workers_' after the members its threads use, or join its threads in the destructor of 'Pool' [tether-thread-member-order]
  // CHECK: :[[@LINE+9]]:5: note: a thread uses 'cv_' here
  // CHECK: :[[@LINE-6]]:3: note: the destructor ends without joining 'workers_'
  void Terminate() {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  void Work() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return stop_; });
  }
  std::condition_variable cv_;
  std::mutex mu_;
  bool stop_ = false;
};

// A project's own auto-joining thread (RAII over std::thread), one member,
// started in the initialiser with a lambda; no destructor of its own.
class ScopedThread {
 public:
  template <class F>
  explicit ScopedThread(F f) : t_(std::move(f)) {}
  ~ScopedThread() {
    if (t_.joinable()) t_.join();
  }

 private:
  std::thread t_;
};

class Logger {
 public:
  Logger() : writer_([this] { Drain(); }) {}

 private:
  void Drain() {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.clear();
  }
  ScopedThread writer_;
  // CHECK: :[[@LINE-1]]:16: warning: 'writer_' joins its threads only when it is destroyed, but it is declared before 'mu_' and 'lines_', which the threads use
  // CHECK: :[[@LINE-5]]:38: note: a thread uses 'mu_' here
  // CHECK: :[[@LINE-12]]:7: note: 'Logger' has no destructor of its own
  std::mutex mu_;
  std::deque<int> lines_;
};

// Negatives. The fix desbordante made: the destructor joins the workers
// (clear() destroys them) before any member is destroyed.
class JoinedInDestructor {
 public:
  JoinedInDestructor() { workers_.emplace_back([this] { Work(); }); }
  ~JoinedInDestructor() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    workers_.clear();
  }

 private:
  void Work() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return stop_; });
  }
  std::vector<std::jthread> workers_;
  std::condition_variable cv_;
  std::mutex mu_;
  bool stop_ = false;
};

// The jthread declared last: destroyed (and joined) first.
class DeclaredLast {
 public:
  DeclaredLast() : worker_([this](std::stop_token st) { Work(st); }) {}

 private:
  void Work(std::stop_token st) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, st, [] { return false; });
  }
  std::mutex mu_;
  std::condition_variable_any cv_;
  std::jthread worker_;
};

// The thread uses only scalars declared after it.
class OnlyScalars {
 public:
  OnlyScalars() : worker_([this] { ++count_; }) {}

 private:
  std::jthread worker_;
  int count_ = 0;
};
