#include "tether/trace_writer/trace_clock.hpp"

#include <algorithm>

namespace tether::trace::detail {
namespace {
ClockPoint ReadPair() { return ReadTightPair(NowTicks, MonotonicNs); }

std::int64_t Interpolate(const ClockPoint& a, const ClockPoint& b, std::uint64_t ticks) {
  const double rate = static_cast<double>(b.ns - a.ns) / static_cast<double>(b.ticks - a.ticks);
  const double delta = static_cast<double>(static_cast<std::int64_t>(ticks - a.ticks));
  return a.ns + static_cast<std::int64_t>(delta * rate);
}
}  // namespace

std::int64_t TickConversion::ToNs(std::uint64_t ticks) const {
  if (count < 2) return static_cast<std::int64_t>(ticks);  // no TSC: ticks are ns
  // Most records fall in the last interval (the point taken at this drain
  // and the one before): the same answer as the search below, without it.
  // Past the last point (the table is full): the mean rate, as below.
  if (ticks >= points[count - 2].ticks) {
    if (ticks < points[count - 1].ticks)
      return Interpolate(points[count - 2], points[count - 1], ticks);
    return Interpolate(points[0], points[count - 1], ticks);
  }
  // The last point at or before ticks (the first one for earlier ticks).
  const ClockPoint* end = points + count;
  const ClockPoint* after = std::upper_bound(
      points, end, ticks, [](std::uint64_t t, const ClockPoint& p) { return t < p.ticks; });
  if (after == points) return Interpolate(points[0], points[1], ticks);
  if (after == end) return Interpolate(points[0], points[count - 1], ticks);
  return Interpolate(after[-1], after[0], ticks);
}

TraceClock::TraceClock() {
  points_[0] = ReadPair();
  count_ = 1;
#if TETHER_TRACE_HAVE_TSC
  ClockPoint p;
  do {
    p = ReadPair();
  } while (p.ns - points_[0].ns < 200'000 || p.ticks <= points_[0].ticks);
  points_[count_++] = p;
#endif
}

TickConversion TraceClock::Current() {
  std::lock_guard<std::mutex> lock(mu_);
#if TETHER_TRACE_HAVE_TSC
  const ClockPoint p = ReadPair();
  const ClockPoint& last = points_[count_ - 1];
  // Clocks that disagree (a TSC that went backwards would be a platform bug)
  // add nothing.
  if (count_ < kMaxPoints && p.ticks > last.ticks && p.ns > last.ns) points_[count_++] = p;
  return TickConversion{points_, count_};
#else
  return TickConversion{points_, 0};
#endif
}

}  // namespace tether::trace::detail
