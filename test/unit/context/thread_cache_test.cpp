// The thread cache tasks run on (lib/context/src/thread_cache.cpp): a task
// reuses an idle thread, a blocking task never keeps another from starting,
// idle threads exit after their timeout, nothing of one task leaks into the
// next on the same thread, and a fork child can start tasks.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <latch>
#include <memory>
#include <thread>

#include "tether/scope.hpp"
#include "tether/task.hpp"
#include "thread_cache.hpp"

namespace tether {
namespace {

// How many tasks the calling thread has run (a new thread starts at 0).
thread_local int t_tasks_on_this_thread = 0;

TEST(ThreadCache, ASequentialTaskReusesTheIdleThread) {
  int most = 0;
  for (int i = 0; i < 20; ++i) {
    auto [group, gctx] = TaskGroup::WithContext(Background());
    int seen = 0;
    group.Go([&seen] { seen = ++t_tasks_on_this_thread; });
    ASSERT_TRUE(group.Wait().ok());
    most = std::max(most, seen);
  }
  // One thread per task would show 1 every time.
  EXPECT_GT(most, 1);
}

TEST(ThreadCache, DetachedGoReusesTheIdleThread) {
  int most = 0;
  for (int i = 0; i < 20; ++i) {
    std::atomic<int> seen{0};
    // tether:detached(the test waits for the task's own signal)
    Go(Background(), [&seen] { seen.store(++t_tasks_on_this_thread); });
    while (seen.load() == 0) std::this_thread::yield();
    most = std::max(most, seen.load());
    // Let the thread go idle before the next spawn (or a second thread starts).
    while (detail::GetThreadCacheStats().idle == 0) std::this_thread::yield();
  }
  EXPECT_GT(most, 1);
}

TEST(ThreadCache, ABlockingTaskNeverStarvesAnother) {
  // Every task waits until all have started: only one thread per task lets
  // this finish (a bounded pool would hang until the ctest timeout).
  constexpr int kTasks = 64;
  std::latch all_started(kTasks);
  auto [group, gctx] = TaskGroup::WithContext(Background());
  for (int i = 0; i < kTasks; ++i) group.Go([&] { all_started.arrive_and_wait(); });
  EXPECT_TRUE(group.Wait().ok());
}

// Restores the queue's bound when a test that changed it ends.
struct MaxQueueWait {
  explicit MaxQueueWait(std::chrono::microseconds wait) {
    detail::SetThreadCacheMaxQueueWait(wait);
  }
  ~MaxQueueWait() { detail::SetThreadCacheMaxQueueWait(std::chrono::microseconds(100)); }
};

// Every core busy with a task that blocks outside libtether (a latch): the
// tasks queued behind them are given threads of their own by the monitor,
// so all of them start (the test above, with many more tasks than cores).
// Here tasks that libtether sees sleeping (a TaskGroup::Wait inside a
// task, nested deeper than there are cores) free their place for the tasks
// they wait for at once: with the monitor's bound an hour, only that lets
// this finish.
TEST(ThreadCache, ATaskWaitingInLibtetherFreesItsPlace) {
  MaxQueueWait hour(std::chrono::hours(1));
  std::function<int(int)> nest = [&](int depth) -> int {
    if (depth == 0) return 1;
    auto [group, gctx] = TaskGroup::WithContext(Background());
    std::atomic<int> below{0};
    for (int i = 0; i < 2; ++i) group.Go([&] { below += nest(depth - 1); });
    EXPECT_TRUE(group.Wait().ok());
    return below.load();
  };
  int leaves = 0;
  auto [group, gctx] = TaskGroup::WithContext(Background());
  group.Go([&] { leaves = nest(6); });
  ASSERT_TRUE(group.Wait().ok());
  EXPECT_EQ(leaves, 64);
}

// A task queued while every thread runs is taken by the first thread that
// finishes, with no monitor to fall back on: the thread that goes idle looks
// at the queue after it stops counting as running, and the spawner after it
// queued, so neither misses the other (a lost hand-over hangs here).
TEST(ThreadCache, AQueuedTaskIsTakenByAThreadThatFinishes) {
  MaxQueueWait hour(std::chrono::hours(1));
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (int round = 0; round < 200; ++round) {
    std::atomic<bool> go{false};
    auto [busy, bctx] = TaskGroup::WithContext(Background());
    for (unsigned i = 0; i < cores; ++i) {
      busy.Go([&] {
        while (!go.load()) std::this_thread::yield();
      });
    }
    std::atomic<bool> ran{false};
    auto [queued, qctx] = TaskGroup::WithContext(Background());
    queued.Go([&] { ran = true; });
    go = true;  // the busy tasks end as the last one is queued (or before)
    ASSERT_TRUE(queued.Wait().ok());
    ASSERT_TRUE(busy.Wait().ok());
    EXPECT_TRUE(ran.load());
  }
}

TEST(ThreadCache, CapturesAreDestroyedBeforeWaitReturns) {
  auto shared = std::make_shared<int>(7);
  {
    auto [group, gctx] = TaskGroup::WithContext(Background());
    for (int i = 0; i < 8; ++i) group.Go([shared] { EXPECT_EQ(*shared, 7); });
    ASSERT_TRUE(group.Wait().ok());
    EXPECT_EQ(shared.use_count(), 1);
  }
}

TEST(ThreadCache, IdleThreadsExitAfterTheirTimeout) {
  detail::SetThreadCacheIdleTimeout(std::chrono::milliseconds(20));
  const std::uint64_t expired_before = detail::GetThreadCacheStats().expired;
  constexpr int kTasks = 8;
  std::latch all_started(kTasks);
  auto [group, gctx] = TaskGroup::WithContext(Background());
  for (int i = 0; i < kTasks; ++i) group.Go([&] { all_started.arrive_and_wait(); });
  ASSERT_TRUE(group.Wait().ok());
  // No timing assertion: wait (up to the ctest timeout) for all of them to go.
  while (detail::GetThreadCacheStats().idle != 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GE(detail::GetThreadCacheStats().expired - expired_before, std::uint64_t{kTasks});
  // And a task after that starts a new thread.
  auto [again, actx] = TaskGroup::WithContext(Background());
  std::atomic<bool> ran{false};
  again.Go([&] { ran = true; });
  EXPECT_TRUE(again.Wait().ok());
  EXPECT_TRUE(ran.load());
  detail::SetThreadCacheIdleTimeout(std::chrono::milliseconds(5000));
}

TEST(ThreadCache, AnAfterFuncAfterAScopedTaskSeesNoScope) {
  Scope scope(Background(), "scoped");
  {
    auto [group, gctx] = TaskGroup::WithContext(scope.context());
    std::uint64_t in_task = 0;
    group.Go([&] { in_task = CurrentScopeId(); });
    ASSERT_TRUE(group.Wait().ok());
    ASSERT_EQ(in_task, scope.id());
  }
  // The callback runs on a cached thread, likely the one the task ran on.
  auto [ctx, cancel] = WithCancel(Background());
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> seen{~0ull};
  AfterFunc(ctx, [&] {
    seen = CurrentScopeId();
    done = true;
  });
  cancel();
  while (!done.load()) std::this_thread::yield();
  EXPECT_EQ(seen.load(), 0u);
}

#if defined(__SANITIZE_THREAD__)
#define TETHER_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TETHER_UNDER_TSAN 1
#endif
#endif

TEST(ThreadCache, AForkChildStartsTasks) {
#ifdef TETHER_UNDER_TSAN
  GTEST_SKIP()
      << "ThreadSanitizer does not support threads in a multi-threaded process's fork child";
#else
  // Leave idle threads behind in the parent: the child has none of them.
  {
    auto [group, gctx] = TaskGroup::WithContext(Background());
    for (int i = 0; i < 4; ++i) group.Go([] {});
    ASSERT_TRUE(group.Wait().ok());
  }
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto [group, gctx] = TaskGroup::WithContext(Background());
    std::atomic<int> ran{0};
    for (int i = 0; i < 4; ++i) group.Go([&] { ran.fetch_add(1); });
    bool ok = group.Wait().ok() && ran.load() == 4;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
#endif
}

// A task that forks: in the child its thread is the one running task (the
// parent's other threads and queued tasks are not there), and the child can
// start and wait for tasks of its own before it exits.
TEST(ThreadCache, ATaskThatForksIsTheChildsOneRunningTask) {
#ifdef TETHER_UNDER_TSAN
  GTEST_SKIP()
      << "ThreadSanitizer does not support threads in a multi-threaded process's fork child";
#else
  pid_t pid = -1;
  auto [group, gctx] = TaskGroup::WithContext(Background());
  group.Go([&pid] {
    const pid_t forked = fork();
    if (forked != 0) {
      pid = forked;
      return;
    }
    bool ok = detail::GetThreadCacheStats().running == 1;
    auto [inner, ictx] = TaskGroup::WithContext(Background());
    std::atomic<int> ran{0};
    for (int i = 0; i < 4; ++i) inner.Go([&] { ran.fetch_add(1); });
    ok = ok && inner.Wait().ok() && ran.load() == 4;
    _exit(ok ? 0 : 1);
  });
  ASSERT_TRUE(group.Wait().ok());
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
#endif
}

}  // namespace
}  // namespace tether
