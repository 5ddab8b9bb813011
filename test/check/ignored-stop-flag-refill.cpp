// REQUIRES: checker
// tether-ignored-stop-flag: a drain that refills itself. After the stop the
// thread's loop goes on while a container still has entries, so that work
// queued before the stop is done; if the loop itself puts entries back into
// that container, an entry it keeps re-queueing holds the thread in the loop
// and the stop's join waits for ever.
// RUN: %check_tether %s tether-ignored-stop-flag %t
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

bool Send(const std::string& message);
bool Ready(int job);
void Run(int job);

// An outbox whose sender re-queues what it failed to send.
class Outbox {
 public:
  Outbox() : sender_([this] { Drain(); }) {}
  ~Outbox() {
    {
      std::lock_guard<std::mutex> g(mu_);
      open_ = false;
    }
    wake_.notify_all();
    sender_.join();
  }

 private:
  void Drain() {
    while (open_ || !queue_.empty()) {
      // CHECK: :[[@LINE-1]]:21: warning: once '~Outbox' sets 'open_', this loop goes on while 'queue_' has entries, and the loop itself puts entries back into 'queue_': an entry it keeps re-queueing holds the thread here and '~Outbox' waits for it; leave the loop once 'open_' is set, or stop re-queueing after it [tether-ignored-stop-flag]
      // CHECK: :[[@LINE+10]]:37: note: the loop puts entries back into 'queue_' here
      // CHECK: :[[@LINE-11]]:7: note: 'open_' is set here
      std::unique_lock<std::mutex> lk(mu_);
      wake_.wait_for(lk, std::chrono::milliseconds(10));
      std::vector<std::string> failed;
      while (!queue_.empty()) {
        std::string m = std::move(queue_.front());
        queue_.pop_front();
        if (!Send(m)) failed.push_back(std::move(m));
      }
      for (std::string& m : failed) queue_.push_back(std::move(m));
    }
  }

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::string> queue_;
  bool open_ = true;
  std::thread sender_;
};

// A counter of live users set to 0 by the stop; the jobs live behind a
// pointer, and a job that is not ready goes back.
class JobRunner {
 public:
  void Start() { worker_ = std::thread(&JobRunner::Loop, this); }
  void Stop() {
    live_ = 0;
    worker_.join();
  }

 private:
  struct State {
    std::mutex mu;
    std::vector<int> pending;
  };
  void Loop() {
    while (live_ != 0 || state_->pending.size() > 0) {
      // CHECK: :[[@LINE-1]]:26: warning: once 'Stop' sets 'live_', this loop goes on while 'pending' has entries{{.*}}[tether-ignored-stop-flag]
      // CHECK: :[[@LINE+9]]:9: note: the loop puts entries back into 'pending' here
      // CHECK: :[[@LINE-13]]:5: note: 'live_' is set here
      std::lock_guard<std::mutex> g(state_->mu);
      if (state_->pending.empty()) continue;
      const int job = state_->pending.back();
      state_->pending.pop_back();
      if (Ready(job))
        Run(job);
      else
        state_->pending.emplace_back(job);
    }
  }

  std::atomic<int> live_{1};
  std::unique_ptr<State> state_ = std::make_unique<State>();
  std::thread worker_;
};

// The fix: the loop leaves once the flag is set, whatever is left.
class OutboxFixed {
 public:
  OutboxFixed() : sender_([this] { Drain(); }) {}
  ~OutboxFixed() {
    {
      std::lock_guard<std::mutex> g(mu_);
      open_ = false;
    }
    wake_.notify_all();
    sender_.join();
  }

 private:
  void Drain() {
    while (open_ || !queue_.empty()) {
      std::unique_lock<std::mutex> lk(mu_);
      wake_.wait_for(lk, std::chrono::milliseconds(10));
      std::vector<std::string> failed;
      while (!queue_.empty()) {
        std::string m = std::move(queue_.front());
        queue_.pop_front();
        if (!Send(m)) failed.push_back(std::move(m));
      }
      for (std::string& m : failed) queue_.push_back(std::move(m));
      if (!open_) break;
    }
  }

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::string> queue_;
  bool open_ = true;
  std::thread sender_;
};

// A drain that only takes: every pass shortens the queue, so it ends.
class Flusher {
 public:
  Flusher() : thread_([this] { Loop(); }) {}
  ~Flusher() {
    running_ = false;
    thread_.join();
  }
  void Post(std::string line) {
    std::lock_guard<std::mutex> g(mu_);
    lines_.push_back(std::move(line));
  }

 private:
  void Loop() {
    while (running_ || !lines_.empty()) {
      std::lock_guard<std::mutex> g(mu_);
      if (lines_.empty()) continue;
      Send(lines_.front());
      lines_.pop_front();
    }
  }

  std::atomic<bool> running_{true};
  std::mutex mu_;
  std::deque<std::string> lines_;
  std::thread thread_;
};

// Both must hold: the stop alone ends the loop.
class Batcher {
 public:
  Batcher() : thread_([this] { Loop(); }) {}
  ~Batcher() {
    running_ = false;
    thread_.join();
  }

 private:
  void Loop() {
    while (running_ && !batch_.empty()) {
      std::lock_guard<std::mutex> g(mu_);
      const int job = batch_.back();
      batch_.pop_back();
      if (!Ready(job)) batch_.push_back(job);
    }
  }

  std::atomic<bool> running_{true};
  std::mutex mu_;
  std::vector<int> batch_;
  std::thread thread_;
};
