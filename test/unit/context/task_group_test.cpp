// TaskGroup: the behaviours of Go's errgroup_test.go (first error wins and
// cancels the context, SetLimit, TryGo, Wait twice) plus libtether's own
// ownership rule (a group destroyed without Wait cancels, joins and warns).
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tether/task.hpp"

namespace tether {
namespace {

TEST(TaskGroup, ZeroTasksWaitIsOk) {
  auto [group, gctx] = TaskGroup::WithContext(Background());
  EXPECT_TRUE(group.Wait().ok());
  EXPECT_EQ(gctx.Err().code(), ErrorCode::kCanceled);  // Wait cancels the group context
  EXPECT_EQ(&group.context(), &group.context());
  EXPECT_EQ(group.context().node(), gctx.node());
}

TEST(TaskGroup, AllSucceed) {
  auto [group, gctx] = TaskGroup::WithContext(Background());
  std::atomic<int> ran{0};
  for (int i = 0; i < 10; ++i) group.Go([&] { ran.fetch_add(1); });
  EXPECT_TRUE(group.Wait().ok());
  EXPECT_EQ(ran.load(), 10);
  EXPECT_EQ(gctx.Cause().code(), ErrorCode::kCanceled);
}

TEST(TaskGroup, FirstErrorWinsAndCancelsTheContext) {
  auto [group, gctx] = TaskGroup::WithContext(Background());
  // The slow tasks only finish because the first error cancels gctx.
  for (int i = 0; i < 3; ++i) {
    group.Go([c = gctx, i] {
      c.Done().Wait();
      return Error::Failed("late " + std::to_string(i));
    });
  }
  group.Go([] { return Error::Failed("first"); });
  Error err = group.Wait();
  EXPECT_EQ(err, Error::Failed("first"));
  EXPECT_EQ(gctx.Err().code(), ErrorCode::kCanceled);
  EXPECT_EQ(gctx.Cause(), Error::Failed("first"));
}

TEST(TaskGroup, WaitTwiceReturnsTheSameError) {
  auto [group, gctx] = TaskGroup::WithContext(Background());
  group.Go([] { return Error(ErrorCode::kIo, "write: broken pipe"); });
  Error first = group.Wait();
  EXPECT_EQ(first.ToString(), "io: write: broken pipe");
  EXPECT_EQ(group.Wait(), first);
}

TEST(TaskGroup, ParentCancelReachesTasks) {
  auto [parent, cancel] = WithCancel(Background());
  auto [group, gctx] = TaskGroup::WithContext(parent);
  group.Go([c = gctx] {
    c.Done().Wait();
    return c.Err();
  });
  cancel();
  EXPECT_EQ(group.Wait().code(), ErrorCode::kCanceled);
  EXPECT_TRUE(Background().Err().ok());
}

TEST(TaskGroup, AThrowingTaskBecomesAnError) {
  auto [group, gctx] = TaskGroup::WithContext(Background());
  group.Go([]() -> Error { throw std::runtime_error("bad step"); });
  Error err = group.Wait();
  EXPECT_EQ(err.code(), ErrorCode::kFailed);
  EXPECT_EQ(err.message(), "task threw: bad step");
}

TEST(TaskGroup, SetLimitBoundsConcurrency) {
  for (int limit : {1, 2, 4}) {
    auto [group, gctx] = TaskGroup::WithContext(Background());
    group.SetLimit(limit);
    std::atomic<int> running{0}, peak{0}, done{0};
    for (int i = 0; i < 24; ++i) {
      group.Go([&] {
        int now = running.fetch_add(1) + 1;
        int p = peak.load();
        while (now > p && !peak.compare_exchange_weak(p, now)) {
        }
        std::this_thread::yield();
        running.fetch_sub(1);
        done.fetch_add(1);
      });
    }
    EXPECT_TRUE(group.Wait().ok());
    EXPECT_EQ(done.load(), 24);
    EXPECT_LE(peak.load(), limit);
    EXPECT_GE(peak.load(), 1);
  }
}

TEST(TaskGroup, GoBlocksWhileTheLimitIsReached) {
  auto [group, gctx] = TaskGroup::WithContext(Background());
  group.SetLimit(1);
  Signal release = Signal::Make();
  std::atomic<bool> first_done{false};
  group.Go([&] {
    release.Wait();
    first_done = true;
  });
  std::thread releaser([&] { release.Fire(); });
  // Returns only once the first task has finished and freed the slot.
  group.Go([&] { EXPECT_TRUE(first_done.load()); });
  EXPECT_TRUE(first_done.load());
  releaser.join();
  EXPECT_TRUE(group.Wait().ok());
}

TEST(TaskGroup, TryGoRespectsTheLimit) {
  auto [group, gctx] = TaskGroup::WithContext(Background());
  group.SetLimit(2);
  Signal release = Signal::Make();
  std::atomic<int> started{0};
  auto blocker = [&] {
    started.fetch_add(1);
    release.Wait();
  };
  EXPECT_TRUE(group.TryGo(blocker));
  EXPECT_TRUE(group.TryGo("second", blocker));
  EXPECT_FALSE(group.TryGo(blocker));
  EXPECT_FALSE(group.TryGo("third", blocker));
  release.Fire();
  EXPECT_TRUE(group.Wait().ok());
  EXPECT_EQ(started.load(), 2);
  EXPECT_TRUE(group.TryGo([] {}));  // slots are free again
  EXPECT_TRUE(group.Wait().ok());
}

TEST(TaskGroup, LimitZeroAdmitsNothingAndNegativeIsUnlimited) {
  auto [group, gctx] = TaskGroup::WithContext(Background());
  group.SetLimit(0);
  EXPECT_FALSE(group.TryGo([] {}));
  group.SetLimit(-1);
  Signal release = Signal::Make();
  for (int i = 0; i < 16; ++i) EXPECT_TRUE(group.TryGo([&] { release.Wait(); }));
  release.Fire();
  EXPECT_TRUE(group.Wait().ok());
}

void SetLimitWhileRunning() {
  auto result = TaskGroup::WithContext(Background());
  Signal never = Signal::Make();
  result.group.Go([never] { never.Wait(); });
  result.group.SetLimit(1);
}

TEST(TaskGroupDeathTest, SetLimitWhileTasksRunAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(SetLimitWhileRunning(), "SetLimit\\(1\\) called while 1 task\\(s\\) run");
}

TEST(TaskGroup, TasksMayAddTasksWhileWaiting) {
  auto [group, gctx] = TaskGroup::WithContext(Background());
  std::atomic<int> leaves{0};
  TaskGroup* g = &group;
  group.Go([&, g] {
    for (int i = 0; i < 5; ++i) g->Go([&] { leaves.fetch_add(1); });
  });
  EXPECT_TRUE(group.Wait().ok());
  EXPECT_EQ(leaves.load(), 5);
}

TEST(TaskGroup, DestroyedWithoutWaitCancelsJoinsAndWarnsOnce) {
  std::atomic<bool> task_saw_cancel{false}, task_finished{false};
  Context kept;
  testing::internal::CaptureStderr();
  {
    auto [group, gctx] = TaskGroup::WithContext(Background());
    kept = gctx;
    group.Go([&, c = gctx] {
      c.Done().Wait();
      task_saw_cancel = c.Err().code() == ErrorCode::kCanceled;
      task_finished = true;
    });
  }  // no Wait: the destructor must cancel gctx and join the task
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(task_finished.load());
  EXPECT_TRUE(task_saw_cancel.load());
  EXPECT_EQ(kept.Err().code(), ErrorCode::kCanceled);
  EXPECT_NE(err.find("destroyed without Wait()"), std::string::npos) << err;
  EXPECT_NE(err.find("task_group_test.cpp"), std::string::npos) << err;
  EXPECT_EQ(err.find("destroyed without Wait()"), err.rfind("destroyed without Wait()")) << err;
}

TEST(TaskGroup, DestroyedAfterWaitIsSilent) {
  testing::internal::CaptureStderr();
  {
    auto [group, gctx] = TaskGroup::WithContext(Background());
    group.Go([] {});
    EXPECT_TRUE(group.Wait().ok());
  }
  {
    auto [unused, uctx] = TaskGroup::WithContext(Background());  // no task at all
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(TaskGroup, MovedGroupKeepsItsTasks) {
  auto [group, gctx] = TaskGroup::WithContext(Background());
  std::atomic<int> ran{0};
  group.Go([&] { ran.fetch_add(1); });
  testing::internal::CaptureStderr();
  TaskGroup moved(std::move(group));
  moved.Go([&] { ran.fetch_add(1); });
  EXPECT_TRUE(moved.Wait().ok());
  auto [other, octx] = TaskGroup::WithContext(Background());
  other = std::move(moved);  // the task-less state of `other` goes silently
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(ran.load(), 2);
  EXPECT_EQ(other.context().node(), gctx.node());
}

TEST(TaskGroup, LongLivedGroupWithManyShortTasks) {
  auto [group, gctx] = TaskGroup::WithContext(Background());
  group.SetLimit(3);
  std::atomic<int> ran{0};
  for (int i = 0; i < 300; ++i) group.Go([&] { ran.fetch_add(1); });
  EXPECT_TRUE(group.Wait().ok());
  EXPECT_EQ(ran.load(), 300);
}

// Go and a task's end count tasks in and out without the group's mutex
// (task.cpp): spawners on several threads at once, at a limit, each task
// ending while others start; Wait still joins them all and the limit holds.
TEST(TaskGroup, ConcurrentSpawnersAtALimitAreBoundedAndJoined) {
  constexpr int kSpawners = 4, kPerSpawner = 250, kLimit = 3;
  auto [group, gctx] = TaskGroup::WithContext(Background());
  group.SetLimit(kLimit);
  std::atomic<int> running{0}, peak{0}, ran{0};
  std::vector<std::thread> spawners;
  for (int s = 0; s < kSpawners; ++s) {
    spawners.emplace_back([&, g = &group] {
      for (int i = 0; i < kPerSpawner; ++i) {
        g->Go([&] {
          int now = running.fetch_add(1) + 1;
          for (int p = peak.load(); now > p && !peak.compare_exchange_weak(p, now);) {
          }
          ran.fetch_add(1);
          running.fetch_sub(1);
        });
      }
    });
  }
  for (auto& t : spawners) t.join();
  EXPECT_TRUE(group.Wait().ok());
  EXPECT_EQ(ran.load(), kSpawners * kPerSpawner);
  EXPECT_LE(peak.load(), kLimit);
  EXPECT_EQ(running.load(), 0);
}

// Wait sleeps until the last task's end wakes it, while tasks keep adding
// tasks (each counts its successor in before it ends itself).
TEST(TaskGroup, WaitWakesOnlyAfterTheLastOfAChainOfTasks) {
  auto [group, gctx] = TaskGroup::WithContext(Background());
  std::atomic<int> ran{0};
  std::function<void(int)> chain = [&, g = &group](int left) {
    ran.fetch_add(1);
    if (left > 0) g->Go([&chain, left] { chain(left - 1); });
  };
  for (int c = 0; c < 4; ++c) group.Go([&chain] { chain(200); });
  EXPECT_TRUE(group.Wait().ok());
  EXPECT_EQ(ran.load(), 4 * 201);
}

TEST(TaskGroup, TasksRunningCountsStartedUnfinishedTasks) {
  // Other tests of this binary ran before: count relative to now.
  const std::int64_t before = TasksRunning();
  auto [release, fire] = WithCancel(Background());
  auto [group, gctx] = TaskGroup::WithContext(Background());
  std::atomic<int> started{0};
  for (int i = 0; i < 3; ++i) {
    group.Go([&started, r = release] {
      started.fetch_add(1);
      r.Done().Wait();
    });
  }
  while (started.load() < 3) std::this_thread::yield();
  EXPECT_EQ(TasksRunning(), before + 3);
  fire();
  EXPECT_TRUE(group.Wait().ok());
  EXPECT_EQ(TasksRunning(), before);
}

}  // namespace
}  // namespace tether
