// Scope: the thread's current scope, nesting, and scope inheritance.
#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "tether/scope.hpp"
#include "tether/task.hpp"

namespace tether {
namespace {

TEST(Scope, NestingSetsAndRestoresTheCurrentScope) {
  EXPECT_EQ(CurrentScopeId(), 0u);
  {
    Scope outer(Background(), "outer");
    EXPECT_EQ(CurrentScopeId(), outer.id());
    {
      Scope inner(outer.context(), "inner");
      EXPECT_EQ(CurrentScopeId(), inner.id());
      EXPECT_NE(inner.id(), outer.id());
      EXPECT_EQ(inner.context().scope_id(), inner.id());
      EXPECT_EQ(inner.name(), "inner");
    }
    EXPECT_EQ(CurrentScopeId(), outer.id());
    outer.End();
    EXPECT_EQ(CurrentScopeId(), 0u);
    outer.End();  // idempotent
  }
  EXPECT_EQ(CurrentScopeId(), 0u);
}

TEST(Scope, ContextsAndValuesInheritTheScope) {
  Scope scope(Background(), "s");
  auto [ctx, cancel] = WithTimeout(scope.context(), std::chrono::hours(1));
  Context value = WithValue(ctx, ContextKey<int>("k"), 1);
  EXPECT_EQ(value.scope_id(), scope.id());
  EXPECT_EQ(WithoutCancel(value).scope_id(), scope.id());
  EXPECT_EQ(Background().scope_id(), 0u);
  cancel();
}

TEST(Scope, ScopeContextIsNotCancelledByTheScope) {
  auto [parent, cancel] = WithCancel(Background());
  Context kept;
  {
    Scope scope(parent, "s");
    kept = scope.context();
  }
  EXPECT_TRUE(kept.Err().ok());  // ending a scope is not a cancellation
  cancel();
  EXPECT_EQ(kept.Err().code(), ErrorCode::kCanceled);  // but its parent's is
}

TEST(Scope, EndingFromAnotherThreadEndsItForTheOwnerToo) {
  Scope scope(Background(), "s");
  std::thread other([&] {
    EXPECT_EQ(CurrentScopeId(), 0u);  // a plain thread works for no scope
    scope.End();
    EXPECT_EQ(CurrentScopeId(), 0u);
  });
  other.join();
  // The owner no longer works for an ended scope: a root spawned here now is
  // not "detached from" it.
  EXPECT_EQ(CurrentScopeId(), 0u);
}

TEST(Scope, EndedFromAnotherThreadUncoversTheOwnersOuterScope) {
  Scope outer(Background(), "outer");
  Scope inner(outer.context(), "inner");
  std::thread([&] { inner.End(); }).join();
  EXPECT_EQ(CurrentScopeId(), outer.id());
}

TEST(Scope, OuterEndedBeforeInnerLeavesNoEndedScopeCurrent) {
  auto outer = std::make_unique<Scope>(Background(), "outer");
  auto inner = std::make_unique<Scope>(outer->context(), "inner");
  outer.reset();                                // out of order: the outer ends first
  EXPECT_EQ(CurrentScopeId(), inner->id());     // the inner is still live
  inner.reset();
  EXPECT_EQ(CurrentScopeId(), 0u);              // not the outer, which has ended
}

TEST(Scope, TaskScopeIsCurrentAgainAfterItsThreadsOwnScopesEnd) {
  Scope owner(Background(), "owner");
  auto [group, gctx] = TaskGroup::WithContext(owner.context());
  std::uint64_t after = 0;
  group.Go([&] {
    auto a = std::make_unique<Scope>(Background(), "a");
    auto b = std::make_unique<Scope>(Background(), "b");
    a.reset();
    b.reset();
    after = CurrentScopeId();
  });
  EXPECT_TRUE(group.Wait().ok());
  EXPECT_EQ(after, owner.id());
}

TEST(Scope, TaskThreadsWorkForTheirContextsScope) {
  Scope scope(Background(), "s");
  auto [group, gctx] = TaskGroup::WithContext(scope.context());
  std::uint64_t in_task = 0, in_root_task = 99;
  group.Go([&] { in_task = CurrentScopeId(); });
  auto [other, octx] = TaskGroup::WithContext(Background());
  other.Go([&] { in_root_task = CurrentScopeId(); });
  EXPECT_TRUE(group.Wait().ok());
  EXPECT_TRUE(other.Wait().ok());
  EXPECT_EQ(in_task, scope.id());
  EXPECT_EQ(in_root_task, 0u);
}

}  // namespace
}  // namespace tether
