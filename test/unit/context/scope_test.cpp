// Scope: the thread's current scope, nesting, and scope inheritance.
#include <gtest/gtest.h>

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

TEST(Scope, EndingFromAnotherThreadLeavesTheOwnersScopeAlone) {
  Scope scope(Background(), "s");
  std::thread other([&] {
    EXPECT_EQ(CurrentScopeId(), 0u);  // a plain thread works for no scope
    scope.End();
    EXPECT_EQ(CurrentScopeId(), 0u);
  });
  other.join();
  EXPECT_EQ(CurrentScopeId(), scope.id());  // only the owner's own End restores it
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
