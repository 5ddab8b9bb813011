// REQUIRES: checker
// tether-ignored-stop-flag on threads and condition variables that are not
// std's: pthread_create with a start routine that calls a method on its
// argument, a project's own mutex and condition-variable classes (a wait
// that takes the mutex), a wait given the mutex member itself, an override
// of the virtual method a base's thread runs, a timeout that may be INT_MAX.
// RUN: %check_tether %s tether-ignored-stop-flag %t
#include <atomic>
#include <climits>
#include <condition_variable>
#include <mutex>

#include <pthread.h>

// A project's own primitives over pthreads.
class Lock {
 public:
  Lock() { pthread_mutex_init(&m_, nullptr); }
  ~Lock() { pthread_mutex_destroy(&m_); }
  void lock() { pthread_mutex_lock(&m_); }
  void unlock() { pthread_mutex_unlock(&m_); }

 private:
  friend class Signal;
  pthread_mutex_t m_;
};

class Signal {
 public:
  Signal() { pthread_cond_init(&c_, nullptr); }
  ~Signal() { pthread_cond_destroy(&c_); }
  void wait(Lock& l) { pthread_cond_wait(&c_, &l.m_); }
  void wait_for(Lock& l, int ms);
  void broadcast() { pthread_cond_broadcast(&c_); }

 private:
  pthread_cond_t c_;
};

// An event remembers that it was set: a wait after the set returns at once,
// so no wake-up is lost. It is not a condition variable.
class Event {
 public:
  void wait();
  void set();
};

// The thread tests quit_ before it takes lock_, and waits without testing it
// again: a stop between the test and the wait is lost.
class Poller {
 public:
  Poller() { pthread_create(&tid_, nullptr, &Poller::Entry, this); }
  ~Poller() {
    quit_ = true;
    lock_.lock();
    signal_.broadcast();
    lock_.unlock();
    pthread_join(tid_, nullptr);
  }

 private:
  static void* Entry(void* self) {
    static_cast<Poller*>(self)->Loop();
    return nullptr;
  }
  void Loop() {
    while (!quit_) {
      lock_.lock();
      if (idle_) signal_.wait(lock_);
      // CHECK: :[[@LINE-1]]:26: warning: the thread waits on 'signal_' with no predicate, and tests stop flag 'quit_' only outside 'lock_': a stop that sets 'quit_' and notifies before this wait is lost, and the thread sleeps through it (its join hangs); wait with a predicate that tests 'quit_' [tether-ignored-stop-flag]
      // CHECK: :[[@LINE-4]]:13: note: 'quit_' is tested here, without 'lock_'
      // CHECK: :[[@LINE-18]]:5: note: '~Poller' sets 'quit_' here
      lock_.unlock();
    }
  }

  pthread_t tid_;
  Lock lock_;
  Signal signal_;
  bool idle_ = true;
  volatile bool quit_ = false;
};

// The same loop, testing quit_ again under lock_ before it sleeps.
class CheckedPoller {
 public:
  CheckedPoller() { pthread_create(&tid_, nullptr, &CheckedPoller::Entry, this); }
  ~CheckedPoller() {
    quit_ = true;
    lock_.lock();
    signal_.broadcast();
    lock_.unlock();
    pthread_join(tid_, nullptr);
  }

 private:
  static void* Entry(void* self) {
    CheckedPoller* p = static_cast<CheckedPoller*>(self);
    p->Loop();
    return nullptr;
  }
  void Loop() {
    while (!quit_) {
      lock_.lock();
      if (idle_ && !quit_) signal_.wait(lock_);
      lock_.unlock();
    }
  }

  pthread_t tid_;
  Lock lock_;
  Signal signal_;
  bool idle_ = true;
  volatile bool quit_ = false;
};

// A base starts its thread on a virtual method and stops it in its
// destructor; the override's timed wait may wait INT_MAX milliseconds.
extern "C" long RunWorker(class Worker* w);

class Worker {
 public:
  Worker() { pthread_create(&tid_, nullptr, (void* (*)(void*))RunWorker, this); }
  virtual ~Worker() {
    stopping_ = true;
    mu_.lock();
    wake_.broadcast();
    mu_.unlock();
    pthread_join(tid_, nullptr);
  }
  virtual void Run();

 protected:
  Lock mu_;
  Signal wake_;
  volatile bool stopping_ = false;

 private:
  pthread_t tid_;
};

extern "C" long RunWorker(Worker* w) {
  w->Run();
  return 0;
}

class Ticker : public Worker {
 public:
  void Run() override {
    while (!stopping_) {
      mu_.lock();
      wake_.wait_for(mu_, period_ms_ ? period_ms_ : INT_MAX);
      // CHECK: :[[@LINE-1]]:13: warning: the thread waits on 'wake_' with no predicate, and tests stop flag 'stopping_' only outside 'mu_': a stop that sets 'stopping_' and notifies before this wait is lost, and the thread sleeps through it (its join hangs); wait with a predicate that tests 'stopping_' [tether-ignored-stop-flag]
      // CHECK: :[[@LINE-4]]:13: note: 'stopping_' is tested here, without 'mu_'
      // CHECK: :[[@LINE-30]]:5: note: '~Worker' sets 'stopping_' here
      mu_.unlock();
      Tick();
    }
  }
  void Tick();

 private:
  int period_ms_ = 0;
};

// Its timeout is always bounded: it wakes up by itself within 50 ms.
class Pulse : public Worker {
 public:
  void Run() override {
    while (!stopping_) {
      mu_.lock();
      wake_.wait_for(mu_, 50);
      mu_.unlock();
    }
  }
};

// condition_variable_any given the mutex member itself.
class Drainer {
 public:
  Drainer() { pthread_create(&tid_, nullptr, &Drainer::Entry, this); }
  ~Drainer() {
    {
      std::lock_guard<std::mutex> g(mu_);
      done_ = true;
    }
    cv_.notify_all();
    pthread_join(tid_, nullptr);
  }

 private:
  static void* Entry(void* self) {
    reinterpret_cast<Drainer*>(self)->Drain();
    return nullptr;
  }
  void Drain() {
    for (;;) {
      if (done_) return;
      mu_.lock();
      cv_.wait(mu_);
      // CHECK: :[[@LINE-1]]:11: warning: the thread waits on 'cv_' with no predicate, and tests stop flag 'done_' only outside 'mu_'
      mu_.unlock();
    }
  }

  pthread_t tid_;
  std::mutex mu_;
  std::condition_variable_any cv_;
  bool done_ = false;
};

// An event's wait is not a lost wake-up: the set is remembered.
class Waiter {
 public:
  Waiter() { pthread_create(&tid_, nullptr, &Waiter::Entry, this); }
  ~Waiter() {
    quit_ = true;
    ready_.set();
    pthread_join(tid_, nullptr);
  }

 private:
  static void* Entry(void* self) {
    static_cast<Waiter*>(self)->Loop();
    return nullptr;
  }
  void Loop() {
    while (!quit_) {
      lock_.lock();
      lock_.unlock();
      ready_.wait();
    }
  }

  pthread_t tid_;
  Lock lock_;
  Event ready_;
  volatile bool quit_ = false;
};

// pthreads' own condition variable, called directly. The stop never
// signals it: the thread sleeps through the stop.
class Spooler {
 public:
  Spooler() { pthread_create(&tid_, nullptr, &Spooler::Entry, this); }
  ~Spooler() {
    pthread_mutex_lock(&mu_);
    stop_ = true;
    // CHECK: :[[@LINE-1]]:5: warning: '~Spooler' sets stop flag 'stop_' but never notifies 'ready_', which the thread waits on: the thread sleeps through the stop and its join hangs; call pthread_cond_broadcast(&ready_) after setting 'stop_' [tether-ignored-stop-flag]
    pthread_mutex_unlock(&mu_);
    pthread_join(tid_, nullptr);
  }

 private:
  static void* Entry(void* self) {
    static_cast<Spooler*>(self)->Run();
    return nullptr;
  }
  void Run() {
    pthread_mutex_lock(&mu_);
    while (!stop_) pthread_cond_wait(&ready_, &mu_);
    pthread_mutex_unlock(&mu_);
  }

  pthread_t tid_;
  pthread_mutex_t mu_ = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t ready_ = PTHREAD_COND_INITIALIZER;
  bool stop_ = false;
};

// It signals, but sets the flag without the mutex the thread tests it under.
class LooseSpooler {
 public:
  LooseSpooler() { pthread_create(&tid_, nullptr, &LooseSpooler::Entry, this); }
  ~LooseSpooler() {
    stop_ = true;
    // CHECK: :[[@LINE-1]]:5: warning: '~LooseSpooler' sets stop flag 'stop_' without holding 'mu_', the mutex the thread holds while it tests 'stop_' and waits on 'ready_'
    pthread_cond_broadcast(&ready_);
    pthread_join(tid_, nullptr);
  }

 private:
  static void* Entry(void* self) {
    static_cast<LooseSpooler*>(self)->Run();
    return nullptr;
  }
  void Run() {
    pthread_mutex_lock(&mu_);
    while (!stop_) pthread_cond_wait(&ready_, &mu_);
    pthread_mutex_unlock(&mu_);
  }

  pthread_t tid_;
  pthread_mutex_t mu_ = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t ready_ = PTHREAD_COND_INITIALIZER;
  std::atomic<bool> stop_{false};
};

// Sets the flag under the mutex and signals: correct.
class TidySpooler {
 public:
  TidySpooler() { pthread_create(&tid_, nullptr, &TidySpooler::Entry, this); }
  ~TidySpooler() {
    pthread_mutex_lock(&mu_);
    stop_ = true;
    pthread_cond_broadcast(&ready_);
    pthread_mutex_unlock(&mu_);
    pthread_join(tid_, nullptr);
  }

 private:
  static void* Entry(void* self) {
    static_cast<TidySpooler*>(self)->Run();
    return nullptr;
  }
  void Run() {
    pthread_mutex_lock(&mu_);
    while (!stop_) pthread_cond_wait(&ready_, &mu_);
    pthread_mutex_unlock(&mu_);
  }

  pthread_t tid_;
  pthread_mutex_t mu_ = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t ready_ = PTHREAD_COND_INITIALIZER;
  bool stop_ = false;
};

// A C-style entry that does the work itself through `self`, the object cast
// from its void* argument: its members are the object's. The stop sets the
// flag but never wakes the thread.
class Pump {
 public:
  Pump() { pthread_create(&tid_, nullptr, &Pump::Main, this); }
  ~Pump() {
    std::lock_guard<std::mutex> g(mu_);
    halt_ = true;
    // CHECK: :[[@LINE-1]]:5: warning: '~Pump' sets stop flag 'halt_' but never notifies 'ready_', which the thread waits on: the thread sleeps through the stop and its join hangs; call ready_.notify_all() after setting 'halt_' [tether-ignored-stop-flag]
    // CHECK: :[[@LINE+9]]:20: note: the thread waits on 'ready_' here
  }
  void Join() { pthread_join(tid_, nullptr); }

 private:
  static void* Main(void* arg) {
    Pump* self = static_cast<Pump*>(arg);
    std::unique_lock<std::mutex> lk(self->mu_);
    while (!self->halt_) {
      self->ready_.wait(lk, [self] { return self->halt_ || self->items_ > 0; });
      if (self->items_ > 0) --self->items_;
    }
    return nullptr;
  }

  pthread_t tid_;
  std::mutex mu_;
  std::condition_variable ready_;
  int items_ = 0;
  bool halt_ = false;
};
