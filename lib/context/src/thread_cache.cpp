// The threads every task runs on: a cache of idle threads (Java's cached
// thread pool, the way Go's runtime keeps idle Ms).
//
// A task still has a thread to itself from its start to its return: Run hands
// it to an idle thread if there is one and starts a new thread otherwise, so a
// blocking task never waits for another (no queue, no bound). A thread whose
// task has returned goes idle; the most recently idled thread is handed the
// next task (its stack and caches are warm), so surplus threads sit at the far
// end of the idle list and exit after kDefaultIdleTimeout without a task.
// Handing a task to an idle thread is a lock, a pointer pop and one futex wake,
// instead of clone + mmap of a stack + the join.
//
// Lifetime: the cache is never destroyed (tasks may run during exit) and its
// threads are detached. Nothing joins a task's thread: a TaskGroup waits for
// its tasks' returns (task.cpp), a detached task is nobody's to wait for.
// From process exit on (AtExit) idle threads no longer time out, so no cached
// thread runs its thread-exit code (TLS destructors) while static objects are
// being destroyed; idle threads sleep on their futex until the process ends.
// After fork() the child has none of the parent's threads: the child handler
// forgets the idle list, and the child's first task starts a new thread.
#include "thread_cache.hpp"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>

#include "futex.hpp"
#include "tether/trace/scope.h"

namespace tether::detail {
namespace {

constexpr std::chrono::milliseconds kDefaultIdleTimeout{5000};

// One cached thread. Owned by its thread; lives until the thread exits.
struct Worker {
  // kIdle: on the idle list or claimed, no task yet, awake;
  // kSleeping: the same, asleep on the futex (a hand-over must wake it);
  // kHasTask: task is set.
  static constexpr std::uint32_t kIdle = 0, kSleeping = 1, kHasTask = 2;
  FutexWord state{kIdle};
  std::function<void()> task;  // written by the claimer before kHasTask
  // The idle list (guarded by ThreadCache::mu_).
  Worker* prev = nullptr;
  Worker* next = nullptr;
  bool claimed = false;  // taken off the idle list by Run: a task is coming
};

class ThreadCache {
 public:
  ThreadCache() {
    pthread_atfork([] { Get().mu_.lock(); }, [] { Get().mu_.unlock(); },
                   [] { Get().ForgetThreadsInChild(); });
  }

  static ThreadCache& Get() {
    static auto* cache = new ThreadCache();  // never destroyed: tasks may outlive exit
    return *cache;
  }

  void Run(std::function<void()> f) {
    Worker* w = nullptr;
    {
      std::lock_guard<FutexLock> lock(mu_);
      w = idle_head_;
      if (w != nullptr) {
        Unlink(w);
        w->claimed = true;
      }
    }
    if (w == nullptr) {
      StartThread(std::move(f));
      return;
    }
    w->task = std::move(f);
    if (w->state.exchange(Worker::kHasTask, std::memory_order_acq_rel) == Worker::kSleeping) {
      FutexWake(&w->state, 1);
    }
  }

  void AtExit() {
    std::lock_guard<FutexLock> lock(mu_);
    at_exit_ = true;
  }

  void SetIdleTimeout(std::chrono::milliseconds timeout) {
    std::lock_guard<FutexLock> lock(mu_);
    idle_timeout_ = timeout;
  }

  ThreadCacheStats Stats() {
    std::lock_guard<FutexLock> lock(mu_);
    return ThreadCacheStats{idle_count_, started_, expired_};
  }

 private:
  void StartThread(std::function<void()> first) {  // may throw std::system_error
    {
      std::lock_guard<FutexLock> lock(mu_);
      ++started_;
    }
    auto* w = new Worker();
    w->task = std::move(first);
    // Under `tether trace --threads on` this thread is the cache's, not the
    // program's: its tasks are traced as tasks, and idle it is no leak.
    tether_thread_pool_creating(1);
    try {
      // tether:detached(a cached thread outlives its task; it exits by itself after its idle
      // timeout, and from process exit on sleeps until the process ends: see the file comment)
      std::thread([this, w] { Loop(w); }).detach();
    } catch (...) {
      tether_thread_pool_creating(0);
      delete w;
      std::lock_guard<FutexLock> lock(mu_);
      --started_;
      throw;
    }
    tether_thread_pool_creating(0);
  }

  void Loop(Worker* w) {
    for (;;) {
      {
        std::function<void()> task = std::move(w->task);
        w->task = nullptr;
        task();
      }  // the task's captures are destroyed before the thread takes another task
      if (!WaitForTask(w)) break;
    }
    delete w;
  }

  // Puts w on the idle list and sleeps until a task is handed over (true) or
  // the idle timeout passes with none (false: the thread exits).
  bool WaitForTask(Worker* w) {
    std::chrono::steady_clock::time_point deadline;
    {
      std::lock_guard<FutexLock> lock(mu_);
      w->state.store(Worker::kIdle, std::memory_order_relaxed);
      w->claimed = false;
      PushFront(w);
      deadline = std::chrono::steady_clock::now() + idle_timeout_;
    }
    // No spinning before sleeping: with more runnable threads than cores
    // (the case that matters) a spinning idle thread slows the spawners more
    // than the futex wake it saves (measured: 2000 pauses doubled the cost).
    for (;;) {
      std::uint32_t seen = Worker::kIdle;
      if (!w->state.compare_exchange_strong(seen, Worker::kSleeping, std::memory_order_acquire) &&
          seen == Worker::kHasTask) {
        return true;
      }
      FutexWaitUntil(&w->state, Worker::kSleeping, deadline);
      if (w->state.load(std::memory_order_acquire) == Worker::kHasTask) return true;
      if (std::chrono::steady_clock::now() < deadline) continue;  // spurious wake-up
      std::lock_guard<FutexLock> lock(mu_);
      if (!w->claimed && !at_exit_) {
        Unlink(w);
        ++expired_;
        return false;
      }
      // Claimed (a task is being handed over) or past exit: wait on, at most
      // for another timeout (then look again).
      deadline = std::chrono::steady_clock::now() + idle_timeout_;
    }
  }

  void PushFront(Worker* w) {  // caller holds mu_
    w->prev = nullptr;
    w->next = idle_head_;
    if (idle_head_ != nullptr) idle_head_->prev = w;
    idle_head_ = w;
    ++idle_count_;
  }
  void Unlink(Worker* w) {  // caller holds mu_; w is on the idle list
    if (w->prev != nullptr)
      w->prev->next = w->next;
    else
      idle_head_ = w->next;
    if (w->next != nullptr) w->next->prev = w->prev;
    w->prev = w->next = nullptr;
    --idle_count_;
  }

  // The fork child handler: the parent's cached threads do not exist here
  // (their Worker objects are leaked, a few hundred bytes each). mu_ was
  // locked by the prepare handler on this, the forking, thread.
  void ForgetThreadsInChild() {
    idle_head_ = nullptr;
    idle_count_ = 0;
    mu_.unlock();
  }

  FutexLock mu_;
  Worker* idle_head_ = nullptr;  // guarded by mu_; most recently idled first
  std::size_t idle_count_ = 0;   // guarded by mu_
  std::uint64_t started_ = 0;    // guarded by mu_; threads started, ever
  std::uint64_t expired_ = 0;    // guarded by mu_; threads exited on the idle timeout
  bool at_exit_ = false;         // guarded by mu_
  std::chrono::milliseconds idle_timeout_ = kDefaultIdleTimeout;  // guarded by mu_
};

ThreadCache& Cache() {
  ThreadCache& cache = ThreadCache::Get();
  // Destroyed at exit like any static: from then on idle threads stay asleep.
  struct AtExit {
    ~AtExit() { ThreadCache::Get().AtExit(); }
  };
  static AtExit at_exit;
  return cache;
}

}  // namespace

void RunDetachedThread(std::function<void()> f) { Cache().Run(std::move(f)); }

void SetThreadCacheIdleTimeout(std::chrono::milliseconds timeout) {
  Cache().SetIdleTimeout(timeout);
}

ThreadCacheStats GetThreadCacheStats() { return Cache().Stats(); }

}  // namespace tether::detail
