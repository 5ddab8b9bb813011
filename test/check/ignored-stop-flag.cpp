// REQUIRES: checker
// tether-ignored-stop-flag: a class stops its thread with a flag and a
// condition variable; the flag must reach the thread.
// RUN: %check_tether %s tether-ignored-stop-flag %t
// Before C++17 a wait predicate is copied into its parameter; the same findings:
// RUN: %check_tether %s tether-ignored-stop-flag %t -- -- -std=c++11
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <memory>
#include <thread>
#include <vector>

#include <unistd.h>

// The shutdown hang: the destructor sets the flag and joins, but the thread
// sleeps on cv_ and nobody wakes it.
class Hang {
 public:
  Hang() : worker_([this] { Run(); }) {}
  ~Hang() {
    stop_ = true;
    // CHECK: :[[@LINE-1]]:5: warning: '~Hang' sets stop flag 'stop_' but never notifies 'cv_', which the thread waits on: the thread sleeps through the stop and its join hangs; call cv_.notify_all() after setting 'stop_' [tether-ignored-stop-flag]
    worker_.join();
  }

 private:
  void Run() {
    while (!stop_) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock);
      // CHECK: :[[@LINE-1]]:11: note: the thread waits on 'cv_' here
      // The waiter's own side: it tests the flag before it locks.
      // CHECK: :[[@LINE-3]]:11: warning: the thread waits on 'cv_' with no predicate, and tests stop flag 'stop_' only outside 'lock': a stop that sets 'stop_' and notifies before this wait is lost, and the thread sleeps through it (its join hangs); wait with a predicate that tests 'stop_' [tether-ignored-stop-flag]
      // CHECK: :[[@LINE-6]]:13: note: 'stop_' is tested here, without 'lock'
    }
  }
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread worker_;
};

// A wait whose predicate the stop cannot make true: done_ is set and the
// workers are woken, see an empty queue, and wait again.
class Queue {
 public:
  Queue() {
    for (int i = 0; i < 2; ++i) workers_.emplace_back([this] { Loop(); });
  }
  ~Queue() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }

 private:
  void Loop() {
    while (true) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return !jobs_.empty(); });
        // CHECK: :[[@LINE-1]]:13: warning: the wait on 'cv_' does not check stop flag 'done_': when '~Queue' sets it and wakes the thread, the predicate is still false and the thread waits on; make the predicate return true once 'done_' is set [tether-ignored-stop-flag]
        // CHECK: :[[@LINE-14]]:7: note: 'done_' is set here
        if (done_) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
    }
  }
  bool done_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> workers_;
};

// A thread loop with no way out: the stop flag is never read.
class Spin {
 public:
  Spin() : t_([this] {
    for (;;) {
      // CHECK: :[[@LINE-1]]:5: warning: the thread's loop never reads stop flag 'running_', which '~Spin' sets before joining it: the loop has no way out and the join waits forever; test 'running_' in the loop [tether-ignored-stop-flag]
      Tick();
    }
  }) {}
  ~Spin() {
    running_ = false;
    // CHECK: :[[@LINE-1]]:5: note: 'running_' is set here
    t_.join();
  }

 private:
  void Tick();
  std::atomic<bool> running_{true};
  std::thread t_;
};

// The lost wake-up (real fixes: spdlog's periodic_worker, BS::thread_pool's
// destroy_threads): the flag is stored without the mutex the thread tests it
// under, so the notify can come between the thread's test and its wait.
class LostWakeup {
 public:
  LostWakeup() : t_([this] { Run(); }) {}
  ~LostWakeup() {
    running_ = false;
    // CHECK: :[[@LINE-1]]:5: warning: '~LostWakeup' sets stop flag 'running_' without holding 'mu_', the mutex the thread holds while it tests 'running_' and waits on 'cv_': a notify that comes between its test and its wait is lost and the thread sleeps through the stop (its join hangs); set 'running_' while holding 'mu_' [tether-ignored-stop-flag]
    // CHECK: :[[@LINE+8]]:26: note: the thread waits on 'cv_' here
    cv_.notify_all();
    t_.join();
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (running_) cv_.wait(lock, [this] { return !running_ || !jobs_.empty(); });
  }
  std::atomic<bool> running_{true};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<int> jobs_;
  std::thread t_;
};

// The same bug in a thread started through std::bind (trantor's
// ConcurrentTaskQueue, found in bench/realcode.sh's projects).
class Bound {
 public:
  Bound() : t_(std::bind(&Bound::Run, this)) {}
  ~Bound() {
    stop_ = true;
    // CHECK: :[[@LINE-1]]:5: warning: '~Bound' sets stop flag 'stop_' without holding 'mu_'
    // CHECK: :[[@LINE+8]]:24: note: the thread waits on 'cv_' here
    cv_.notify_all();
    t_.join();
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) cv_.wait(lock);
  }
  bool stop_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread t_;
};

// Not findings: the flag in the predicate and a notify after setting it; a
// stop that pushes a sentinel the predicate sees; a timed wait (it wakes by
// itself and re-reads the flag).
class Good {
 public:
  Good() : t_(&Good::Run, this) {}
  ~Good() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    t_.join();
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> l(mu_);
    while (!stop_) cv_.wait(l, [this] { return stop_ || ready_; });
  }
  bool stop_ = false, ready_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread t_;
};

class Sentinel {
 public:
  Sentinel() : t_([this] { Run(); }) {}
  void Stop() {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
    q_.push_back(0);
    cv_.notify_all();
  }
  ~Sentinel() {
    Stop();
    t_.join();
  }

 private:
  void Run() {
    while (!stop_) {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [this] { return !q_.empty(); });
      q_.pop_front();
    }
  }
  bool stop_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<int> q_;
  std::thread t_;
};

// The flag stored without the mutex, but notified under it (BS::thread_pool's
// fix): the waiter is either before its test or asleep, so no wake-up is lost.
class NotifyUnderLock {
 public:
  NotifyUnderLock() : t_([this] { Run(); }) {}
  ~NotifyUnderLock() {
    running_ = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      cv_.notify_all();
    }
    t_.join();
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (running_) cv_.wait(lock, [this] { return !running_ || !jobs_.empty(); });
  }
  std::atomic<bool> running_{true};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<int> jobs_;
  std::thread t_;
};

class Polls {
 public:
  Polls() : t_([this] {
    std::unique_lock<std::mutex> l(mu_);
    while (!stop_) cv_.wait_for(l, std::chrono::milliseconds(100));
  }) {}
  ~Polls() {
    stop_ = true;
    t_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread t_;
};

// The waiter's side of a lost wake-up: the flag is tested, then the lock is
// taken, then the thread waits with no predicate. However the stop locks, a
// stop (set + notify) between the test and the wait is slept through. The
// condition variable and mutex belong to another object (a job system).
struct JobQueue {
  std::mutex mu;
  std::condition_variable added;
};

class JobWorker {
 public:
  explicit JobWorker(JobQueue* q) : queue_(q) {}
  void StartThread() { thread_ = std::thread(&JobWorker::ThreadMain, this); }
  void RequestExit() { exit_requested_.store(true); }
  ~JobWorker() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  void ThreadMain() {
    bool exit = false;
    while (!exit) {
      exit = exit_requested_.load();
      if (exit) break;
      std::unique_lock<std::mutex> lock(queue_->mu);
      queue_->added.wait(lock);
      // CHECK: :[[@LINE-1]]:21: warning: the thread waits on 'added' with no predicate, and tests stop flag 'exit_requested_' only outside 'lock'
      // CHECK: :[[@LINE-5]]:14: note: 'exit_requested_' is tested here, without 'lock'
      // CHECK: :[[@LINE-15]]:24: note: 'RequestExit' sets 'exit_requested_' here
    }
  }
  JobQueue* queue_;
  std::atomic<bool> exit_requested_{false};
  std::thread thread_;
};

// The flag is tested after the wait only; the lock is taken again with
// lock(): a stop before the first wait is slept through.
class Relocking {
 public:
  Relocking() : thread_([this] { Main(); }) {}
  ~Relocking() {
    stop_ = true;
    cv_.notify_all();
    thread_.join();
  }

 private:
  void Main() {
    std::unique_lock<std::mutex> lock(mu_, std::defer_lock);
    for (;;) {
      lock.lock();
      cv_.wait(lock);
      // CHECK: :[[@LINE-1]]:11: warning: the thread waits on 'cv_' with no predicate, and tests stop flag 'stop_' only outside 'lock'
      lock.unlock();
      if (stop_) return;
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Negatives: the flag tested again after the lock is taken; the lock held
// across the whole loop (its condition is tested under it).
class RetestedUnderLock {
 public:
  RetestedUnderLock() : thread_([this] { Main(); }) {}
  ~RetestedUnderLock() {
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void Main() {
    while (!stop_) {
      std::unique_lock<std::mutex> lock(mu_);
      if (!stop_) cv_.wait(lock);
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

class HeldAcrossLoop {
 public:
  HeldAcrossLoop() : thread_([this] { Main(); }) {}
  ~HeldAcrossLoop() {
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void Main() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) cv_.wait(lock);
  }
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// The start-signal hang: the thread waits for a promise that only run()
// fulfils, and the destructor joins it without fulfilling it: an object
// never run hangs in its destructor (trantor's EventLoopThread, 0917b15).
class LoopThread {
 public:
  LoopThread() : thread_([this] { Main(); }) {}
  ~LoopThread() {
    if (thread_.joinable()) thread_.join();
    // CHECK: :[[@LINE-1]]:29: warning: '~LoopThread' joins the thread, which may still be waiting on 'start_' that only 'run' fulfils: an object destroyed before 'run' is called waits here forever; fulfil 'start_' (or call 'run') before the join [tether-ignored-stop-flag]
    // CHECK: :[[@LINE+9]]:13: note: the thread waits on 'start_' here
  }
  void run() {
    std::call_once(once_, [this] { start_.set_value(1); });
  }

 private:
  void Main() {
    auto started = start_.get_future();
    started.get();
    Loop();
  }
  void Loop() {}
  std::once_flag once_;
  std::promise<int> start_;
  std::thread thread_;
};

// Negative: the fix: the destructor calls run() first.
class RunsFirst {
 public:
  RunsFirst() : thread_([this] { Main(); }) {}
  ~RunsFirst() {
    run();
    if (thread_.joinable()) thread_.join();
  }
  void run() {
    std::call_once(once_, [this] { start_.set_value(1); });
  }

 private:
  void Main() { start_.get_future().get(); }
  std::once_flag once_;
  std::promise<int> start_;
  std::thread thread_;
};

// A start after the stop: each call starts a detached thread, and stop()
// waits until the running ones are done, but nothing stops a call that comes
// after it (oatpp's HttpConnectionHandler, 28b71c7).
class ConnectionHandler {
 public:
  void HandleConnection(int fd) {
    std::thread worker([this, fd] { Serve(fd); });
    // CHECK: :[[@LINE-1]]:5: warning: 'HandleConnection' starts a thread on each call without testing whether 'Stop' has run: 'Stop' waits only for the threads already running, and one started after it is never waited for; have 'Stop' set a flag and test it here before starting [tether-ignored-stop-flag]
    // CHECK: :[[@LINE+4]]:8: note: 'Stop' waits for the threads here, and changes nothing 'HandleConnection' tests
    worker.detach();  // tether:detached(counted in spawns_, Stop() waits for them)
  }

  void Stop() {
    while (spawns_.load() != 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

 private:
  void Serve(int) { --spawns_; }
  std::atomic<int> spawns_{0};
};

// Negative: the fix: Stop() clears a flag that each call tests first.
class StoppableHandler {
 public:
  void HandleConnection(int fd) {
    if (!accepting_.load()) return;
    std::thread worker([this, fd] { Serve(fd); });
    worker.detach();  // tether:detached(counted in spawns_, Stop() waits for them)
  }

  void Stop() {
    accepting_.store(false);
    while (spawns_.load() != 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

 private:
  void Serve(int) { --spawns_; }
  std::atomic<bool> accepting_{true};
  std::atomic<int> spawns_{0};
};

// A pool that joins its workers when destroyed, and a stop that waits for the
// running tasks (a project's own, like PDAL's ThreadPool).
class TilePool {
 public:
  TilePool() { workers_.push_back(std::thread([this] { Run(); })); }
  ~TilePool() { stop(); }
  void add(std::function<void()> task) {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
  }
  void stop() {
    for (std::thread& t : workers_)
      if (t.joinable()) t.join();
  }

 private:
  void Run() {}
  std::mutex mu_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> workers_;
};

// Each task waits for room in the reader's queue, which only the reader's own
// Next() makes; Fail() stops the pool from the reader's side: the stop waits
// for a task that waits for the reader (PDAL's EptReader, 027a283).
class TileReader {
 public:
  TileReader() : state_(new State) { state_->pool.reset(new TilePool); }
  void Load(int tile) {
    state_->pool->add([this, tile] {
      for (;;) {
        // CHECK: :[[@LINE-1]]:7: warning: a task handed to 'state_->pool' waits in this loop until 'state_->ready' changes and tests no stop: 'Fail' stops 'state_->pool' (it waits for the running tasks) without changing anything the loop tests, and 'state_->ready' is changed by the class's own code ('Next'), so a stop made while the task waits can wait for it forever; have 'Fail' set a flag that the loop tests [tether-ignored-stop-flag]
        {
          std::lock_guard<std::mutex> lock(state_->mu);
          if (state_->ready.size() < 4) {
            // CHECK: :[[@LINE-1]]:23: note: the loop tests 'state_->ready' here
            state_->ready.push_back(tile);
            break;
          }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    });
  }
  int Next() {
    std::lock_guard<std::mutex> lock(state_->mu);
    int tile = state_->ready.front();
    state_->ready.pop_front();
    return tile;
  }
  void Fail() { state_->pool->stop(); }
  // CHECK: :[[@LINE-1]]:31: note: 'Fail' stops 'state_->pool' here

 private:
  struct State {
    std::mutex mu;
    std::deque<int> ready;
    std::unique_ptr<TilePool> pool;
  };
  std::unique_ptr<State> state_;
};

// Negative: the fix: the stop sets a flag that the loop tests.
class StoppableTileReader {
 public:
  StoppableTileReader() : state_(new State) { state_->pool.reset(new TilePool); }
  void Load(int tile) {
    state_->pool->add([this, tile] {
      while (!state_->done) {
        {
          std::lock_guard<std::mutex> lock(state_->mu);
          if (state_->ready.size() < 4) {
            state_->ready.push_back(tile);
            break;
          }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    });
  }
  int Next() {
    std::lock_guard<std::mutex> lock(state_->mu);
    int tile = state_->ready.front();
    state_->ready.pop_front();
    return tile;
  }
  void Fail() {
    state_->done = true;
    state_->pool->stop();
  }

 private:
  struct State {
    std::mutex mu;
    std::deque<int> ready;
    std::atomic<bool> done{false};
    std::unique_ptr<TilePool> pool;
  };
  std::unique_ptr<State> state_;
};

// Negative: a bounded retry loop (a local counter ends it).
class RetryingUploader {
 public:
  RetryingUploader() : pool_(new TilePool) {}
  void Upload() {
    pool_->add([this] {
      for (int attempt = 0; attempt < 3 && !sent_; ++attempt)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
  }
  void Ack() { sent_ = true; }
  void Cancel() { pool_->stop(); }

 private:
  std::atomic<bool> sent_{false};
  std::unique_ptr<TilePool> pool_;
};
// CHECK-NOT: warning: a task handed to

// Rule 9, a stop that does not wait for its loop (the class of trantor's
// EventLoop, 4d0f72e). Run() is an event loop run by whichever thread calls
// it; the destructor stops it and wakes it through the descriptor, so it
// expects the loop on another thread, and returns while the loop may still
// be inside Poll() on this object.
class Reactor {
 public:
  ~Reactor() {
    // CHECK: :[[@LINE-1]]:3: warning: the destructor of 'Reactor' stops the loop in 'Run' (it sets 'stopped_' and wakes it) but does not wait for it to leave: a loop still running on another thread goes on using the object after it is destroyed; wait until 'Run' has returned (a flag it clears after its loop) before the destructor returns [tether-ignored-stop-flag]
    Stop();
    ::close(wake_fd_);
  }
  void Run() {
    running_ = true;
    while (!stopped_) Poll();
    // CHECK: :[[@LINE-1]]:5: note: 'Run' loops until 'stopped_' changes
    running_ = false;
  }
  void Stop() {
    stopped_ = true;
    // CHECK: :[[@LINE-1]]:5: note: 'stopped_' is set here
    unsigned long long one = 1;
    ssize_t n = ::write(wake_fd_, &one, sizeof one);
    // CHECK: :[[@LINE-1]]:17: note: the loop is woken here
    (void)n;
  }

 private:
  void Poll();
  std::atomic<bool> stopped_{false};
  std::atomic<bool> running_{false};
  int wake_fd_ = -1;
};

// The same through a condition variable: Serve() sleeps on ready_ on the
// caller's thread; the destructor wakes it and destroys mu_ under it.
class Dispatcher {
 public:
  ~Dispatcher() {
    // CHECK: :[[@LINE-1]]:3: warning: the destructor of 'Dispatcher' stops the loop in 'Serve' (it sets 'closed_' and wakes it)
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    ready_.notify_all();
  }
  void Serve() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!closed_) {
      ready_.wait(lock);
      Handle();
    }
  }

 private:
  void Handle();
  std::mutex mu_;
  std::condition_variable ready_;
  bool closed_ = false;
};

// Negative: the fix, the destructor waits until the loop has left.
class WaitingReactor {
 public:
  ~WaitingReactor() {
    Stop();
    while (running_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ::close(wake_fd_);
  }
  void Run() {
    running_ = true;
    while (!stopped_) Poll();
    running_ = false;
  }
  void Stop() {
    stopped_ = true;
    unsigned long long one = 1;
    ssize_t n = ::write(wake_fd_, &one, sizeof one);
    (void)n;
  }

 private:
  void Poll();
  std::atomic<bool> stopped_{false};
  std::atomic<bool> running_{false};
  int wake_fd_ = -1;
};

// Negative: a wait on a condition the loop's method makes true.
class DrainingDispatcher {
 public:
  ~DrainingDispatcher() {
    std::unique_lock<std::mutex> lock(mu_);
    closed_ = true;
    ready_.notify_all();
    left_.wait(lock, [this] { return !serving_; });
  }
  void Serve() {
    std::unique_lock<std::mutex> lock(mu_);
    serving_ = true;
    while (!closed_) ready_.wait(lock);
    serving_ = false;
    left_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable ready_, left_;
  bool closed_ = false;
  bool serving_ = false;
};

// Negative: a defensive stop that wakes nothing: the loop is run on the
// destructor's own thread, before it (a server's run() returns first).
class Server {
 public:
  ~Server() { Stop(); }
  void Run() {
    while (running_) Accept();
  }
  void Stop() { running_ = false; }

 private:
  void Accept();
  std::atomic<bool> running_{true};
};
// CHECK-NOT: warning: the destructor of 'WaitingReactor'
// CHECK-NOT: warning: the destructor of 'DrainingDispatcher'
// CHECK-NOT: warning: the destructor of 'Server'

// The waiter's lost wake-up in a lambda entry whose lock is deferred and
// taken by lk.lock() in the loop: the lock point is found in the lambda.
class DeferredLoop {
 public:
  DeferredLoop()
      : worker_([this] {
          std::unique_lock<std::mutex> lk(mu_, std::defer_lock);
          while (!stop_) {
            lk.lock();
            cv_.wait(lk);
            // CHECK: :[[@LINE-1]]:17: warning: the thread waits on 'cv_' with no predicate, and tests stop flag 'stop_' only outside 'lk'
            lk.unlock();
          }
        }) {}
  ~DeferredLoop() {
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> stop_{false};
  std::thread worker_;
};
