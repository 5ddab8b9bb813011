// REQUIRES: checker
// tether-ignored-stop-flag: a stop that makes a thread spin. The stop sets
// the flag the wait's predicate tests, so the wait returns at once; a path
// taken with the flag set that goes back to the wait (a continue in a loop
// that does not test the flag) and changes nothing the predicate reads never
// sleeps again: the thread spins instead of stopping.
// RUN: %check_tether %s tether-ignored-stop-flag %t
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

// Only the first worker leaves on a stop; the others go back to a wait that
// no longer sleeps.
class Dispatcher {
 public:
  explicit Dispatcher(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) workers_.emplace_back([this, i] { Run(i); });
  }
  ~Dispatcher() {
    {
      std::lock_guard<std::mutex> g(mu_);
      closing_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

 private:
  void Run(std::size_t me) {
    for (;;) {
      std::unique_lock<std::mutex> lk(mu_);
      wake_.wait(lk, [this] { return closing_ || !jobs_.empty(); });
      if (closing_) {
        if (me != 0) continue;
        // CHECK: :[[@LINE-1]]:22: warning: once '~Dispatcher' sets stop flag 'closing_', the wait on 'wake_' returns at once (its predicate tests 'closing_'), and this continue goes back to it without leaving the loop or changing anything the predicate tests: the thread spins instead of stopping, and '~Dispatcher' waits for a thread that burns a core; leave the loop on this path once 'closing_' is set [tether-ignored-stop-flag]
        // CHECK: :[[@LINE-4]]:13: note: the wait returns at once while 'closing_' is set
        // CHECK: :[[@LINE-4]]:11: note: this path is taken with 'closing_' set
        // CHECK: :[[@LINE-16]]:7: note: 'closing_' is set here
        return;
      }
      std::function<void()> job = std::move(jobs_.front());
      jobs_.pop_front();
      lk.unlock();
      job();
    }
  }

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool closing_ = false;
  std::vector<std::thread> workers_;
};

// The flag says "running" (the stop clears it), read through a getter; the
// continue is on the else side of a test that a stopped renderer can fail.
class Renderer {
 public:
  Renderer() : thread_([this] { Loop(); }) {}
  ~Renderer() {
    {
      std::lock_guard<std::mutex> g(mu_);
      running_.store(false);
    }
    cv_.notify_one();
    thread_.join();
  }

 private:
  bool Stopping() const { return !running_; }
  void Loop() {
    while (true) {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait_for(lk, std::chrono::seconds(1), [this] { return Stopping() || frame_ready_; });
      if (!running_ && frame_ready_) {
        return;
      } else if (!frame_ready_) {
        continue;
        // CHECK: :[[@LINE-1]]:9: warning: once '~Renderer' sets stop flag 'running_', the wait on 'cv_' returns at once (its predicate tests 'running_'), and this continue goes back to it without leaving the loop or changing anything the predicate tests: the thread spins instead of stopping, and '~Renderer' waits for a thread that burns a core; leave the loop on this path once 'running_' is set [tether-ignored-stop-flag]
        // CHECK: :[[@LINE-6]]:11: note: the wait returns at once while 'running_' is set
        // CHECK: :[[@LINE-6]]:11: note: this path is taken with 'running_' set
        // CHECK: :[[@LINE-19]]:7: note: 'running_' is set here
      }
      frame_ready_ = false;
      lk.unlock();
      Draw();
    }
  }
  void Draw() {}

  std::mutex mu_;
  std::condition_variable cv_;
  bool frame_ready_ = false;
  std::atomic<bool> running_{true};
  std::thread thread_;
};

// Not a spin: the loop's condition tests the flag, so the continue leaves.
class RetestingLoop {
 public:
  RetestingLoop() : thread_([this] { Loop(); }) {}
  ~RetestingLoop() {
    {
      std::lock_guard<std::mutex> g(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void Loop() {
    while (!quit_) {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [this] { return quit_ || pending_ > 0; });
      if (quit_) continue;
      --pending_;
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  int pending_ = 0;
  bool quit_ = false;
  std::thread thread_;
};

// Not a spin: each stopped pass takes a job, so the predicate can turn false
// (a drain), and the pass that finds none leaves.
class Drainer {
 public:
  Drainer() : thread_([this] { Loop(); }) {}
  ~Drainer() {
    {
      std::lock_guard<std::mutex> g(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void Loop() {
    for (;;) {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [this] { return quit_ || !jobs_.empty(); });
      if (quit_) {
        if (jobs_.empty()) return;
        jobs_.pop_front();
        continue;
      }
      if (!quit_ && jobs_.empty()) continue;
      jobs_.pop_front();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<int> jobs_;
  bool quit_ = false;
  std::thread thread_;
};

// Not a spin: the stopped pass sleeps before it goes back (a poll, slow but
// not burning a core).
class Backoff {
 public:
  Backoff() : thread_([this] { Loop(); }) {}
  ~Backoff() {
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void Loop() {
    for (;;) {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [this] { return stop_ || ready_; });
      if (stop_ && busy_) {
        lk.unlock();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      if (stop_) return;
      ready_ = false;
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool ready_ = false;
  bool busy_ = false;
  bool stop_ = false;
  std::thread thread_;
};

// The same spin with no continue: the loop reads the flag only in the wait's
// predicate and has no way out, so a stopped thread loops on a wait that no
// longer sleeps, and the join never returns.
class Ticker {
 public:
  Ticker() : thread_(&Ticker::Run, this) {}
  ~Ticker() {
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void Run() {
    for (;;) {
      // CHECK: :[[@LINE-1]]:5: warning: the thread's loop reads stop flag 'stop_' only in the predicate of its wait on 'cv_': once '~Ticker' sets it, the wait returns at once and nothing leaves the loop: the thread spins and the join waits forever; leave the loop when 'stop_' is set [tether-ignored-stop-flag]
      // CHECK: :[[@LINE+3]]:11: note: the wait returns at once while 'stop_' is set
      // CHECK: :[[@LINE-11]]:7: note: 'stop_' is set here
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [this] { return stop_ || ticks_ > 0; });
      if (ticks_ > 0) --ticks_;
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  int ticks_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

// Not a spin: the same loop leaves once the queue is drained and the flag set.
class LeavingTicker {
 public:
  LeavingTicker() : thread_([this] { Run(); }) {}
  ~LeavingTicker() {
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void Run() {
    for (;;) {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [this] { return stop_ || ticks_ > 0; });
      if (ticks_ == 0) return;
      --ticks_;
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  int ticks_ = 0;
  bool stop_ = false;
  std::thread thread_;
};
