// REQUIRES: checker
// tether-unjoined-member-thread: a thread a class owns in a member is
// destroyed joinable (std::terminate) by a throwing constructor, a destructor
// that joins it on some paths only, or a class that never joins it.
// RUN: %check_tether %s tether-unjoined-member-thread %t
#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

void Work();
int Parse(const std::string& s) {
  if (s.empty()) throw std::invalid_argument("empty port");
  return 1;
}

// A pool constructor whose emplace_back throws partway (std::system_error
// when a thread cannot be started): the threads already started are
// destroyed joinable with the vector.
class Pool {
 public:
  explicit Pool(int n) {
    for (int i = 0; i < n; ++i) workers_.emplace_back([this] { Loop(); });
    // CHECK: :[[@LINE-1]]:33: warning: a throw in the constructor of 'Pool' after a thread is put into 'workers_' destroys the threads already in 'workers_' joinable (no destructor runs for a throwing constructor: std::terminate); stop and join them before the exception leaves, or start the threads last [tether-unjoined-member-thread]
    // CHECK: :[[@LINE-2]]:33: note: 'std::vector<std::thread>::emplace_back' may throw here while 'workers_' runs
  }
  ~Pool() {
    for (auto& w : workers_) w.join();
  }

 private:
  void Loop();
  std::vector<std::thread> workers_;
};

// Starts its thread, then parses: a bad port terminates the process. And the
// destructor joins only when running_ is still set.
class Server {
 public:
  explicit Server(const std::string& port) : thread_(&Server::Run, this) {
    // CHECK: :[[@LINE-1]]:46: warning: a throw in the constructor of 'Server' after 'thread_' is started destroys thread member 'thread_' joinable
    port_ = Parse(port);
    // CHECK: :[[@LINE-1]]:13: note: 'Parse' may throw here while 'thread_' runs
  }
  ~Server() {
    // CHECK: :[[@LINE-1]]:3: warning: the destructor of 'Server' joins thread member 'thread_' only while 'running_' says so, and the thread changes 'running_' itself: once it stops on its own the join is skipped and a joinable std::thread is destroyed (std::terminate); join it whenever it is joinable (if (thread_.joinable()) thread_.join();) [tether-unjoined-member-thread]
    if (running_) {
      running_ = false;
      thread_.join();
    }
  }
  // CHECK: :[[@LINE-1]]:3: note: the destructor can end here with 'thread_' still joinable
  // CHECK: :[[@LINE-13]]:46: note: 'thread_' is started here

 private:
  void Run() {
    while (running_) {
      if (!Step()) running_ = false;  // stops on its own
    }
  }
  bool Step();
  std::atomic<bool> running_{true};
  int port_ = 0;
  std::thread thread_;
};

// Started by a method, never joined nor detached by the class.
class Never {
 public:
  void Start() { thread_ = std::thread([] { Work(); }); }
  // CHECK: :[[@LINE-1]]:18: warning: thread member 'thread_' of 'Never' is started here, but its destructor does not join it (nothing joins or detaches it): an object destroyed first (an exception, an early return) destroys a joinable std::thread (std::terminate); join it in the destructor when it is joinable [tether-unjoined-member-thread]

 private:
  std::thread thread_;
};
// CHECK: :[[@LINE-8]]:7: note: 'Never' has no destructor of its own

// Joined only by an explicit join() (real fixes: oatpp's SubmissionProcessor,
// OpenMW's LuaWorker with a std::optional<std::thread>): destroyed first, the
// object destroys a joinable thread.
class Worker {
 public:
  Worker() { thread_.emplace([this] { Run(); }); }
  // CHECK: :[[@LINE-1]]:14: warning: thread member 'thread_' of 'Worker' is started here, but its destructor does not join it (only 'join' joins it)
  void join() {
    if (thread_) thread_->join();
  }

 private:
  void Run() {}
  std::optional<std::thread> thread_;
};
// CHECK: :[[@LINE-12]]:7: note: 'Worker' has no destructor of its own

// A destructor that joins only while a flag the owner set says the thread
// was started: the flag follows the start, not a finding.
class Periodic {
 public:
  explicit Periodic(int interval) {
    if (interval == 0) return;
    active_ = true;
    thread_ = std::thread([this] { Work(); });
  }
  ~Periodic() {
    if (active_) {
      active_ = false;
      thread_.join();
    }
  }

 private:
  std::atomic<bool> active_{false};
  std::thread thread_;
};

// Not findings: the destructor joins through Stop() whenever joinable; a
// unique_ptr owner joined behind a null test; the threads started last in
// the constructor; a class with a method defined in another TU (it may be
// the one that joins); a member handed on.
class Guarded {
 public:
  Guarded() : thread_([this] { Run(); }) {}
  ~Guarded() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Run();
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

class Owner {
 public:
  explicit Owner(const std::string& port) {
    port_ = Parse(port);
    thread_ = std::make_unique<std::thread>(Work);
  }
  ~Owner() {
    if (thread_ && thread_->joinable()) thread_->join();
  }

 private:
  int port_ = 0;
  std::unique_ptr<std::thread> thread_;
};

class Elsewhere {
 public:
  void Start() { thread_ = std::thread(Work); }
  void Join();  // defined in another translation unit

 private:
  std::thread thread_;
};

class HandsOn {
 public:
  void Start() { thread_ = std::thread(Work); }
  std::thread Take() { return std::move(thread_); }

 private:
  std::thread thread_;
};

// A public thread member the class never starts: its users start it through
// another object (IXWebSocket's snake SnakeConnectionState, whose
// subscriptionThread only cleanup() joined). The start is the finding's place.
struct ConnectionState {
  void cleanup() {
    if (subscription.joinable()) subscription.join();
  }
  std::thread subscription;
};

void HandleSubscribe(std::shared_ptr<ConnectionState> state) {
  state->subscription = std::thread([] {});
  // CHECK: :[[@LINE-1]]:3: warning: thread member 'subscription' of 'ConnectionState' is started here, but its destructor does not join it (only 'cleanup' joins it)
  // CHECK: :[[@LINE-10]]:8: note: 'ConnectionState' has no destructor of its own
}

// Negative: the code outside that starts it also joins it.
struct Job {
  std::thread runner;
};

void RunJob(Job& job) {
  job.runner = std::thread([] {});
  job.runner.join();
}
