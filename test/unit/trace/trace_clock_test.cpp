// TraceClock's calibration reads (lib/trace_writer/trace_clock.hpp), with
// scripted clocks: a read the scheduler cut into is not the one kept.
#include "tether/trace_writer/trace_clock.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace tether::trace::detail {
namespace {

// Clocks that answer from a script, one value a read.
struct ScriptedClocks {
  std::vector<std::uint64_t> ticks;
  std::vector<std::int64_t> ns;
  std::size_t next_tick = 0;
  std::size_t next_ns = 0;
  std::uint64_t ReadTicks() { return ticks.at(next_tick++); }
  std::int64_t ReadNs() { return ns.at(next_ns++); }
};

ClockPoint Read(ScriptedClocks& c) {
  return ReadTightPair([&c] { return c.ReadTicks(); }, [&c] { return c.ReadNs(); });
}

// The first read was preempted for 5 ms (15,000,000 ticks at 3 GHz) between
// its tick reads: kept, it would put the point 2.5 ms off. The second is
// tight, and is the one kept; no third read is made.
TEST(TraceClockPair, AReadCutIntoByTheSchedulerIsNotKept) {
  ScriptedClocks c;
  c.ticks = {1'000'000, 16'000'000, 16'000'300, 16'000'420};
  c.ns = {5'000'000, 5'333'400};
  const ClockPoint p = Read(c);
  EXPECT_EQ(p.ticks, 16'000'360u);
  EXPECT_EQ(p.ns, 5'333'400);
  EXPECT_EQ(c.next_tick, 4u);
}

// Every read is slower than a tight one: the tightest of the tries is kept,
// after kPairTries of them.
TEST(TraceClockPair, WhenNoReadIsTightTheTightestIsKept) {
  ScriptedClocks c;
  std::uint64_t t = 0;
  for (int i = 0; i < kPairTries; ++i) {
    const std::uint64_t span = i == 7 ? kTightPairTicks + 10 : kTightPairTicks * 50;
    c.ticks.push_back(t);
    c.ticks.push_back(t + span);
    c.ns.push_back(1000 * i);
    t += span + 100;
  }
  const ClockPoint p = Read(c);
  EXPECT_EQ(p.ns, 7000);
  EXPECT_EQ(p.ticks, c.ticks[14] + (kTightPairTicks + 10) / 2);
  EXPECT_EQ(c.next_tick, static_cast<std::size_t>(2 * kPairTries));
}

// A tick read that went backwards (a TSC read on another, unsynchronised
// core) makes no pair.
TEST(TraceClockPair, TicksThatGoBackwardsMakeNoPair) {
  ScriptedClocks c;
  c.ticks = {9'000, 8'000, 10'000, 10'100};
  c.ns = {1, 2};
  const ClockPoint p = Read(c);
  EXPECT_EQ(p.ticks, 10'050u);
  EXPECT_EQ(p.ns, 2);
}

// Conversion: linear between the points around a tick; past the last one,
// at the mean rate of all of them.
TEST(TraceClockConversion, InterpolatesBetweenPointsAndExtrapolatesPastTheLast) {
  const ClockPoint points[] = {{1000, 100}, {3000, 1100}, {5000, 1900}};
  const TickConversion conv{points, 3};
  EXPECT_EQ(conv.ToNs(2000), 600);   // 0.5 ns a tick between the first two
  EXPECT_EQ(conv.ToNs(4000), 1500);  // 0.4 ns a tick between the last two
  EXPECT_EQ(conv.ToNs(7000), 2800);  // 0.45 ns a tick, the mean
  EXPECT_EQ(conv.ToNs(1000), 100);
}

// The real clocks: two points taken in turn are in order.
TEST(TraceClock, ConversionsOfLaterTicksAreLater) {
  TraceClock clock;
  const std::uint64_t a = NowTicks();
  const std::uint64_t b = NowTicks();
  const TickConversion conv = clock.Current();
  EXPECT_LE(conv.ToNs(a), conv.ToNs(b));
  EXPECT_GE(conv.count, 2u);
}

}  // namespace
}  // namespace tether::trace::detail
