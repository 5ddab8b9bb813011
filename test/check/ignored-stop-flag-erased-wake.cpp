// REQUIRES: checker
// tether-ignored-stop-flag: a thread that erases its stop's wake-up. The stop
// sets the flag and then, under the mutex the thread sleeps by, writes a
// member that keeps the thread's next wait from sleeping. A thread that
// overwrites that member under the mutex without looking at it or at the
// flag erases a stop that came after its last test of the flag, and sleeps.
// RUN: %check_tether %s tether-ignored-stop-flag %t
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <mutex>
#include <thread>

std::int64_t RunDueTimers();

// A timer loop: the stop bumps the generation and pulls the deadline to 0;
// the loop resets the deadline at the top of each pass without testing quit_.
class TimerLoop {
 public:
  TimerLoop() : worker_([this] { Loop(); }) {}
  ~TimerLoop() {
    quit_.store(true);
    {
      std::lock_guard<std::mutex> g(mu_);
      earliest_ = 0;
      ++generation_;
    }
    cv_.notify_one();
    worker_.join();
  }

 private:
  void Loop() {
    while (!quit_.load()) {
      {
        std::lock_guard<std::mutex> g(mu_);
        earliest_ = std::numeric_limits<std::int64_t>::max();
        // CHECK: :[[@LINE-1]]:9: warning: the thread overwrites 'earliest_' under 'mu_' without testing stop flag 'quit_': a '~TimerLoop' that runs after the thread's last test of 'quit_' writes 'earliest_' to wake it, this write erases that, and the thread goes back to sleep while '~TimerLoop' waits for it; test 'quit_' under 'mu_' before overwriting 'earliest_' [tether-ignored-stop-flag]
        // CHECK: :[[@LINE-14]]:7: note: '~TimerLoop' writes 'earliest_' here to wake the thread
        // CHECK: :[[@LINE+8]]:7: note: the thread then sleeps here without testing 'quit_'
        // CHECK: :[[@LINE-19]]:5: note: 'quit_' is set here
      }
      const std::int64_t next = RunDueTimers();
      std::unique_lock<std::mutex> lk(mu_);
      if (next > earliest_) continue;
      earliest_ = next;
      const unsigned seen = generation_;
      cv_.wait(lk, [&] { return generation_ != seen; });
    }
  }

  std::atomic<bool> quit_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::int64_t earliest_ = 0;
  unsigned generation_ = 0;
  std::thread worker_;
};

// A kick bit: the stop sets it under the lock; the worker clears it at the
// top of each pass, after testing `stopping_` outside the lock.
class Kicker {
 public:
  void Start() { thread_ = std::thread(&Kicker::Work, this); }
  void Stop() {
    stopping_ = true;
    {
      std::lock_guard<std::mutex> g(lock_);
      kicked_ = true;
    }
    kick_.notify_all();
    thread_.join();
  }

 private:
  void Work() {
    for (;;) {
      if (stopping_) return;
      std::unique_lock<std::mutex> lk(lock_);
      kicked_ = false;
      // CHECK: :[[@LINE-1]]:7: warning: the thread overwrites 'kicked_' under 'lock_' without testing stop flag 'stopping_'{{.*}}[tether-ignored-stop-flag]
      // CHECK: :[[@LINE-13]]:7: note: 'Stop' writes 'kicked_' here to wake the thread
      // CHECK: :[[@LINE+2]]:7: note: the thread then sleeps here without testing 'stopping_'
      // CHECK: :[[@LINE-18]]:5: note: 'stopping_' is set here
      kick_.wait(lk, [this] { return kicked_; });
    }
  }

  std::atomic<bool> stopping_{false};
  std::mutex lock_;
  std::condition_variable kick_;
  bool kicked_ = false;
  std::thread thread_;
};

// The fix: the flag is tested in the same hold as the reset. A stop that
// comes later finds the deadline reset and pulls it to 0 again.
class TimerLoopFixed {
 public:
  TimerLoopFixed() : worker_([this] { Loop(); }) {}
  ~TimerLoopFixed() {
    quit_.store(true);
    {
      std::lock_guard<std::mutex> g(mu_);
      earliest_ = 0;
      ++generation_;
    }
    cv_.notify_one();
    worker_.join();
  }

 private:
  void Loop() {
    while (!quit_.load()) {
      {
        std::lock_guard<std::mutex> g(mu_);
        if (quit_.load()) break;
        earliest_ = std::numeric_limits<std::int64_t>::max();
      }
      const std::int64_t next = RunDueTimers();
      std::unique_lock<std::mutex> lk(mu_);
      if (next > earliest_) continue;
      earliest_ = next;
      const unsigned seen = generation_;
      cv_.wait(lk, [&] { return generation_ != seen; });
    }
  }

  std::atomic<bool> quit_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::int64_t earliest_ = 0;
  unsigned generation_ = 0;
  std::thread worker_;
};

// The wait after the reset tests the flag: the stop cannot be lost.
class KickerGuarded {
 public:
  void Start() { thread_ = std::thread(&KickerGuarded::Work, this); }
  void Stop() {
    stopping_ = true;
    {
      std::lock_guard<std::mutex> g(lock_);
      kicked_ = true;
    }
    kick_.notify_all();
    thread_.join();
  }

 private:
  void Work() {
    for (;;) {
      if (stopping_) return;
      std::unique_lock<std::mutex> lk(lock_);
      kicked_ = false;
      kick_.wait(lk, [this] { return kicked_ || stopping_; });
    }
  }

  std::atomic<bool> stopping_{false};
  std::mutex lock_;
  std::condition_variable kick_;
  bool kicked_ = false;
  std::thread thread_;
};

// The hold reads the member before it writes it: it sees the stop's 0 and
// leaves, so the write erases nothing.
class TimerLoopReadsFirst {
 public:
  TimerLoopReadsFirst() : worker_([this] { Loop(); }) {}
  ~TimerLoopReadsFirst() {
    quit_.store(true);
    {
      std::lock_guard<std::mutex> g(mu_);
      earliest_ = 0;
      ++generation_;
    }
    cv_.notify_one();
    worker_.join();
  }

 private:
  void Loop() {
    while (!quit_.load()) {
      {
        std::lock_guard<std::mutex> g(mu_);
        if (earliest_ == 0) continue;
        earliest_ = std::numeric_limits<std::int64_t>::max();
      }
      const std::int64_t next = RunDueTimers();
      std::unique_lock<std::mutex> lk(mu_);
      if (next > earliest_) continue;
      earliest_ = next;
      const unsigned seen = generation_;
      cv_.wait(lk, [&] { return generation_ != seen; });
    }
  }

  std::atomic<bool> quit_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::int64_t earliest_ = 1;
  unsigned generation_ = 0;
  std::thread worker_;
};

// The thread holds the mutex from its test of the flag to its wait: a stop
// cannot come in between, so resetting a member the stop writes loses nothing.
class StatsLoop {
 public:
  StatsLoop() : worker_([this] { Loop(); }) {}
  ~StatsLoop() {
    {
      std::lock_guard<std::mutex> g(mu_);
      done_ = true;
      ticks_ = 0;
    }
    cv_.notify_all();
    worker_.join();
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lk(mu_);
    while (!done_) {
      ticks_ = 0;
      cv_.wait(lk, [this] { return done_; });
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  unsigned ticks_ = 0;
  std::thread worker_;
};
