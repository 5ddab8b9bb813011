// Smoke tests: one end-to-end pass over each libtether type.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

#include "tether/tether.hpp"

namespace tether {
namespace {

TEST(Smoke, CancelReachesChildAndErrSticks) {
  auto [parent, cancel] = WithCancel(Background());
  auto [child, cancel_child] = WithCancel(parent);
  EXPECT_TRUE(child.Err().ok());
  cancel();
  child.Done().Wait();
  EXPECT_EQ(child.Err().code(), ErrorCode::kCanceled);
  EXPECT_EQ(parent.Err().ToString(), "context canceled");
  cancel_child();
}

TEST(Smoke, TimeoutFires) {
  auto [ctx, cancel] = WithTimeout(Background(), std::chrono::milliseconds(5));
  ctx.Done().Wait();
  EXPECT_EQ(ctx.Err().code(), ErrorCode::kDeadlineExceeded);
  cancel();
}

TEST(Smoke, GroupFirstErrorCancelsContext) {
  auto [group, gctx] = TaskGroup::WithContext(Background());
  group.Go([ctx = gctx] {
    ctx.Done().Wait();
    return Error();
  });
  group.Go([] { return Error::Failed("step failed"); });
  Error err = group.Wait();
  EXPECT_EQ(err.ToString(), "failed: step failed");
  EXPECT_EQ(gctx.Err().code(), ErrorCode::kCanceled);
  EXPECT_EQ(gctx.Cause().message(), "step failed");
}

TEST(Smoke, ChannelPassesValuesThenCloses) {
  Channel<std::string> lines(2);
  std::thread producer([&] {
    EXPECT_TRUE(lines.Send(Background(), "a").ok());
    EXPECT_TRUE(lines.Send(Background(), "b").ok());
    EXPECT_TRUE(lines.Send(Background(), "c").ok());
    lines.Close();
  });
  std::string got;
  while (auto line = lines.Recv(Background())) got += *line;
  producer.join();
  EXPECT_EQ(got, "abc");
}

TEST(Smoke, SelectPicksTheReadySource) {
  auto [ctx, cancel] = WithCancel(Background());
  Channel<int> ch(0);
  std::thread sender([ch, c = ctx]() mutable { EXPECT_TRUE(ch.Send(c, 7).ok()); });
  int got = 0;
  Select sel;
  sel.OnDone(ctx, [] {}).OnRecv(ch, [&](std::optional<int> v) { got = v.value_or(-1); });
  EXPECT_EQ(sel.Wait(), 1u);
  EXPECT_EQ(got, 7);
  sender.join();
  cancel();
}

TEST(Smoke, ScopeIsInheritedByContexts) {
  Scope scope(Background(), "build");
  EXPECT_NE(scope.id(), 0u);
  EXPECT_EQ(CurrentScopeId(), scope.id());
  auto [ctx, cancel] = WithCancel(scope.context());
  EXPECT_EQ(ctx.scope_id(), scope.id());
  cancel();
}

}  // namespace
}  // namespace tether
