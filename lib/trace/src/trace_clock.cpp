#include "trace_clock.hpp"

namespace tether::trace::detail {
namespace {
// Reads the two clocks as close together as possible.
void ReadPair(std::uint64_t* ticks, std::int64_t* ns) {
  std::uint64_t before = NowTicks();
  *ns = MonotonicNs();
  std::uint64_t after = NowTicks();
  *ticks = before + (after - before) / 2;
}

double Rate(const TickConversion& base, std::uint64_t ticks, std::int64_t ns) {
  return static_cast<double>(ns - base.base_ns) / static_cast<double>(ticks - base.base_ticks);
}
}  // namespace

TraceClock::TraceClock() {
  ReadPair(&conv_.base_ticks, &conv_.base_ns);
#if TETHER_TRACE_HAVE_TSC
  std::uint64_t ticks;
  std::int64_t ns;
  do {
    ReadPair(&ticks, &ns);
  } while (ns - conv_.base_ns < 200'000 || ticks <= conv_.base_ticks);
  conv_.ns_per_tick = Rate(conv_, ticks, ns);
#endif
}

TickConversion TraceClock::Current() {
  std::lock_guard<std::mutex> lock(mu_);
#if TETHER_TRACE_HAVE_TSC
  std::uint64_t ticks;
  std::int64_t ns;
  ReadPair(&ticks, &ns);
  // A longer baseline only improves the estimate; keep the old one if the
  // clocks disagree (a TSC that went backwards would be a platform bug).
  if (ticks > conv_.base_ticks && ns - conv_.base_ns >= 200'000) {
    conv_.ns_per_tick = Rate(conv_, ticks, ns);
  }
#endif
  return conv_;
}

}  // namespace tether::trace::detail
