// TraceClock: the timestamps of trace events. The hot path reads the CPU's
// time-stamp counter (about 10 ns, against 26 ns for clock_gettime on the
// machines we measured); ticks become CLOCK_MONOTONIC nanoseconds only when a
// buffer is written out, by interpolating between a calibration pair taken at
// start and a fresh pair taken at each flush. Needs an invariant TSC
// (constant_tsc + nonstop_tsc, every x86-64 CPU of the last decade); other
// architectures read CLOCK_MONOTONIC directly.
#pragma once

#include <cstddef>
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

// A calibration point: the two clocks read together.
struct ClockPoint {
  std::uint64_t ticks;
  std::int64_t ns;
};

// A tick -> nanosecond conversion: linear between the calibration points
// around a tick. Points are only ever added (one per conversion made, taken
// after the events to convert were read), so a tick converts to the same
// nanoseconds whenever it is written out: records written long after their
// neighbours (a thread's last records, a flushed ring) compare consistently
// with those written at once (a scope's end).
struct TickConversion {
  const ClockPoint* points = nullptr;  // points[0..count), ticks and ns increasing
  std::size_t count = 0;
  std::int64_t ToNs(std::uint64_t ticks) const;
};

class TraceClock {
 public:
  // Takes the first two points (spins ~200 us once).
  TraceClock();
  // Adds a point (while there is room) and returns a conversion exact for
  // every tick read before the call.
  TickConversion Current();

 private:
  // 256 KiB. When full, ticks after the last point are extrapolated at the
  // mean rate over all the points: still the same answer at every call.
  static constexpr std::size_t kMaxPoints = 16384;
  std::mutex mu_;
  std::size_t count_ = 0;  // guarded by mu_; points_[0..count_) never change
  ClockPoint points_[kMaxPoints];
};

}  // namespace tether::trace::detail
