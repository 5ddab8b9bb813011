// REQUIRES: checker
// tether-thread-member-order: a member that joins its threads only when it is
// destroyed must be declared after the members those threads use.
// RUN: %check_tether %s tether-thread-member-order %t -- -- -std=c++20
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
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

// A project's task pool: its destructor joins its workers through join(),
// which joins each thread of a member vector. Tasks are handed to add().
class TaskPool {
 public:
  explicit TaskPool(int n) {
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { Run(); });
  }
  ~TaskPool() { join(); }
  void add(std::function<void()> task) {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
  }
  void join() {
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 private:
  void Run() {}
  std::mutex mu_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> threads_;
};

// A reader whose tasks use its pimpl; the pool lives in the pimpl before the
// queue and mutex the tasks use, and only finish() joins it: a reader
// destroyed without finish() destroys them under the running tasks.
class Decoder {
 public:
  Decoder();
  ~Decoder();
  void Submit(int block);
  void Finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

struct Decoder::State {
  TaskPool pool{4};
  std::mutex mu;
  std::condition_variable ready;
  std::deque<int> blocks;
};

Decoder::Decoder() : state_(new State) {}
Decoder::~Decoder() {}
// CHECK: :[[@LINE-1]]:10: warning: the destructor of 'Decoder' does not stop 'state_->pool', which joins its threads only when it is destroyed: 'state_->mu', 'state_->ready' and 'state_->blocks', which its tasks use, are destroyed before it (members go in reverse order of declaration), while the tasks may still run; stop 'state_->pool' first in the destructor, as 'Finish' does [tether-thread-member-order]
// CHECK: :[[@LINE+5]]:46: note: a task uses 'state_->mu' here
// CHECK: :[[@LINE-10]]:12: note: 'pool' is declared here, before 'mu'

void Decoder::Submit(int block) {
  state_->pool.add([this, block] {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->blocks.push_back(block);
    state_->ready.notify_one();
  });
}
void Decoder::Finish() { state_->pool.join(); }

// The same pool held by unique_ptr in the pimpl, and a fixed destructor:
// it stops the pool before any member goes.
class FixedDecoder {
 public:
  FixedDecoder();
  ~FixedDecoder();
  void Submit(int block);

 private:
  struct State {
    std::unique_ptr<TaskPool> pool;
    std::mutex mu;
    std::deque<int> blocks;
  };
  std::unique_ptr<State> state_;
};

FixedDecoder::FixedDecoder() : state_(new State) { state_->pool.reset(new TaskPool(2)); }
FixedDecoder::~FixedDecoder() { state_->pool->join(); }
void FixedDecoder::Submit(int block) {
  state_->pool->add([this, block] {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->blocks.push_back(block);
  });
}

// The pool declared last in the pimpl, and nothing of the reader itself
// declared after the pimpl: the pool is destroyed (and joins) first.
class PoolLast {
 public:
  PoolLast();
  ~PoolLast();
  void Submit();

 private:
  struct State {
    std::mutex mu;
    std::deque<int> blocks;
    TaskPool pool{2};
  };
  std::unique_ptr<State> state_;
};

PoolLast::PoolLast() : state_(new State) {}
PoolLast::~PoolLast() {}
void PoolLast::Submit() {
  state_->pool.add([this] {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->blocks.push_back(1);
  });
}

// A pool member of the class itself, tasks added from a method: the order
// is the class's own, reported at the declaration.
class Indexer {
 public:
  void Add(int doc) {
    pool_.add([this, doc] {
      std::lock_guard<std::mutex> lock(mu_);
      docs_.push_back(doc);
    });
  }

 private:
  TaskPool pool_{2};
  // CHECK: :[[@LINE-1]]:12: warning: 'pool_' joins its threads only when it is destroyed, but it is declared before 'mu_' and 'docs_', which the threads use
  std::mutex mu_;
  std::deque<int> docs_;
};

// The pimpl's own destructor stops its pool first (g3log's LogWorkerImpl
// resets its background worker): its members outlive the pool's threads.
class Sink {
 public:
  Sink();
  ~Sink();
  void Write(int line);

 private:
  struct Impl {
    ~Impl() { pool.reset(); }
    std::unique_ptr<TaskPool> pool;
    std::mutex mu;
    std::deque<int> lines;
  };
  std::unique_ptr<Impl> impl_;
};

Sink::Sink() : impl_(new Impl) { impl_->pool.reset(new TaskPool(1)); }
Sink::~Sink() {}
void Sink::Write(int line) {
  impl_->pool->add([this, line] {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->lines.push_back(line);
  });
}

// The destructor hands the pimpl's pool a task that uses the pimpl and
// returns: the pool drains its queue while the pimpl is being destroyed
// (g3log's ~LogWorker sent a sink-clearing task to its background worker).
class Journal {
 public:
  Journal();
  ~Journal();

 private:
  struct Impl {
    ~Impl() { pool.reset(); }
    std::unique_ptr<TaskPool> pool;
    std::deque<int> entries;
  };
  std::unique_ptr<Impl> impl_;
};

Journal::Journal() : impl_(new Impl) { impl_->pool.reset(new TaskPool(1)); }
Journal::~Journal() {
  impl_->pool->add([this] { impl_->entries.clear(); });
  // CHECK: :[[@LINE-1]]:16: warning: the destructor of 'Journal' hands 'impl_->pool' a task that uses 'impl_' and returns without waiting for it: the task runs on the pool's thread while 'impl_', whose destruction stops 'impl_->pool', is being destroyed; wait for the task (or stop 'impl_->pool') before the destructor returns [tether-thread-member-order]
  // CHECK: :[[@LINE-2]]:29: note: the task uses 'impl_' here
}

// The same hand-off, then the destructor joins the pool: the task has run
// before the destructor returns.
class WaitingJournal {
 public:
  WaitingJournal();
  ~WaitingJournal();

 private:
  struct Impl {
    std::unique_ptr<TaskPool> pool;
    std::deque<int> entries;
  };
  std::unique_ptr<Impl> impl_;
};

WaitingJournal::WaitingJournal() : impl_(new Impl) { impl_->pool.reset(new TaskPool(1)); }
WaitingJournal::~WaitingJournal() {
  impl_->pool->add([this] { impl_->entries.clear(); });
  impl_->pool->join();
}

// A pool the class does not own: the task may run after the object is gone.
// A task that uses nothing of the object is fine.
class Uploader {
 public:
  explicit Uploader(TaskPool* pool) : pool_(pool) {}
  ~Uploader() {
    pool_->add([] {});
    pool_->add([this] { ++sent_; });
    // CHECK: :[[@LINE-1]]:12: warning: the destructor of 'Uploader' hands 'pool_' a task that uses 'sent_' and returns without waiting for it: the task runs on the pool's thread after the object is gone ('pool_' is not the object's to stop); wait for the task (or stop 'pool_') before the destructor returns [tether-thread-member-order]
    // CHECK: :[[@LINE-2]]:27: note: the task uses 'sent_' here
  }

 private:
  TaskPool* pool_;
  int sent_ = 0;
};

// The pool is declared last, so it is destroyed (and drains its queue) first,
// while the members the destructor's task uses are still alive.
class FlushOnClose {
 public:
  FlushOnClose() : pool_(1) {}
  ~FlushOnClose() {
    pool_.add([this] { buffered_.clear(); });
  }

 private:
  std::deque<int> buffered_;
  TaskPool pool_;
};
// CHECK-NOT: warning: the destructor of 'WaitingJournal'
// CHECK-NOT: warning: the destructor of 'FlushOnClose'
