// REQUIRES: checker
// tether-ignored-stop-flag: a project's own synchronisation layer. The thread
// is started through a launcher that takes a C start routine and `this`; the
// routine is a static method that works through `self`; the flag is the
// project's atomic<bool>; the thread waits through a wrapper bound at
// construction to a condition variable and a lock; an RAII guard releases the
// lock inside the loop; the stop notifies through a function that locks the
// mutex it is given. The waiter's lost wake-up (rule 5) is seen through all of it.
// RUN: %check_tether %s tether-ignored-stop-flag %t

namespace sync {
template <class T>
class atomic {
 public:
  explicit atomic(T v) : v_(v) {}
  atomic& operator=(T v) {
    v_ = v;
    return *this;
  }
  operator T() const { return v_; }

 private:
  T v_;
};
class Mutex {
 public:
  void lock();
  void unlock();
};
class UniqueLock {
 public:
  explicit UniqueLock(Mutex& m) : m_(m) { m_.lock(); }
  ~UniqueLock() { m_.unlock(); }
  void lock() { m_.lock(); }
  void unlock() { m_.unlock(); }

 private:
  Mutex& m_;
};
class Cond {
 public:
  void wait(UniqueLock& lk);
  void notify_one();
  void notify_all();
};
// Frees the mutex for its scope.
class ReleaseGuard {
 public:
  explicit ReleaseGuard(Mutex& m) : m_(m) { m_.unlock(); }
  ~ReleaseGuard() { m_.lock(); }

 private:
  Mutex& m_;
};
// Waits on the condition it was made with, with the lock it was made with.
class Waiter {
 public:
  Waiter(Cond& c, UniqueLock& lk) : cond_(&c), lock_(&lk) {}
  void wait() { cond_->wait(*lock_); }

 private:
  Cond* cond_;
  UniqueLock* lock_;
};
inline void SignalUnder(Cond& c, Mutex& m) {
  UniqueLock lk(m);
  c.notify_all();
}
class Thread {
 public:
  bool joinable() const;
  void join();
};
bool Launch(Thread& t, void* (*routine)(void*), void* arg, const char* name);
}  // namespace sync

void Hand(int n);

// The guard frees the lock for the hand-off; the wait that follows trusts a
// test of closing_ made before it.
class Receiver {
 public:
  void Start() { sync::Launch(thread_, &Receiver::Deliver, this, "deliver"); }
  void Close() {
    closing_ = true;
    sync::SignalUnder(ready_, mu_);
    thread_.join();
  }

 private:
  static void* Deliver(void* arg) {
    Receiver* self = static_cast<Receiver*>(arg);
    sync::UniqueLock lk(self->mu_);
    sync::Waiter waiter(self->ready_, lk);
    while (!self->closing_) {
      if (self->pending_ > 0) {
        sync::ReleaseGuard unlocked(self->mu_);
        Hand(1);
      }
      waiter.wait();
      // CHECK: :[[@LINE-1]]:14: warning: the thread waits on 'ready_' with no predicate, and tests stop flag 'closing_' only outside 'lk'{{.*}}[tether-ignored-stop-flag]
      // CHECK: :[[@LINE-7]]:13: note: 'closing_' is tested here, without 'lk'
      // CHECK: :[[@LINE-6]]:9: note: 'lk' is released here and taken again at the end of the block, after that test
      // CHECK: :[[@LINE-19]]:5: note: 'Close' sets 'closing_' here
    }
    return nullptr;
  }

  sync::atomic<bool> closing_{false};
  sync::Mutex mu_;
  sync::Cond ready_;
  int pending_ = 0;
  sync::Thread thread_;
};

// The fix: closing_ is tested again once the lock is back.
class ReceiverFixed {
 public:
  void Start() { sync::Launch(thread_, &ReceiverFixed::Deliver, this, "deliver"); }
  void Close() {
    closing_ = true;
    sync::SignalUnder(ready_, mu_);
    thread_.join();
  }

 private:
  static void* Deliver(void* arg) {
    ReceiverFixed* self = static_cast<ReceiverFixed*>(arg);
    sync::UniqueLock lk(self->mu_);
    sync::Waiter waiter(self->ready_, lk);
    while (!self->closing_) {
      if (self->pending_ > 0) {
        sync::ReleaseGuard unlocked(self->mu_);
        Hand(1);
      }
      if (self->closing_) break;
      waiter.wait();
    }
    return nullptr;
  }

  sync::atomic<bool> closing_{false};
  sync::Mutex mu_;
  sync::Cond ready_;
  int pending_ = 0;
  sync::Thread thread_;
};

// The lock is held from the test at the top of the loop to the wait: the
// stop, which notifies under it, cannot fall in between.
class ReceiverHeld {
 public:
  void Start() { sync::Launch(thread_, &ReceiverHeld::Deliver, this, "deliver"); }
  void Close() {
    closing_ = true;
    sync::SignalUnder(ready_, mu_);
    thread_.join();
  }

 private:
  static void* Deliver(void* arg) {
    ReceiverHeld* self = static_cast<ReceiverHeld*>(arg);
    sync::UniqueLock lk(self->mu_);
    sync::Waiter waiter(self->ready_, lk);
    while (!self->closing_) {
      if (self->pending_ > 0) Hand(self->pending_);
      waiter.wait();
    }
    return nullptr;
  }

  sync::atomic<bool> closing_{false};
  sync::Mutex mu_;
  sync::Cond ready_;
  int pending_ = 0;
  sync::Thread thread_;
};
