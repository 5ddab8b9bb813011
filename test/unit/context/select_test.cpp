// Select over contexts, signals, channels and timers: picks the right case,
// wakes on each kind of source, and does not poll while blocked.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tether/channel.hpp"
#include "tether/select.hpp"

namespace tether {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;

// One blocked Select over every source kind; `trigger` makes one ready.
std::size_t SelectWokenBy(const std::function<void(CancelFunc&, Channel<int>&, Signal&)>& trigger,
                          std::optional<int>* received = nullptr) {
  auto [ctx, cancel] = WithCancel(Background());
  Channel<int> ch;
  Signal sig = Signal::Make();
  std::thread t([&] {
    std::this_thread::sleep_for(milliseconds(10));  // let the Select block first
    trigger(cancel, ch, sig);
  });
  Select sel;
  std::optional<int> got;
  sel.OnDone(ctx, [] {})
      .OnRecv(ch, [&](std::optional<int> v) { got = v; })
      .OnSignal(sig, [] {})
      .OnTimer(hours(1), [] {});
  std::size_t which = sel.Wait();
  t.join();
  cancel();
  if (received) *received = got;
  return which;
}

TEST(Select, WakesOnContextCancel) {
  EXPECT_EQ(SelectWokenBy([](CancelFunc& c, Channel<int>&, Signal&) { c(); }), 0u);
}

TEST(Select, WakesOnChannelSend) {
  std::optional<int> got;
  EXPECT_EQ(SelectWokenBy([](CancelFunc&, Channel<int>& ch,
                             Signal&) { EXPECT_TRUE(ch.Send(Background(), 5).ok()); },
                          &got),
            1u);
  EXPECT_EQ(got, 5);
}

TEST(Select, WakesOnChannelCloseWithNullopt) {
  std::optional<int> got = -1;
  EXPECT_EQ(SelectWokenBy([](CancelFunc&, Channel<int>& ch, Signal&) { ch.Close(); }, &got), 1u);
  EXPECT_EQ(got, std::nullopt);
}

// A Select that returns on a fired signal returns only once Fire() is done
// with it, so the signal's owner may be destroyed at once (as after Wait()).
// Here Select sees the signal already fired (the case that skips the wait),
// and the owner is freed while the firing thread may still be in Fire():
// ThreadSanitizer reports the free against Fire()'s unlock if Select returned
// on the fired flag alone (a worker test's engine was freed so).
TEST(Select, ReturnsOnAFiredSignalOnlyOnceTheFirerIsDoneWithIt) {
  for (int i = 0; i < 200; ++i) {
    auto* owner = new Signal(Signal::Make());
    std::thread firer([owner] { owner->Fire(); });
    while (!owner->Fired()) std::this_thread::yield();
    EXPECT_EQ(Select().OnSignal(*owner, [] {}).Wait(), 0u);
    delete owner;
    firer.join();
  }
}

TEST(Select, WakesOnSignal) {
  EXPECT_EQ(SelectWokenBy([](CancelFunc&, Channel<int>&, Signal& s) { s.Fire(); }), 2u);
}

TEST(Select, TimerFiresWhenNothingElseDoes) {
  auto [ctx, cancel] = WithCancel(Background());
  Channel<int> ch(1);
  bool timer_ran = false;
  Select sel;
  sel.OnDone(ctx, [] { ADD_FAILURE(); })
      .OnRecv(ch, [](std::optional<int>) { ADD_FAILURE(); })
      .OnTimer(milliseconds(5), [&] { timer_ran = true; });
  EXPECT_EQ(sel.Wait(), 2u);
  EXPECT_TRUE(timer_ran);
  cancel();
}

TEST(Select, EarliestOfSeveralDeadlines) {
  Select sel;
  sel.OnDeadline(Clock::now() + hours(1), [] {})
      .OnTimer(milliseconds(2), [] {})
      .OnTimer(hours(2), [] {});
  EXPECT_EQ(sel.Wait(), 1u);
}

TEST(Select, ReadyReceiveBeatsExpiredTimer) {
  Channel<int> ch(1);
  EXPECT_TRUE(ch.Send(Background(), 3).ok());
  int got = 0;
  Select sel;
  sel.OnDeadline(Clock::now() - milliseconds(1), [] {}).OnRecv(ch, [&](std::optional<int> v) {
    got = *v;
  });
  EXPECT_EQ(sel.Wait(), 1u);
  EXPECT_EQ(got, 3);
}

TEST(Select, FirstReadyCaseInDeclarationOrder) {
  auto [ctx, cancel] = WithCancel(Background());
  cancel();
  Signal sig = Signal::Make();
  sig.Fire();
  Select sel;
  sel.OnSignal(sig, [] {}).OnDone(ctx, [] {});
  EXPECT_EQ(sel.Wait(), 0u);
}

TEST(Select, ReceivingTakesTheValueExactlyOnce) {
  Channel<int> ch(1);
  EXPECT_TRUE(ch.Send(Background(), 8).ok());
  Select sel;
  sel.OnRecv(ch, [](std::optional<int> v) { EXPECT_EQ(v, 8); });
  EXPECT_EQ(sel.Wait(), 0u);
  EXPECT_EQ(ch.TryRecv(), std::nullopt);
}

TEST(Select, UnbufferedSenderMeetsASelectReceiver) {
  Channel<std::string> ch;
  std::thread sender([&] { EXPECT_TRUE(ch.Send(Background(), "hi").ok()); });
  std::string got;
  Select sel;
  sel.OnRecv(ch, [&](std::optional<std::string> v) { got = v.value_or("closed"); });
  sel.Wait();
  sender.join();
  EXPECT_EQ(got, "hi");
}

TEST(Select, DoesNotPollWhileBlocked) {
  // A case that counts how often Select looks at it. A polling Select would
  // look thousands of times in 100 ms; a blocking one looks once before
  // sleeping and once after the wake-up (a spurious wake-up may add one).
  Signal sig = Signal::Make();
  std::atomic<int> looks{0};
  std::atomic<bool> attached{false};
  detail::FunctionCase c;
  c.try_ready = [&] {
    looks.fetch_add(1);
    return sig.Fired();
  };
  c.attach = [&](detail::Waiter* w) {
    attached = true;
    return sig.Register(w);
  };
  c.detach = [&](detail::Waiter* w) { sig.Unregister(w); };
  std::thread firer([&] {
    while (!attached.load()) std::this_thread::yield();
    std::this_thread::sleep_for(milliseconds(100));
    sig.Fire();
  });
  Select sel;
  sel.AddCase(std::move(c));
  EXPECT_EQ(sel.Wait(), 0u);
  firer.join();
  EXPECT_GE(looks.load(), 2);
  EXPECT_LE(looks.load(), 4);
}

// Select receivers and plain Recv callers share two buffered channels fed by
// several producers: every value reaches exactly one of them, and no receiver
// sleeps through a value (the receivers give up only at the 60 s deadline).
TEST(Select, SelectAndRecvShareBufferedChannelsWithoutLosingAWake) {
  Channel<int> a(2), b(3);
  constexpr int kPerProducer = 20000;
  auto [ctx, cancel] = WithTimeout(Background(), std::chrono::seconds(60));
  std::vector<std::thread> producers;
  for (int p = 0; p < 2; ++p) {
    producers.emplace_back([&, p, ctx = ctx] {
      Channel<int>& ch = p == 0 ? a : b;
      for (int i = 0; i < kPerProducer; ++i) EXPECT_TRUE(ch.Send(ctx, p * kPerProducer + i).ok());
      ch.Close();
    });
  }
  std::mutex mu;
  std::vector<int> got;
  auto keep = [&](int v) {
    std::lock_guard<std::mutex> lock(mu);
    got.push_back(v);
  };
  std::vector<std::thread> receivers;
  for (int r = 0; r < 2; ++r) {  // Select over both channels until both are closed
    receivers.emplace_back([&, ctx = ctx] {
      bool a_open = true, b_open = true;
      while ((a_open || b_open) && ctx.Err().ok()) {
        Select sel;
        if (a_open)
          sel.OnRecv(a, [&](std::optional<int> v) { v ? keep(*v) : void(a_open = false); });
        if (b_open)
          sel.OnRecv(b, [&](std::optional<int> v) { v ? keep(*v) : void(b_open = false); });
        sel.OnDone(ctx, [] {});
        sel.Wait();
      }
    });
  }
  receivers.emplace_back([&, ctx = ctx] {  // a plain receiver on one of them
    while (auto v = a.Recv(ctx)) keep(*v);
  });
  for (auto& t : producers) t.join();
  for (auto& t : receivers) t.join();
  EXPECT_TRUE(ctx.Err().ok()) << "a receiver slept through a value until the deadline";
  cancel();
  std::sort(got.begin(), got.end());
  ASSERT_EQ(got.size(), std::size_t{2 * kPerProducer});
  for (int i = 0; i < 2 * kPerProducer; ++i) ASSERT_EQ(got[i], i);
}

TEST(Select, NeverFiringContextIsJustNeverReady) {
  Select sel;
  sel.OnDone(Background(), [] { ADD_FAILURE(); }).OnTimer(milliseconds(1), [] {});
  EXPECT_EQ(sel.Wait(), 1u);
}

TEST(Signal, FireOnceWaitAndWaitFor) {
  Signal s = Signal::Make();
  EXPECT_TRUE(s.CanFire());
  EXPECT_FALSE(s.WaitFor(milliseconds(1)));
  std::thread t([s] { EXPECT_TRUE(s.Fire()); });
  s.Wait();
  t.join();
  EXPECT_FALSE(s.Fire());  // only the first Fire fires
  EXPECT_TRUE(s.Fired());
  EXPECT_TRUE(s.WaitFor(hours(1)));
  Signal never;
  EXPECT_FALSE(never.CanFire());
  EXPECT_FALSE(never.Fire());
  EXPECT_FALSE(never.WaitFor(milliseconds(1)));
}

// A Select keeps its first few cases in its own storage and the rest (more
// cases, or a case too big for the room) on the heap: every case works, and
// each is destroyed exactly once (ASan: no leak, no double destruction).
TEST(Select, CasesPastTheInlineRoomWorkAndAreDestroyedOnce) {
  auto alive = std::make_shared<int>(0);
  std::vector<Channel<int>> channels;
  for (int i = 0; i < 10; ++i) channels.emplace_back(1);
  ASSERT_TRUE(channels[8].Send(Background(), 42).ok());
  int got = -1;
  std::size_t which = 99;
  {
    Select sel;
    for (auto& ch : channels)
      sel.OnRecv(ch, [&got, alive](std::optional<int> v) { got = v.value_or(-2); });
    EXPECT_EQ(alive.use_count(), 11);
    which = sel.Wait();
  }
  EXPECT_EQ(which, 8u);
  EXPECT_EQ(got, 42);
  EXPECT_EQ(alive.use_count(), 1);
}

TEST(Select, ACaseTooBigForTheInlineRoomLivesOnTheHeap) {
  Channel<int> small(1), big(1);
  ASSERT_TRUE(big.Send(Background(), 7).ok());
  std::array<int, 512> table{};  // 2 KiB in the handler: more than the room
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<int>(i);
  auto alive = std::make_shared<int>(0);
  int sum = 0;
  {
    Select sel;
    sel.OnRecv(small, [&sum, alive](std::optional<int>) { sum = -1; });
    sel.OnRecv(big, [&sum, table, alive](std::optional<int> v) { sum = table[511] + *v; });
    EXPECT_EQ(sel.Wait(), 1u);
  }
  EXPECT_EQ(sum, 518);
  EXPECT_EQ(alive.use_count(), 1);
}

// A case whose construction throws (its handler's move, inside the Select)
// leaves the Select as it was: its earlier cases still work, nothing leaks.
TEST(Select, ACaseThatThrowsWhileBuiltLeavesTheSelectUsable) {
  struct ThrowsOnMove {
    ThrowsOnMove() = default;
    ThrowsOnMove(const ThrowsOnMove&) = default;
    ThrowsOnMove(ThrowsOnMove&&) { throw std::runtime_error("move"); }
    void operator()(std::optional<int>) const {}
  };
  Channel<int> a(1), b(1);
  ASSERT_TRUE(a.Send(Background(), 1).ok());
  Select sel;
  int got = 0;
  sel.OnRecv(a, [&got](std::optional<int> v) { got = *v; });
  const ThrowsOnMove bad;
  EXPECT_THROW(sel.OnRecv(b, bad), std::runtime_error);
  EXPECT_EQ(sel.Wait(), 0u);
  EXPECT_EQ(got, 1);
}

// A callback waiter (what a poll(2) on an eventfd uses) is called by the
// cancel itself, for a parent's cancel too, and never after Unregister.
TEST(CallbackWaiter, CalledByTheCancelAndNeverAfterUnregister) {
  auto [parent, cancel_parent] = WithCancel(Background());
  auto [ctx, cancel] = WithCancel(parent);
  int calls = 0;
  auto count = [](void* n) { ++*static_cast<int*>(n); };
  detail::Waiter waiter(count, &calls);
  Signal done = ctx.Done();
  ASSERT_TRUE(done.Register(&waiter));
  EXPECT_EQ(calls, 0);
  cancel_parent();
  EXPECT_EQ(calls, 1);  // in the cancelling thread, before cancel returns
  cancel();
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(done.Register(&waiter));  // already done: the caller wakes itself
  done.Unregister(&waiter);

  auto [other, cancel_other] = WithCancel(Background());
  int other_calls = 0;
  detail::Waiter gone(count, &other_calls);
  Signal other_done = other.Done();
  ASSERT_TRUE(other_done.Register(&gone));
  other_done.Unregister(&gone);
  cancel_other();
  EXPECT_EQ(other_calls, 0);
}

}  // namespace
}  // namespace tether
