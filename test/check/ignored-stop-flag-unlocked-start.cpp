// REQUIRES: checker
// tether-ignored-stop-flag: a thread member that a stop joins while it holds
// a mutex, started elsewhere without that mutex. The lock says the
// std::thread is shared between threads; a start that does not take it can
// run while the stop joins, or just after it, and the thread it starts is
// never joined. A start is an assignment of a new thread, or the member
// handed to a function that starts it (its body assigns the parameter a new
// thread, or, unseen, it is handed a thread the code just found not joinable).
// And the stop flag's lost wake-up, now that an unlock ends a lock's hold.
// RUN: %check_tether %s tether-ignored-stop-flag %t
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

class Recorder {
 public:
  void Record() {
    if (!writer_.joinable()) writer_ = std::thread([this] { Drain(); });
    // CHECK: :[[@LINE-1]]:30: warning: 'Record' starts thread member 'writer_' without holding 'mu_', which 'Close' holds while it joins 'writer_': a start that runs while 'Close' joins, or after it, races that join and leaves a thread nobody joins; start it while holding 'mu_', after testing there that the stop has not begun [tether-ignored-stop-flag]
    // CHECK: :[[@LINE+6]]:29: note: 'Close' joins 'writer_' here, holding 'mu_'
  }

  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
    if (writer_.joinable()) writer_.join();
  }

 private:
  void Drain() {}
  std::mutex mu_;
  std::atomic<bool> closing_{false};
  std::thread writer_;
};

// Negative: the fix: the start takes the stop's mutex and tests the flag there.
class LockedRecorder {
 public:
  void Record() {
    std::lock_guard<std::mutex> lock(mu_);
    if (closing_) return;
    if (!writer_.joinable()) writer_ = std::thread([this] { Drain(); });
  }

  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
    if (writer_.joinable()) writer_.join();
  }

 private:
  void Drain() {}
  std::mutex mu_;
  bool closing_ = false;
  std::thread writer_;
};

// A function that is not seen, handed a thread the code has just found not
// joinable: it can only start it (a join or a detach would throw).
class Uploader;
bool Launch(std::thread& into, void (*body)(Uploader*), Uploader* self);

class Uploader {
 public:
  void OnData() {
    if (active_ && !uploader_.joinable()) Launch(uploader_, &Uploader::Run, this);
    // CHECK: :[[@LINE-1]]:43: warning: 'OnData' starts thread member 'uploader_' through 'Launch' without holding 'state_', which 'Shutdown' holds while it joins 'uploader_'
  }

  void Shutdown() {
    state_.lock();
    active_ = false;
    if (uploader_.joinable()) uploader_.join();
    state_.unlock();
  }

  // Negative: handed to a function not seen, with nothing known about it.
  void Report() { Inspect(uploader_); }

 private:
  static void Run(Uploader*) {}
  static void Inspect(std::thread& t);
  std::mutex state_;
  std::atomic<bool> active_{true};
  std::thread uploader_;
};

// A helper whose body gives the thread it is handed a new one is a start;
// one whose body only joins is not.
class Poller;
void Spawn(std::thread& t, Poller* p);
inline void JoinIfRunning(std::thread& t) {
  if (t.joinable()) t.join();
}

class Poller {
 public:
  void Resume() {
    Spawn(poll_, this);
    // CHECK: :[[@LINE-1]]:5: warning: 'Resume' starts thread member 'poll_' through 'Spawn' without holding 'mu_', which 'Pause' holds while it joins 'poll_'
  }
  void Restart() { JoinIfRunning(poll_); }

  void Pause() {
    std::unique_lock<std::mutex> lock(mu_);
    paused_ = true;
    if (poll_.joinable()) poll_.join();
  }
  void Loop() {}

 private:
  std::mutex mu_;
  std::atomic<bool> paused_{false};
  std::thread poll_;
};
inline void Spawn(std::thread& t, Poller* p) { t = std::thread(&Poller::Loop, p); }

// Negative: a project's lock functions hold the mutex on both sides.
inline void Acquire(std::mutex& m) { m.lock(); }
inline void Release(std::mutex& m) { m.unlock(); }

class Sampler {
 public:
  void Start() {
    Acquire(mu_);
    if (!stopped_ && !t_.joinable()) t_ = std::thread([this] { Sample(); });
    Release(mu_);
  }
  void Stop() {
    Acquire(mu_);
    stopped_ = true;
    if (t_.joinable()) t_.join();
    Release(mu_);
  }

 private:
  void Sample() {}
  std::mutex mu_;
  bool stopped_ = false;
  std::thread t_;
};

// A function that takes and releases the mutex itself holds nothing after
// it: the start that follows it is unlocked.
inline void Touch(std::mutex& m) {
  m.lock();
  m.unlock();
}

class Indexer {
 public:
  void Kick() {
    Touch(mu_);
    t_ = std::thread([this] { Index(); });
    // CHECK: :[[@LINE-1]]:5: warning: 'Kick' starts thread member 't_' without holding 'mu_', which 'Stop' holds while it joins 't_'
  }
  void Stop() {
    std::lock_guard<std::mutex> lock(mu_);
    if (t_.joinable()) t_.join();
  }

 private:
  void Index() {}
  std::mutex mu_;
  std::thread t_;
};

// Negative: the stop releases the mutex before it joins: the join is not
// ordered by it, and nothing says the thread object is shared.
class Flusher {
 public:
  void Start() { t_ = std::thread([this] { Flush(); }); }
  void Stop() {
    mu_.lock();
    stop_ = true;
    mu_.unlock();
    if (t_.joinable()) t_.join();
  }

 private:
  void Flush() {}
  std::mutex mu_;
  std::atomic<bool> stop_{false};
  std::thread t_;
};

// Negative: started by a constructor (directly, or by a helper only
// constructors call) and joined under the lock by the destructor: nothing
// else has the object while it is built or destroyed.
class Heartbeat {
 public:
  Heartbeat() { Begin(); }
  ~Heartbeat() {
    std::lock_guard<std::mutex> lock(mu_);
    if (beat_.joinable()) beat_.join();
  }
  void Stop() {
    std::lock_guard<std::mutex> lock(mu_);
    if (beat_.joinable()) beat_.join();
  }

 private:
  void Begin() { beat_ = std::thread([] {}); }
  std::mutex mu_;
  std::thread beat_;
};

// A unique_ptr to a thread, made without the lock Suspend joins it under.
class Streamer {
 public:
  void Play() {
    if (!worker_) worker_ = std::make_unique<std::thread>([this] { Pump(); });
    // CHECK: :[[@LINE-1]]:19: warning: 'Play' starts thread member 'worker_' without holding 'mu_', which 'Suspend' holds while it joins 'worker_'
  }
  void Suspend() {
    std::scoped_lock lock(mu_);
    if (worker_) {
      worker_->join();
      worker_.reset();
    }
  }

 private:
  void Pump() {}
  std::mutex mu_;
  std::unique_ptr<std::thread> worker_;
};

// The lost wake-up: the stop takes the mutex and lets it go again before it
// sets the flag, so the set and the notify fall outside it.
class Ticker {
 public:
  Ticker() : t_([this] { Run(); }) {}
  ~Ticker() {
    std::unique_lock<std::mutex> lock(mu_);
    lock.unlock();
    running_ = false;
    // CHECK: :[[@LINE-1]]:5: warning: '~Ticker' sets stop flag 'running_' without holding 'mu_', the mutex the thread holds while it tests 'running_' and waits on 'cv_'
    cv_.notify_all();
    t_.join();
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (running_) cv_.wait(lock);
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> running_{true};
  std::thread t_;
};
