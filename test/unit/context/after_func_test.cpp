// AfterFunc (Go's context.AfterFunc semantics) and detached tether::Go tasks.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "tether/context.hpp"
#include "tether/scope.hpp"
#include "tether/task.hpp"

namespace tether {
namespace {

using std::chrono::milliseconds;

TEST(AfterFunc, RunsOnceOnItsOwnThreadAfterCancel) {
  auto [ctx, cancel] = WithCancel(Background());
  std::atomic<int> calls{0};
  Signal ran = Signal::Make();
  std::thread::id runner;
  auto stop = AfterFunc(ctx, [&] {
    runner = std::this_thread::get_id();
    calls.fetch_add(1);
    ran.Fire();
  });
  EXPECT_FALSE(ran.Fired());
  cancel();
  cancel();
  ran.Wait();
  EXPECT_NE(runner, std::this_thread::get_id());
  EXPECT_FALSE(stop());  // too late: f already started
  EXPECT_FALSE(stop());
  EXPECT_EQ(calls.load(), 1);
}

TEST(AfterFunc, RunsAfterTimeout) {
  auto [ctx, cancel] = WithTimeout(Background(), milliseconds(5));
  Signal ran = Signal::Make();
  auto stop = AfterFunc(ctx, [&] {
    EXPECT_EQ(ctx.Err().code(), ErrorCode::kDeadlineExceeded);  // done before f runs
    ran.Fire();
  });
  ran.Wait();
  cancel();
}

TEST(AfterFunc, RunsAtOnceWhenAlreadyDone) {
  auto [ctx, cancel] = WithCancel(Background());
  cancel();
  Signal ran = Signal::Make();
  auto stop = AfterFunc(ctx, [&] { ran.Fire(); });
  ran.Wait();
  EXPECT_FALSE(stop());
}

TEST(AfterFunc, StopPreventsTheCall) {
  auto [ctx, cancel] = WithCancel(Background());
  std::atomic<bool> called{false};
  auto stop = AfterFunc(ctx, [&] { called = true; });
  EXPECT_TRUE(stop());
  EXPECT_FALSE(stop());  // only the first stop prevents anything
  cancel();
  // Another AfterFunc registered after the stopped one does run; give the
  // stopped one the same chance to (wrongly) run before checking.
  Signal second = Signal::Make();
  auto stop2 = AfterFunc(ctx, [&] { second.Fire(); });
  second.Wait();
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_FALSE(called.load());
}

TEST(AfterFunc, IsCalledAsynchronously) {
  // If cancel() ran f inline, f would wait for a signal fired only after
  // cancel() returns: a deadlock (caught by the ctest timeout).
  auto [ctx, cancel] = WithCancel(Background());
  Signal cancel_returned = Signal::Make();
  Signal ran = Signal::Make();
  auto stop = AfterFunc(ctx, [&] {
    cancel_returned.Wait();
    ran.Fire();
  });
  cancel();
  cancel_returned.Fire();
  ran.Wait();
}

TEST(AfterFunc, NeverRunsForUncancellableContexts) {
  auto stop = AfterFunc(Background(), [] { ADD_FAILURE() << "Background is never done"; });
  EXPECT_TRUE(stop());
}

TEST(AfterFunc, RegisteredOnADescendantOfTheCancelledNode) {
  const ContextKey<int> key{"k"};
  auto [root, cancel_root] = WithCancel(Background());
  Context leaf = WithValue(root, key, 3);
  Signal ran = Signal::Make();
  auto stop = AfterFunc(leaf, [&] { ran.Fire(); });
  cancel_root();
  ran.Wait();
}

TEST(DetachedGo, RunsWithTheContextAndAdoptsItsScope) {
  Scope scope(Background(), "owner");
  Signal done = Signal::Make();
  std::uint64_t seen_scope = 0;
  Go(scope.context(), [&](const Context& ctx) {
    seen_scope = CurrentScopeId();
    EXPECT_EQ(ctx.scope_id(), scope.id());
    done.Fire();
  });
  done.Wait();
  EXPECT_EQ(seen_scope, scope.id());
}

TEST(DetachedGo, ThreadWithoutScopeContextHasNoScope) {
  Scope scope(Background(), "spawner");
  Signal done = Signal::Make();
  std::uint64_t seen_scope = 99;
  Go(Background(), "loner", [&] {
    seen_scope = CurrentScopeId();
    done.Fire();
  });
  done.Wait();
  EXPECT_EQ(seen_scope, 0u);
}

}  // namespace
}  // namespace tether
