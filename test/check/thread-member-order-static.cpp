// REQUIRES: checker
// tether-thread-member-order, one level up: an object with static storage
// duration whose threads only its destructor joins. It is destroyed after
// main returns, with the other static objects, in an unspecified order.
// RUN: %check_tether %s tether-thread-member-order %t -- -- -std=c++20
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>

std::string log_prefix = "app: ";  // a static object the threads use

// A std::thread member, joined only by the destructor.
class Flusher {
 public:
  Flusher() : thread_([this] { Run(); }) {}
  ~Flusher() {
    // CHECK: :[[@LINE-1]]:3: warning: only the destructor of 'Flusher' joins its threads, and 'flusher' has static storage duration: it is destroyed after main returns, with the other static objects, in an order across files that is unspecified, so its threads may run on while objects they use are destroyed; give 'Flusher' a stop that joins them and call it before main returns [tether-thread-member-order]
    // CHECK: :[[@LINE+12]]:9: note: 'flusher' is defined here
    done_ = true;
    thread_.join();
  }

 private:
  void Run() {
    while (!done_) log_prefix.size();
  }
  std::atomic<bool> done_{false};
  std::thread thread_;
};
Flusher flusher;

// pthreads, owned through pointers: the pool's destructor deletes workers
// whose destructors join.
class Worker {
 public:
  Worker() { pthread_create(&tid_, nullptr, &Worker::Entry, this); }
  ~Worker() {
    quit_ = true;
    pthread_join(tid_, nullptr);
  }

 private:
  static void* Entry(void* self) {
    while (!static_cast<Worker*>(self)->quit_) {
    }
    return nullptr;
  }
  pthread_t tid_;
  std::atomic<bool> quit_{false};
};

// Shrink joins some of them, never the watchdog: it is no stop.
class Crew {
 public:
  void Hire() { crew_.push_back(new Worker); }
  void Shrink(std::size_t n) {
    while (crew_.size() > n && crew_.size() > 1) {
      delete crew_.back();
      crew_.pop_back();
    }
  }
  ~Crew() {
    // CHECK: :[[@LINE-1]]:3: warning: only the destructor of 'Crew' joins its threads, and 'crew' has static storage duration
    for (Worker* w : crew_) delete w;
    delete watchdog_;
  }

 private:
  std::vector<Worker*> crew_;
  Worker* watchdog_ = new Worker;
};
static Crew crew;

// A function-local static is destroyed after main returns too.
class Sink {
 public:
  Sink() : thread_([this] { Run(); }) {}
  ~Sink() {
    // CHECK: :[[@LINE-1]]:3: warning: only the destructor of 'Sink' joins its threads, and 'sink' has static storage duration
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Run() {
    while (!stop_) {
    }
  }
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

Sink& TheSink() {
  static Sink sink;
  return sink;
}

// A stop the program can call before main returns: the destructor's join is
// only a fallback.
class Stoppable {
 public:
  Stoppable() : thread_([this] { Run(); }) {}
  ~Stoppable() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Run() {
    while (!stop_) {
    }
  }
  std::atomic<bool> stop_{false};
  std::thread thread_;
};
Stoppable stoppable;

// Its other methods are defined elsewhere: one of them may stop it.
class Elsewhere {
 public:
  Elsewhere() : thread_([this] { Run(); }) {}
  ~Elsewhere() {
    stop_ = true;
    thread_.join();
  }
  void Shutdown();

 private:
  void Run() {
    while (!stop_) {
    }
  }
  std::atomic<bool> stop_{false};
  std::thread thread_;
};
Elsewhere elsewhere;

// Never static: a local is destroyed when its function returns, a
// thread_local when its thread exits, both before main returns.
class Scoped {
 public:
  Scoped() : thread_([this] { Run(); }) {}
  ~Scoped() {
    stop_ = true;
    thread_.join();
  }

 private:
  void Run() {
    while (!stop_) {
    }
  }
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

void Local() { Scoped scoped; }
thread_local Scoped per_thread;
