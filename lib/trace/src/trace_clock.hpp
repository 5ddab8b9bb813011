// TraceClock: the timestamps of trace events. The hot path reads the CPU's
// time-stamp counter (about 10 ns, against 26 ns for clock_gettime on the
// machines we measured); ticks become CLOCK_MONOTONIC nanoseconds only when a
// buffer is written out, by interpolating between a calibration pair taken at
// start and a fresh pair taken at each flush. Needs an invariant TSC
// (constant_tsc + nonstop_tsc, every x86-64 CPU of the last decade); other
// architectures read CLOCK_MONOTONIC directly.
#pragma once

#include <cstdint>
#include <ctime>
#include <mutex>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define TETHER_TRACE_HAVE_TSC 1
#else
#define TETHER_TRACE_HAVE_TSC 0
#endif

namespace tether::trace::detail {

inline std::int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Raw event time: TSC ticks (or monotonic ns without a TSC).
inline std::uint64_t NowTicks() {
#if TETHER_TRACE_HAVE_TSC
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(MonotonicNs());
#endif
}

// A tick -> nanosecond conversion valid for ticks read before it was made.
struct TickConversion {
  std::uint64_t base_ticks = 0;
  std::int64_t base_ns = 0;
  double ns_per_tick = 1.0;
  std::int64_t ToNs(std::uint64_t ticks) const {
    double delta = static_cast<double>(static_cast<std::int64_t>(ticks - base_ticks));
    return base_ns + static_cast<std::int64_t>(delta * ns_per_tick);
  }
};

class TraceClock {
 public:
  // Takes the base pair and a first rate estimate (spins ~200 us once).
  TraceClock();
  // Re-reads both clocks and returns a conversion exact for every tick read
  // so far. Call it before converting a batch of events.
  TickConversion Current();

 private:
  std::mutex mu_;
  TickConversion conv_;  // guarded by mu_; base fixed at construction
};

}  // namespace tether::trace::detail
