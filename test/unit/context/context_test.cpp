// Context: the behaviours of Go's context_test.go (roots, propagation to all
// descendants, parents unaffected, deadline inheritance, values,
// WithoutCancel, causes, idempotent cancels), ported as behaviours.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "context_node.hpp"  // ChildCount: does a cancel release the child?
#include "tether/context.hpp"

namespace tether {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;

const ContextKey<std::string> kUser{"user"};
const ContextKey<std::string> kRequest{"request"};
const ContextKey<int> kAttempt{"attempt"};

std::size_t Children(const Context& ctx) { return ctx.node()->ChildCount(); }

TEST(Roots, NeverDoneNoDeadlineNoValues) {
  for (const Context& ctx : {Background(), TODO(), Context()}) {
    EXPECT_TRUE(ctx.Err().ok());
    EXPECT_TRUE(ctx.Cause().ok());
    EXPECT_FALSE(ctx.Done().CanFire());
    EXPECT_FALSE(ctx.Done().Fired());
    EXPECT_FALSE(ctx.Deadline().has_value());
    EXPECT_TRUE(ctx.IsRoot());
    EXPECT_EQ(ctx.id(), 0u);
    EXPECT_EQ(ctx.Value(kUser), nullptr);
  }
  EXPECT_NE(Background().node(), TODO().node());
  EXPECT_EQ(Background().node(), Context().node());
}

TEST(WithCancel, CancelReachesEveryDescendant) {
  auto [root, cancel_root] = WithCancel(Background());
  // A tree mixing every kind of node between cancellable ones.
  auto [a, cancel_a] = WithCancel(root);
  auto [b, cancel_b] = WithTimeout(WithValue(root, kUser, "ann"), hours(1));
  auto [a1, cancel_a1] = WithCancel(WithValue(a, kAttempt, 1));
  auto [a2, cancel_a2] = WithCancelCause(a);
  auto [b1, cancel_b1] = WithCancel(b);
  std::vector<Context> all = {root, a, b, a1, a2, b1};
  for (const auto& c : all) EXPECT_TRUE(c.Err().ok());
  EXPECT_FALSE(root.IsRoot());

  cancel_root();
  for (const auto& c : all) {
    EXPECT_TRUE(c.Done().Fired());
    EXPECT_EQ(c.Err().code(), ErrorCode::kCanceled);
  }
  cancel_a();
  cancel_b();
  cancel_a1();
  cancel_a2();
  cancel_b1();
}

TEST(WithCancel, ChildCancelLeavesParentAndSiblings) {
  auto [parent, cancel_parent] = WithCancel(Background());
  auto [child, cancel_child] = WithCancel(parent);
  auto [sibling, cancel_sibling] = WithCancel(parent);
  auto [grandchild, cancel_grandchild] = WithCancel(child);
  cancel_child();
  EXPECT_EQ(child.Err().code(), ErrorCode::kCanceled);
  EXPECT_EQ(grandchild.Err().code(), ErrorCode::kCanceled);
  EXPECT_TRUE(parent.Err().ok());
  EXPECT_TRUE(sibling.Err().ok());
  EXPECT_FALSE(parent.Done().Fired());
  cancel_sibling();
  cancel_grandchild();
  cancel_parent();
}

TEST(WithCancel, CancelReleasesChildFromParent) {
  auto [parent, cancel_parent] = WithCancel(Background());
  auto [c1, cancel1] = WithCancel(parent);
  auto [c2, cancel2] = WithTimeout(parent, hours(1));
  auto [c3, cancel3] = WithCancelCause(WithValue(parent, kUser, "x"));
  EXPECT_EQ(Children(parent), 3u);
  cancel2();
  EXPECT_EQ(Children(parent), 2u);
  cancel1();
  cancel3();
  EXPECT_EQ(Children(parent), 0u);
  cancel_parent();
}

TEST(WithCancel, DroppedChildUnlinksItself) {
  auto [parent, cancel_parent] = WithCancel(Background());
  {
    auto [child, cancel_child] = WithCancel(parent);
    EXPECT_EQ(Children(parent), 1u);
  }  // the handle and the CancelFunc go: nothing may point at the child now
  EXPECT_EQ(Children(parent), 0u);
  cancel_parent();
}

TEST(WithCancel, CancelIsIdempotentAndThreadSafe) {
  auto [parent, cancel_parent] = WithCancel(Background());
  auto [ctx, cancel] = WithCancel(parent);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) threads.emplace_back([c = cancel] { c(); c(); });
  for (auto& t : threads) t.join();
  cancel();
  EXPECT_EQ(ctx.Err().code(), ErrorCode::kCanceled);
  EXPECT_TRUE(parent.Err().ok());
  cancel_parent();
  EXPECT_EQ(ctx.Err().code(), ErrorCode::kCanceled);  // first reason stays
  CancelFunc empty;
  empty();  // a default CancelFunc is a harmless no-op
}

TEST(WithCancel, ParentAlreadyCancelledGivesDoneChild) {
  auto [parent, cancel_parent] = WithCancel(Background());
  cancel_parent();
  auto [child, cancel_child] = WithCancel(parent);
  EXPECT_TRUE(child.Done().Fired());
  EXPECT_EQ(child.Err().code(), ErrorCode::kCanceled);
  EXPECT_EQ(Children(parent), 0u);
  cancel_child();
}

TEST(WithCancel, SimultaneousCancelsOfATree) {
  // Go's TestSimultaneousCancels: cancel every node of a tree from its own
  // thread at once; everything ends done.
  auto [root, cancel_root] = WithCancel(Background());
  std::vector<ContextAndCancel> nodes;
  nodes.push_back(WithCancel(root));
  for (int i = 0; i < 40; ++i) nodes.push_back(WithCancel(nodes[i / 3].ctx));
  std::vector<std::thread> threads;
  threads.emplace_back([c = cancel_root] { c(); });
  for (auto& n : nodes) threads.emplace_back([c = n.cancel] { c(); });
  for (auto& t : threads) t.join();
  for (auto& n : nodes) EXPECT_EQ(n.ctx.Err().code(), ErrorCode::kCanceled);
}

TEST(WithCancel, DeepChainCancelsWithoutRecursion) {
  auto [root, cancel_root] = WithCancel(Background());
  std::vector<CancelFunc> cancels;
  Context leaf = root;
  for (int i = 0; i < 20000; ++i) {
    auto [c, cancel] = WithCancel(leaf);
    leaf = c;
    cancels.push_back(cancel);
  }
  cancel_root();
  EXPECT_EQ(leaf.Err().code(), ErrorCode::kCanceled);
  for (auto& c : cancels) c();
  cancels.clear();
  leaf = Background();  // the chain goes: its destruction must not recurse 20k deep
}

TEST(Deadline, TimeoutEndsWithDeadlineExceeded) {
  auto [ctx, cancel] = WithTimeout(Background(), milliseconds(20));
  ASSERT_TRUE(ctx.Deadline().has_value());
  auto [child, cancel_child] = WithCancel(ctx);
  child.Done().Wait();
  EXPECT_EQ(ctx.Err().code(), ErrorCode::kDeadlineExceeded);
  EXPECT_EQ(child.Err().code(), ErrorCode::kDeadlineExceeded);
  EXPECT_EQ(ctx.Err().ToString(), "context deadline exceeded");
  EXPECT_EQ(ctx.Cause().code(), ErrorCode::kDeadlineExceeded);
  cancel_child();
  cancel();
  EXPECT_EQ(ctx.Err().code(), ErrorCode::kDeadlineExceeded);  // cancel after expiry changes nothing
}

TEST(Deadline, CancelBeforeDeadlineIsCanceled) {
  auto [ctx, cancel] = WithTimeout(Background(), hours(1));
  cancel();
  EXPECT_EQ(ctx.Err().code(), ErrorCode::kCanceled);
}

TEST(Deadline, PastDeadlineIsDoneAtOnce) {
  auto [ctx, cancel] = WithDeadline(Background(), Clock::now() - milliseconds(1));
  EXPECT_TRUE(ctx.Done().Fired());
  EXPECT_EQ(ctx.Err().code(), ErrorCode::kDeadlineExceeded);
  cancel();
}

TEST(Deadline, ChildIsNeverLaterThanParent) {
  TimePoint soon = Clock::now() + hours(1);
  auto [parent, cancel_parent] = WithDeadline(Background(), soon);
  auto [later, cancel_later] = WithDeadline(parent, soon + hours(5));
  auto [earlier, cancel_earlier] = WithDeadline(parent, soon - hours(0) - milliseconds(10));
  auto [plain, cancel_plain] = WithCancel(WithValue(parent, kUser, "u"));
  EXPECT_EQ(*later.Deadline(), soon);
  EXPECT_EQ(*earlier.Deadline(), soon - milliseconds(10));
  EXPECT_EQ(*plain.Deadline(), soon);
  cancel_later();
  cancel_earlier();
  cancel_plain();
  cancel_parent();
}

TEST(Deadline, ParentDeadlineEndsChildWithLaterDeadline) {
  auto [parent, cancel_parent] = WithTimeout(Background(), milliseconds(10));
  auto [child, cancel_child] = WithTimeout(parent, hours(1));
  child.Done().Wait();
  EXPECT_EQ(child.Err().code(), ErrorCode::kDeadlineExceeded);
  cancel_child();
  cancel_parent();
}

TEST(Deadline, ManyTimersFireInOrderOnOneThread) {
  std::vector<ContextAndCancel> ctxs;
  for (int i = 20; i > 0; --i) ctxs.push_back(WithTimeout(Background(), milliseconds(i)));
  for (auto& c : ctxs) {
    c.ctx.Done().Wait();
    EXPECT_EQ(c.ctx.Err().code(), ErrorCode::kDeadlineExceeded);
    c.cancel();
  }
}

TEST(Values, NearestAncestorWins) {
  Context ctx = WithValue(Background(), kUser, "ann");
  ctx = WithValue(ctx, kRequest, "r-1");
  auto [c, cancel] = WithCancel(ctx);
  Context shadow = WithValue(c, kUser, "bob");
  ASSERT_NE(shadow.Value(kUser), nullptr);
  EXPECT_EQ(*shadow.Value(kUser), "bob");
  EXPECT_EQ(*c.Value(kUser), "ann");
  EXPECT_EQ(*shadow.Value(kRequest), "r-1");
  EXPECT_EQ(shadow.Value(kAttempt), nullptr);
  // Keys compare by address: another key with the same name is another key.
  const ContextKey<std::string> other_user{"user"};
  EXPECT_EQ(shadow.Value(other_user), nullptr);
  cancel();
  EXPECT_EQ(*shadow.Value(kUser), "bob");  // values outlive cancellation
}

TEST(WithoutCancel, KeepsValuesAndScopeDropsCancelAndDeadline) {
  auto [parent, cancel_parent] = WithTimeout(WithValue(Background(), kUser, "ann"), hours(1));
  Context detached = WithoutCancel(parent);
  EXPECT_TRUE(detached.IsRoot());
  EXPECT_FALSE(detached.Deadline().has_value());
  EXPECT_FALSE(detached.Done().CanFire());
  ASSERT_NE(detached.Value(kUser), nullptr);
  EXPECT_EQ(*detached.Value(kUser), "ann");
  EXPECT_EQ(detached.scope_id(), parent.scope_id());
  auto [own, cancel_own] = WithCancel(detached);  // cancellable again, on its own
  cancel_parent();
  EXPECT_EQ(parent.Err().code(), ErrorCode::kCanceled);
  EXPECT_TRUE(detached.Err().ok());
  EXPECT_TRUE(own.Err().ok());
  cancel_own();
  EXPECT_EQ(own.Err().code(), ErrorCode::kCanceled);
}

TEST(Cause, CancelCauseIsReportedToDescendants) {
  auto [ctx, cancel] = WithCancelCause(Background());
  auto [child, cancel_child] = WithCancel(ctx);
  EXPECT_TRUE(ctx.Cause().ok());
  cancel(Error::Failed("disk full"));
  EXPECT_EQ(ctx.Err().code(), ErrorCode::kCanceled);
  EXPECT_EQ(ctx.Cause().ToString(), "failed: disk full");
  EXPECT_EQ(child.Err().code(), ErrorCode::kCanceled);
  EXPECT_EQ(child.Cause().ToString(), "failed: disk full");
  cancel(Error::Failed("second"));  // the first cause stays
  EXPECT_EQ(ctx.Cause().message(), "disk full");
  cancel_child();
}

TEST(Cause, NoCauseMeansCanceled) {
  auto [ctx, cancel] = WithCancelCause(Background());
  cancel(Error());
  EXPECT_EQ(ctx.Cause().code(), ErrorCode::kCanceled);
  auto [plain, cancel_plain] = WithCancel(Background());
  cancel_plain();
  EXPECT_EQ(plain.Cause(), Error::Canceled());
}

TEST(Cause, ChildCancelledFirstKeepsItsOwnCause) {
  auto [parent, cancel_parent] = WithCancelCause(Background());
  auto [child, cancel_child] = WithCancelCause(parent);
  cancel_child(Error::Failed("child"));
  cancel_parent(Error::Failed("parent"));
  EXPECT_EQ(child.Cause().message(), "child");
  EXPECT_EQ(parent.Cause().message(), "parent");
}

TEST(Cause, ConcurrentCauseReadsAndCancel) {
  auto [ctx, cancel] = WithCancelCause(Background());
  std::thread reader([c = ctx] {
    while (c.Cause().ok()) std::this_thread::yield();
    EXPECT_EQ(c.Cause().message(), "why");
  });
  cancel(Error::Failed("why"));
  reader.join();
}

TEST(ErrorType, StringsAndComparison) {
  EXPECT_EQ(Error().ToString(), "ok");
  EXPECT_TRUE(Error().ok());
  EXPECT_EQ(Error::Canceled().ToString(), "context canceled");
  EXPECT_EQ(Error::DeadlineExceeded().ToString(), "context deadline exceeded");
  EXPECT_EQ(Error::Closed().ToString(), "closed");
  EXPECT_EQ(Error(ErrorCode::kIo, "open x: No such file").ToString(), "io: open x: No such file");
  EXPECT_EQ(Error(ErrorCode::kInvalidArgument, "bad").ToString(), "invalid argument: bad");
  EXPECT_TRUE(Error::DeadlineExceeded().IsContextError());
  EXPECT_FALSE(Error::Closed().IsContextError());
  EXPECT_EQ(Error::Failed("a"), Error::Failed("a"));
  EXPECT_FALSE(Error::Failed("a") == Error::Failed("b"));
  Error copy = Error::Failed("shared");
  EXPECT_EQ(&copy.message(), &Error(copy).message());  // the message is shared, not copied
}

}  // namespace
}  // namespace tether
