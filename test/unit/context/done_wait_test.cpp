// The done signal's futex paths and the node block cache (futex.hpp,
// signal_state.hpp, node_pool.hpp), under contention: run under TSan and ASan
// by ./run test like every unit suite.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "context_node.hpp"
#include "tether/context.hpp"

namespace tether {
namespace {

using std::chrono::milliseconds;

const ContextKey<int> kKey{"index"};

// Sleepers on Done().Wait() and Done().WaitUntil() are all woken by one
// cancel, whichever side of the cancel they arrive on.
TEST(DoneWait, EveryWaiterWakesOnCancel) {
  for (int round = 0; round < 50; ++round) {
    auto [ctx, cancel] = WithCancel(Background());
    std::atomic<int> woken{0};
    std::vector<std::thread> waiters;
    for (int i = 0; i < 6; ++i) {
      waiters.emplace_back([&, i, ctx = ctx] {
        if (i % 2 == 0) {
          ctx.Done().Wait();
          woken.fetch_add(1);
        } else if (ctx.Done().WaitUntil(std::chrono::steady_clock::now() + std::chrono::hours(1))) {
          woken.fetch_add(1);
        }
      });
    }
    if (round % 2 == 0) std::this_thread::sleep_for(milliseconds(1));  // some already asleep
    cancel();
    for (auto& t : waiters) t.join();
    EXPECT_EQ(woken.load(), 6) << "round " << round;
    EXPECT_TRUE(ctx.Err().Is(ErrorCode::kCanceled));
  }
}

// A timed wait on a context nobody cancels returns false at its deadline,
// not before, and a later cancel still wakes a plain waiter.
TEST(DoneWait, WaitUntilTimesOutThenCancelStillWakes) {
  auto [ctx, cancel] = WithCancel(Background());
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(ctx.Done().WaitUntil(start + milliseconds(20)));
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(20));
  std::thread waiter([ctx = ctx] { ctx.Done().Wait(); });
  cancel();
  waiter.join();
  EXPECT_TRUE(ctx.Done().WaitUntil(std::chrono::steady_clock::now()));
}

// Many threads derive and cancel children of one parent (contending for the
// parent's lock) while the parent is cancelled: every child ends done, the
// parent keeps no child, and no lock is lost or held twice.
TEST(DoneWait, ContendedParentLockWithConcurrentCancel) {
  for (int round = 0; round < 20; ++round) {
    auto [parent, cancel_parent] = WithCancel(Background());
    std::atomic<bool> go{false};
    std::atomic<int> done_children{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, parent = parent] {
        while (!go.load()) std::this_thread::yield();
        for (int i = 0; i < 200; ++i) {
          auto [child, cancel_child] = WithCancel(parent);
          if (i % 3 == 0) cancel_child();
          if (!child.Err().ok()) done_children.fetch_add(1);
          cancel_child();
        }
      });
    }
    go.store(true);
    std::this_thread::sleep_for(std::chrono::microseconds(200 * (round % 4)));
    cancel_parent();
    for (auto& t : threads) t.join();
    EXPECT_EQ(parent.node()->ChildCount(), 0u);
    EXPECT_GT(done_children.load(), 0);
  }
}

// Nodes made on one thread and freed on another (the block cache takes
// blocks from any thread), and a thread that exits with cached blocks.
TEST(DoneWait, NodesFreedOnOtherThreads) {
  std::vector<Context> made;
  std::vector<CancelFunc> cancels;
  std::thread maker([&] {
    for (int i = 0; i < 500; ++i) {
      auto [ctx, cancel] = WithCancel(Background());
      made.push_back(WithValue(ctx, kKey, i));
      cancels.push_back(std::move(cancel));
    }
  });
  maker.join();
  std::thread freer([&] {
    for (std::size_t i = 0; i < made.size(); ++i) {
      const int* v = made[i].Value(kKey);
      ASSERT_NE(v, nullptr);
      EXPECT_EQ(*v, static_cast<int>(i));
      cancels[i]();
    }
    made.clear();
    cancels.clear();
    for (int i = 0; i < 100; ++i) {  // reuses the freed blocks
      auto [ctx, cancel] = WithTimeout(Background(), std::chrono::hours(1));
      EXPECT_TRUE(ctx.Err().ok());
      cancel();
      EXPECT_TRUE(ctx.Err().Is(ErrorCode::kCanceled));
    }
  });
  freer.join();
}

}  // namespace
}  // namespace tether
