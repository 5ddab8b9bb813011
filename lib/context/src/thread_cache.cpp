// The threads every task runs on: a cache of idle threads (Java's cached
// thread pool, the way Go's runtime keeps idle Ms), and a queue in front of
// it for when every core is busy with short tasks.
//
// While fewer tasks run than there are cores, Run hands a task to an idle
// thread if there is one and starts a new thread otherwise: a lock, a pointer
// pop and one futex wake, instead of clone + mmap of a stack + the join. The
// most recently idled thread is handed the next task (its stack and caches
// are warm), so surplus threads sit at the far end of the idle list and exit
// after kDefaultIdleTimeout without a task.
//
// Once as many tasks run as there are cores and the threads are draining the
// queue (one took a queued task after its own within the last 2 ms), or no
// thread is idle, a new task waits in the queue (task_queue.hpp: no lock, no
// wake) and a thread that finishes its task takes the next one without
// sleeping: a spawner hands work over without entering the kernel, as Go's
// scheduler does, where a wake per task cost more than the task
// (bench/results/vs-go.md: 5.5x Go's time a task before, 0.24x after). With
// idle threads and every running task in a long computation or in a wait
// outside libtether, a task is handed to an idle thread at once, as before:
// its latency stays what it was (BM_SpawnLatency). A task asleep in a
// libtether wait (TaskGroup::Wait, a Done(), a channel) does not count as
// running (BlockingRegion), so the task it waits for is not queued behind it.
//
// A task still has a thread to itself from its start to its return, and a
// blocking task never keeps another from starting: the monitor gives the
// oldest queued task a thread of its own (an idle one, or a new one) once it
// has waited 100 µs, whatever the running tasks are doing (a lock, a read, a
// sleep), as Go's sysmon hands a P on when a goroutine stays in a system call.
//
// Lifetime: the cache is never destroyed (tasks may run during exit) and its
// threads are detached. Nothing joins a task's thread: a TaskGroup waits for
// its tasks' returns (task.cpp), a detached task is nobody's to wait for.
// From process exit on (AtExit) idle threads no longer time out, so no cached
// thread runs its thread-exit code (TLS destructors) while static objects are
// being destroyed; idle threads sleep on their futex until the process ends.
// After fork() the child has none of the parent's threads: the child handler
// forgets the idle list and the queue (the parent's tasks are not the
// child's), and the child's first task starts a new thread.
#include "thread_cache.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>

#include "futex.hpp"
#include "task_queue.hpp"
#include "tether/internal/blocking.hpp"
#include "tether/trace/scope.h"

namespace tether::detail {
namespace {

constexpr std::chrono::milliseconds kDefaultIdleTimeout{5000};
// How long a queued task may wait for a busy thread before the monitor
// gives it one of its own (SetThreadCacheMaxQueueWait: tests).
constexpr std::chrono::microseconds kDefaultMaxQueueWait{100};

// Set on a cache thread while it runs tasks; t_blocking while one of them
// sleeps in a libtether wait (BlockingRegion).
thread_local bool t_cache_thread = false;
thread_local bool t_blocking = false;

std::int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The cores this process may run on.
std::size_t UsableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// One cached thread. Owned by its thread; lives until the thread exits.
struct Worker {
  // kIdle: on the idle list or claimed, no task yet, awake;
  // kSleeping: the same, asleep on the futex (a hand-over must wake it);
  // kHasTask: task is set (empty: take the queue's tasks).
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
  ThreadCache() : cores_(UsableCores()), queue_(new TaskQueue()) {
    pthread_atfork([] { Get().mu_.lock(); }, [] { Get().mu_.unlock(); },
                   [] { Get().ForgetThreadsInChild(); });
  }

  static ThreadCache& Get() {
    static auto* cache = new ThreadCache();  // never destroyed: tasks may outlive exit
    return *cache;
  }

  // Queues f (ShouldQueue), else hands it to an idle thread or a new one.
  void Run(std::function<void()> f) {
    std::int64_t now = 0;
    if (running_.load(std::memory_order_relaxed) >= cores_ && ShouldQueue(now = SteadyNs()) &&
        queue_->TryPush(f, now)) {
      // Queued, then looks (a read-modify-write, so that it is ordered
      // after the push): a thread that left running_ since looks at the
      // queue after its own write to running_, and the monitor announces
      // its sleep before one, so one of each pair sees the other.
      if (running_.fetch_add(0, std::memory_order_seq_cst) < cores_) ReleaseOrLater();
      WakeMonitor();
      return;
    }
    Worker* w = Claim();
    if (w == nullptr) {
      StartThread(std::move(f));
      return;
    }
    HandOver(w, std::move(f));
  }

  void AtExit() {
    std::lock_guard<FutexLock> lock(mu_);
    at_exit_ = true;
  }

  void SetIdleTimeout(std::chrono::milliseconds timeout) {
    std::lock_guard<FutexLock> lock(mu_);
    idle_timeout_ = timeout;
  }

  // A task on this thread sleeps in a libtether wait: the thread stops
  // counting as running, and a queued task gets its place now.
  void Blocking() {
    if (running_.fetch_sub(1, std::memory_order_seq_cst) - 1 < cores_ && !queue_->Empty()) {
      ReleaseOrLater();
    }
  }
  void Unblocked() { running_.fetch_add(1, std::memory_order_seq_cst); }

  void SetMaxQueueWait(std::chrono::microseconds wait) {
    max_queue_wait_ns_.store(std::chrono::duration_cast<std::chrono::nanoseconds>(wait).count(),
                             std::memory_order_relaxed);
  }

  ThreadCacheStats Stats() {
    std::lock_guard<FutexLock> lock(mu_);
    return ThreadCacheStats{idle_count_.load(std::memory_order_relaxed), started_, expired_,
                            running_.load(std::memory_order_relaxed)};
  }

 private:
  // Every core runs a task: the task waits in the queue when a thread will
  // take it soon, which is when threads are draining the queue (one took a
  // queued task after finishing its own within kDrainingNs), or when no
  // thread is idle (starting one would cost about as long as the queue's
  // bound). Otherwise, with idle threads and every running task in a long
  // computation or a wait outside libtether, an idle thread is woken for it
  // at once, as before the queue: the task does not wait for the bound.
  bool ShouldQueue(std::int64_t now) const {
    return now - last_drain_ns_.load(std::memory_order_relaxed) < kDrainingNs ||
           idle_count_.load(std::memory_order_relaxed) == 0;
  }

  // A thread took a queued task right after finishing its own: the queue is
  // being drained. Written at most every kDrainingNs / 8 by each thread (the
  // line is shared by every thread).
  void NoteDraining() {
    static thread_local std::int64_t noted_ns = 0;
    const std::int64_t now = SteadyNs();
    if (now - noted_ns < kDrainingNs / 8) return;
    noted_ns = now;
    last_drain_ns_.store(now, std::memory_order_relaxed);
  }
  static constexpr std::int64_t kDrainingNs = 2'000'000;  // 2 ms

  // Takes the most recently idled thread off the idle list (null: none);
  // it counts as running from now on.
  Worker* Claim() {
    std::lock_guard<FutexLock> lock(mu_);
    Worker* w = idle_head_;
    if (w != nullptr) {
      Unlink(w);
      w->claimed = true;
      running_.fetch_add(1, std::memory_order_seq_cst);
    }
    return w;
  }

  void HandOver(Worker* w, std::function<void()> f) {
    w->task = std::move(f);
    if (w->state.exchange(Worker::kHasTask, std::memory_order_acq_rel) == Worker::kSleeping) {
      FutexWake(&w->state, 1);
    }
  }

  // Gives the queue one more thread: an idle one, else a new one (which
  // counts as running). May throw std::system_error (no thread).
  void Release() {
    if (Worker* w = Claim()) {
      HandOver(w, nullptr);
    } else {
      StartThread(nullptr);
    }
  }

  // Release, for a task already queued: with no thread to be had now, the
  // monitor gives it one later (the task was accepted: no error to report).
  void ReleaseOrLater() {
    try {
      Release();
    } catch (const std::system_error&) {
    }
  }

  void StartThread(std::function<void()> first) {  // may throw std::system_error
    {
      std::lock_guard<FutexLock> lock(mu_);
      ++started_;
    }
    running_.fetch_add(1, std::memory_order_seq_cst);
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
      running_.fetch_sub(1, std::memory_order_seq_cst);
      std::lock_guard<FutexLock> lock(mu_);
      --started_;
      throw;
    }
    tether_thread_pool_creating(0);
  }

  void Loop(Worker* w) {
    t_cache_thread = true;
    for (;;) {
      std::function<void()> task = std::move(w->task);
      w->task = nullptr;
      // Its task, then the queue's while there are any, without sleeping.
      bool finished_one = false;
      while (task || queue_->TryPop(&task)) {
        if (finished_one) NoteDraining();
        task();
        task = nullptr;  // the task's captures are destroyed before the next starts
        finished_one = true;
      }
      if (!WaitForTask(w)) break;
    }
    delete w;
  }

  // Puts w on the idle list and sleeps until a task is handed over (true) or
  // the idle timeout passes with none (false: the thread exits). A task
  // queued meanwhile is taken at once (true, with no task: the queue's).
  bool WaitForTask(Worker* w) {
    std::chrono::steady_clock::time_point deadline;
    {
      std::lock_guard<FutexLock> lock(mu_);
      w->state.store(Worker::kIdle, std::memory_order_relaxed);
      w->claimed = false;
      PushFront(w);
      deadline = std::chrono::steady_clock::now() + idle_timeout_;
      running_.fetch_sub(1, std::memory_order_seq_cst);
    }
    // Left running_, then looks (Run pushes, then looks at running_): a task
    // queued by a spawner that still saw this thread running is not left
    // waiting for the monitor.
    if (!queue_->Empty()) {
      std::lock_guard<FutexLock> lock(mu_);
      if (!w->claimed) {
        Unlink(w);
        w->claimed = true;
        running_.fetch_add(1, std::memory_order_seq_cst);
        return true;
      }
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

  // The monitor: while tasks are queued, gives the oldest a thread of its
  // own once it has waited MaxQueueWaitNs(); with none queued for a while, it
  // sleeps until Run queues one (WakeMonitor).
  static constexpr std::uint32_t kMonitorAwake = 0, kMonitorAsleep = 1;
  static constexpr int kEmptyLooksBeforeSleep = 8;

  void WakeMonitor() {
    if (!monitor_started_.load(std::memory_order_acquire)) StartMonitor();
    if (monitor_state_.load(std::memory_order_acquire) == kMonitorAsleep &&
        monitor_state_.exchange(kMonitorAwake, std::memory_order_seq_cst) == kMonitorAsleep) {
      FutexWake(&monitor_state_, 1);
    }
  }

  void StartMonitor() {
    std::lock_guard<FutexLock> lock(mu_);
    if (monitor_started_.load(std::memory_order_relaxed)) return;
    tether_thread_pool_creating(1);
    try {
      // tether:detached(the cache's monitor runs for the life of the process, like the cache)
      std::thread([this] { Monitor(); }).detach();
      monitor_started_.store(true, std::memory_order_release);
    } catch (const std::system_error&) {
      // No monitor yet: the next queued task tries again.
    }
    tether_thread_pool_creating(0);
  }

  void Monitor() {
    int empty_looks = 0;
    for (;;) {
      std::int64_t queued_ns = 0;
      if (!queue_->OldestQueuedNs(&queued_ns)) {
        if (++empty_looks < kEmptyLooksBeforeSleep) {
          SleepMonitorUntil(SteadyNs() + MaxQueueWaitNs());
          continue;
        }
        // Announce the sleep, then look once more (Run queues, then looks;
        // both order through a read-modify-write of running_).
        monitor_state_.store(kMonitorAsleep, std::memory_order_seq_cst);
        running_.fetch_add(0, std::memory_order_seq_cst);
        if (queue_->Empty()) {
          while (monitor_state_.load(std::memory_order_seq_cst) == kMonitorAsleep)
            FutexWait(&monitor_state_, kMonitorAsleep);
        }
        monitor_state_.store(kMonitorAwake, std::memory_order_seq_cst);
        empty_looks = 0;
        continue;
      }
      empty_looks = 0;
      const std::int64_t due = queued_ns + MaxQueueWaitNs();
      if (SteadyNs() < due) {
        SleepMonitorUntil(due);
        continue;
      }
      try {
        Release();
      } catch (const std::system_error&) {
        SleepMonitorUntil(SteadyNs() + MaxQueueWaitNs());  // no thread now: later
      }
      // The released thread takes the oldest task; look at the next one
      // once it has had the time to (the same task again is no reason for
      // another thread).
      SleepMonitorUntil(SteadyNs() + std::min(MaxQueueWaitNs() / 8, kMaxMonitorNap));
    }
  }

  // A nap of at most kMaxMonitorNap: it then looks again (the bound may
  // have changed).
  void SleepMonitorUntil(std::int64_t ns) {
    ns = std::min(ns, SteadyNs() + kMaxMonitorNap);
    FutexWaitUntil(&monitor_sleep_, 0,
                   std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns)));
  }

  std::int64_t MaxQueueWaitNs() const { return max_queue_wait_ns_.load(std::memory_order_relaxed); }
  static constexpr std::int64_t kMaxMonitorNap = 1'000'000;  // 1 ms

  void PushFront(Worker* w) {  // caller holds mu_
    w->prev = nullptr;
    w->next = idle_head_;
    if (idle_head_ != nullptr) idle_head_->prev = w;
    idle_head_ = w;
    idle_count_.fetch_add(1, std::memory_order_relaxed);
  }
  void Unlink(Worker* w) {  // caller holds mu_; w is on the idle list
    if (w->prev != nullptr)
      w->prev->next = w->next;
    else
      idle_head_ = w->next;
    if (w->next != nullptr) w->next->prev = w->prev;
    w->prev = w->next = nullptr;
    idle_count_.fetch_sub(1, std::memory_order_relaxed);
  }

  // The fork child handler: the parent's cached threads and its monitor do
  // not exist here (their Worker objects are leaked, a few hundred bytes
  // each), nor are the parent's queued tasks the child's (the queue is
  // leaked, not run nor destroyed). mu_ was locked by the prepare handler on
  // this, the forking, thread.
  void ForgetThreadsInChild() {
    idle_head_ = nullptr;
    idle_count_.store(0, std::memory_order_relaxed);
    // The forking thread, when it is a cache thread, is the child's one
    // running task (its waits leave and re-enter running_).
    running_.store(t_cache_thread && !t_blocking ? 1 : 0, std::memory_order_relaxed);
    queue_ = new TaskQueue();
    monitor_started_.store(false, std::memory_order_relaxed);
    monitor_state_.store(kMonitorAwake, std::memory_order_relaxed);
    mu_.unlock();
  }

  const std::size_t cores_;
  std::atomic<std::int64_t> max_queue_wait_ns_{
      std::chrono::duration_cast<std::chrono::nanoseconds>(kDefaultMaxQueueWait).count()};
  // Threads running a task or claimed for one (not idle).
  std::atomic<std::size_t> running_{0};
  TaskQueue* queue_;  // never freed (replaced in a fork child)
  alignas(64) std::atomic<std::int64_t> last_drain_ns_{0};  // NoteDraining
  alignas(64) std::atomic<bool> monitor_started_{false};
  FutexWord monitor_state_{kMonitorAwake};
  FutexWord monitor_sleep_{0};  // the monitor's timed sleeps (never woken)
  FutexLock mu_;
  Worker* idle_head_ = nullptr;  // guarded by mu_; most recently idled first
  // Written under mu_; read without it by ShouldQueue (a hint).
  std::atomic<std::size_t> idle_count_{0};
  std::uint64_t started_ = 0;  // guarded by mu_; threads started, ever
  std::uint64_t expired_ = 0;  // guarded by mu_; threads exited on the idle timeout
  bool at_exit_ = false;       // guarded by mu_
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

void SetThreadCacheMaxQueueWait(std::chrono::microseconds wait) { Cache().SetMaxQueueWait(wait); }

BlockingRegion::BlockingRegion() : counted_(t_cache_thread && !t_blocking) {
  if (!counted_) return;
  t_blocking = true;
  Cache().Blocking();
}

BlockingRegion::~BlockingRegion() {
  if (!counted_) return;
  Cache().Unblocked();
  t_blocking = false;
}

}  // namespace tether::detail
