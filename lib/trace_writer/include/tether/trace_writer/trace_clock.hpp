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

// The two clocks read together, as close as can be: ticks, ns, ticks, the
// point at the middle of the ticks. A read the scheduler cuts into (the
// thread preempted between them, milliseconds on a loaded machine) puts the
// point off by up to half the cut, and two writers' records (a program's
// and its threads' recorder's, each with its own clock) out of order by
// that much: a thread's start came 5 ms after the scope end the thread
// itself made, under load. So the read is repeated, and the one with the
// fewest ticks between its two tick reads kept: at once when that is at most
// kTightPairTicks (about a microsecond; a read takes ~40 ns), else the best
// of kPairTries (each try cut into is unlikely: it is ~50 ns of a
// millisecond-long slice).
constexpr std::uint64_t kTightPairTicks = 4096;
constexpr int kPairTries = 16;

template <typename ReadTicks, typename ReadNs>
ClockPoint ReadTightPair(ReadTicks read_ticks, ReadNs read_ns) {
  ClockPoint best{0, 0};
  std::uint64_t best_span = ~std::uint64_t{0};
  for (int i = 0; i < kPairTries; ++i) {
    const std::uint64_t before = read_ticks();
    const std::int64_t ns = read_ns();
    const std::uint64_t after = read_ticks();
    if (after < before) continue;  // no order between them: not a pair
    if (after - before < best_span) {
      best_span = after - before;
      best = ClockPoint{before + (after - before) / 2, ns};
    }
    if (best_span <= kTightPairTicks) break;
  }
  return best;
}

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
