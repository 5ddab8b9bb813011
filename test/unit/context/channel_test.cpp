// Channel<T>: Go's chan semantics (buffered, unbuffered, close) with a
// context on every blocking operation.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tether/channel.hpp"

namespace tether {
namespace {

using std::chrono::milliseconds;

TEST(Channel, BufferedHoldsUpToCapacityWithoutAReceiver) {
  Channel<int> ch(3);
  EXPECT_EQ(ch.capacity(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(ch.Send(Background(), i).ok());
  EXPECT_EQ(ch.size(), 3u);
  // Full: a fourth send waits, and gives up when its context ends.
  auto [ctx, cancel] = WithTimeout(Background(), milliseconds(10));
  EXPECT_EQ(ch.Send(ctx, 3).code(), ErrorCode::kDeadlineExceeded);
  cancel();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(ch.TryRecv(), i);  // FIFO
  EXPECT_EQ(ch.TryRecv(), std::nullopt);
}

TEST(Channel, BufferedValuesAreDeliveredAfterClose) {
  Channel<std::string> ch(4);
  EXPECT_TRUE(ch.Send(Background(), "a").ok());
  EXPECT_TRUE(ch.Send(Background(), "b").ok());
  ch.Close();
  ch.Close();  // idempotent
  EXPECT_TRUE(ch.Closed());
  EXPECT_EQ(ch.Send(Background(), "c"), Error::Closed());
  Error err = Error::Failed("unset");
  EXPECT_EQ(ch.Recv(Background(), &err), "a");
  EXPECT_TRUE(err.ok());
  EXPECT_EQ(ch.Recv(Background()), "b");
  EXPECT_EQ(ch.Recv(Background(), &err), std::nullopt);
  EXPECT_EQ(err, Error::Closed());
  EXPECT_EQ(ch.Recv(Background(), &err), std::nullopt);  // stays closed
}

TEST(Channel, UnbufferedSendWaitsForTheReceiver) {
  Channel<int> ch;  // capacity 0
  std::atomic<bool> sent{false};
  std::thread sender([&, ch]() mutable {
    EXPECT_TRUE(ch.Send(Background(), 42).ok());
    sent = true;
  });
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_FALSE(sent.load());  // nobody has taken the value yet
  EXPECT_EQ(ch.size(), 0u);   // and it is not buffered either
  EXPECT_EQ(ch.Recv(Background()), 42);
  sender.join();
  EXPECT_TRUE(sent.load());
}

TEST(Channel, UnbufferedSendGivesUpOnContextAndLeavesNothingBehind) {
  Channel<int> ch;
  auto [ctx, cancel] = WithCancel(Background());
  std::thread canceller([c = cancel] { c(); });
  EXPECT_EQ(ch.Send(ctx, 1).code(), ErrorCode::kCanceled);
  canceller.join();
  EXPECT_EQ(ch.TryRecv(), std::nullopt);  // the withdrawn value is not delivered
}

TEST(Channel, RecvReturnsWhenContextEnds) {
  Channel<int> ch(1);
  auto [ctx, cancel] = WithCancelCause(Background());
  std::thread canceller([c = cancel] { c(Error::Failed("shutdown")); });
  Error err;
  EXPECT_EQ(ch.Recv(ctx, &err), std::nullopt);
  EXPECT_EQ(err.code(), ErrorCode::kCanceled);
  canceller.join();
}

TEST(Channel, DoneContextWinsOverAReadyChannel) {
  Channel<int> ch(2);
  EXPECT_TRUE(ch.Send(Background(), 1).ok());
  auto [ctx, cancel] = WithCancel(Background());
  cancel();
  EXPECT_EQ(ch.Recv(ctx), std::nullopt);
  EXPECT_EQ(ch.Send(ctx, 2).code(), ErrorCode::kCanceled);
  EXPECT_EQ(ch.TryRecv(), 1);  // still there for a receiver whose context is live
}

TEST(Channel, CloseWakesBlockedReceiversAndSenders) {
  Channel<int> unbuffered;
  Channel<int> full(1);
  EXPECT_TRUE(full.Send(Background(), 0).ok());
  std::vector<std::thread> threads;
  std::atomic<int> closed_results{0};
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&] {
      Error err;
      if (!unbuffered.Recv(Background(), &err) && err == Error::Closed()) closed_results++;
    });
  }
  threads.emplace_back([&] {
    if (unbuffered.Send(Background(), 5) == Error::Closed()) closed_results++;
  });
  threads.emplace_back([&] {
    if (full.Send(Background(), 6) == Error::Closed()) closed_results++;
  });
  // The unbuffered send may meet one receiver first: then that pair completes.
  std::this_thread::sleep_for(milliseconds(20));
  unbuffered.Close();
  full.Close();
  for (auto& t : threads) t.join();
  EXPECT_GE(closed_results.load(), 3);
  EXPECT_EQ(full.TryRecv(), 0);  // the buffered value survives the close
}

TEST(Channel, ManyProducersManyConsumersEachValueOnce) {
  for (std::size_t capacity : {std::size_t{0}, std::size_t{1}, std::size_t{16}}) {
    Channel<int> ch(capacity);
    constexpr int kProducers = 4, kPerProducer = 500, kConsumers = 3;
    std::vector<std::thread> producers, consumers;
    std::vector<std::vector<int>> got(kConsumers);
    for (int p = 0; p < kProducers; ++p) {
      producers.emplace_back([&, p] {
        for (int i = 0; i < kPerProducer; ++i) {
          EXPECT_TRUE(ch.Send(Background(), p * kPerProducer + i).ok());
        }
      });
    }
    for (int c = 0; c < kConsumers; ++c) {
      consumers.emplace_back([&, c] {
        while (auto v = ch.Recv(Background())) got[c].push_back(*v);
      });
    }
    for (auto& t : producers) t.join();
    ch.Close();
    for (auto& t : consumers) t.join();
    std::multiset<int> all;
    for (auto& g : got) all.insert(g.begin(), g.end());
    ASSERT_EQ(all.size(), std::size_t{kProducers * kPerProducer}) << "capacity " << capacity;
    int expect = 0;
    for (int v : all) EXPECT_EQ(v, expect++);
  }
}

// Buffered sends and receives take no lock while the ring has room or values
// (channel_impl.hpp); a sleeper announces itself and looks again before it
// sleeps. These fail (a hang, turned into a deadline error) when a wake-up is
// lost between a publish and a sleeper's last look.
TEST(Channel, NoWakeIsLostBetweenAProducerAndAConsumer) {
  for (std::size_t capacity : {std::size_t{1}, std::size_t{2}, std::size_t{128}}) {
    Channel<int> ch(capacity);
    constexpr int kItems = 100000;
    auto [ctx, cancel] = WithTimeout(Background(), std::chrono::seconds(60));
    std::atomic<int> send_errors{0};
    std::thread producer([&, ctx = ctx] {
      for (int i = 0; i < kItems; ++i)
        if (!ch.Send(ctx, i).ok()) send_errors++;
      ch.Close();
    });
    long sum = 0;
    int count = 0;
    Error err;
    while (auto v = ch.Recv(ctx, &err)) {
      EXPECT_EQ(*v, count) << "FIFO, capacity " << capacity;
      sum += *v;
      ++count;
    }
    producer.join();
    cancel();
    EXPECT_EQ(err, Error::Closed()) << "capacity " << capacity;
    EXPECT_EQ(send_errors.load(), 0) << "capacity " << capacity;
    EXPECT_EQ(count, kItems) << "capacity " << capacity;
    EXPECT_EQ(sum, long{kItems} * (kItems - 1) / 2);
  }
}

// A send that races Close() is either refused (Closed) or delivered: never
// accepted and then lost to a receiver that saw the channel closed and empty.
TEST(Channel, SendRacingCloseIsDeliveredOrRefused) {
  for (int round = 0; round < 200; ++round) {
    Channel<int> ch(4);
    std::atomic<int> accepted{0};
    std::vector<std::thread> senders;
    for (int p = 0; p < 3; ++p) {
      senders.emplace_back([&] {
        for (int i = 0; i < 50; ++i) {
          Error e = ch.Send(Background(), i);
          if (e.ok()) {
            accepted++;
          } else {
            EXPECT_EQ(e, Error::Closed());
            return;
          }
        }
      });
    }
    std::atomic<int> received{0};
    std::thread receiver([&] {
      while (ch.Recv(Background())) received++;
    });
    std::thread closer([&] {
      std::this_thread::yield();
      ch.Close();
    });
    closer.join();
    for (auto& t : senders) t.join();
    receiver.join();
    ASSERT_EQ(received.load(), accepted.load()) << "round " << round;
  }
}

// Values never received are destroyed with the channel, once each.
TEST(Channel, ValuesLeftInTheChannelAreDestroyedWithIt) {
  auto token = std::make_shared<int>(0);
  {
    Channel<std::shared_ptr<int>> ch(8);
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(ch.Send(Background(), token).ok());
    EXPECT_EQ(ch.TryRecv(), token);  // one taken (and dropped), four left
    EXPECT_EQ(ch.size(), 4u);
    EXPECT_EQ(token.use_count(), 5);
  }
  EXPECT_EQ(token.use_count(), 1);
}

// The ring wraps around many times; size() stays within 0..capacity.
TEST(Channel, SizeFollowsTheRingAcrossWrapArounds) {
  Channel<int> ch(3);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(ch.Send(Background(), i).ok());
    ASSERT_TRUE(ch.Send(Background(), -i).ok());
    EXPECT_EQ(ch.size(), 2u);
    EXPECT_EQ(ch.TryRecv(), i);
    EXPECT_EQ(ch.TryRecv(), -i);
    EXPECT_EQ(ch.size(), 0u);
  }
}

TEST(Channel, MoveOnlyValuesAndSharedHandles) {
  Channel<std::unique_ptr<int>> ch(1);
  Channel<std::unique_ptr<int>> copy = ch;  // the same channel
  EXPECT_TRUE(ch.Send(Background(), std::make_unique<int>(9)).ok());
  auto v = copy.Recv(Background());
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(**v, 9);
  copy.Close();
  EXPECT_TRUE(ch.Closed());
}

}  // namespace
}  // namespace tether
