// EventRing's early mark (lib/trace_writer/include/tether/trace_writer/event_ring.hpp): a thread's
// ring asks for a flush when half full (HasRoom fails there once), then takes records up to its
// whole size; after a drain the mark applies again. The exit ring has no mark.
#include "tether/trace_writer/event_ring.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <new>

namespace tether::trace::detail {
namespace {

constexpr std::size_t kHalf = EventRing::kSlots / 2;

// Commits n one-slot records; false at the first one without room.
bool Record(EventRing& ring, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (!ring.HasRoom(1)) return false;
    new (ring.SlotAddress(0)) Slot{EventType::kEnd, 0, 0, 0, 0, i, 0, 0, 0, 0, {}};
    ring.Commit(1);
  }
  return true;
}

std::size_t DrainAll(EventRing& ring) {
  std::lock_guard<std::mutex> lock(ring.consume_mu);
  return ring.Drain([](const Slot&, std::string_view) {});
}

TEST(EventRing, ThreadRingStopsAtItsEarlyMarkOnce) {
  auto ring = std::make_unique<EventRing>(kHalf);
  ASSERT_TRUE(Record(*ring, kHalf));
  EXPECT_FALSE(ring->HasRoom(1)) << "half full: the owner must ask for a flush";
  EXPECT_TRUE(ring->PassEarlyMark());
  EXPECT_FALSE(ring->PassEarlyMark()) << "asked already, no flush yet";
  ASSERT_TRUE(Record(*ring, EventRing::kSlots - kHalf));
  EXPECT_FALSE(ring->HasRoom(1)) << "full";
  EXPECT_EQ(DrainAll(*ring), EventRing::kSlots);
  // Drained: the mark applies again.
  ASSERT_TRUE(Record(*ring, kHalf));
  EXPECT_FALSE(ring->HasRoom(1));
  EXPECT_TRUE(ring->PassEarlyMark());
}

TEST(EventRing, MarkAppliesAgainAfterTheFlushersDrain) {
  auto ring = std::make_unique<EventRing>(kHalf);
  ASSERT_TRUE(Record(*ring, kHalf));
  ASSERT_FALSE(ring->HasRoom(1));
  ASSERT_TRUE(ring->PassEarlyMark());
  ASSERT_TRUE(Record(*ring, 10));
  EXPECT_EQ(DrainAll(*ring), kHalf + 10);  // the flusher came
  ASSERT_TRUE(Record(*ring, kHalf));       // room again, up to the mark
  EXPECT_FALSE(ring->HasRoom(1)) << "the mark applies after the flusher's drain";
}

TEST(EventRing, ExitRingHasNoEarlyMark) {
  auto ring = std::make_unique<EventRing>();
  ASSERT_TRUE(Record(*ring, EventRing::kSlots));
  EXPECT_FALSE(ring->HasRoom(1));
  EXPECT_FALSE(ring->PassEarlyMark()) << "no mark to pass";
}

}  // namespace
}  // namespace tether::trace::detail
