// Saturating arithmetic on nanosecond timestamps and durations. A trace is
// input: its times may be anything an int64 holds, so every sum or difference
// of two of them clamps to the int64 range instead of overflowing (undefined
// behaviour, and in practice a "-2ns" that means 584 years).
#pragma once

#include <cstdint>
#include <limits>

namespace tether::trace {

inline std::int64_t SaturatingAdd(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    return b > 0 ? std::numeric_limits<std::int64_t>::max()
                 : std::numeric_limits<std::int64_t>::min();
  }
  return r;
}

inline std::int64_t SaturatingSub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) {
    return b < 0 ? std::numeric_limits<std::int64_t>::max()
                 : std::numeric_limits<std::int64_t>::min();
  }
  return r;
}

}  // namespace tether::trace
