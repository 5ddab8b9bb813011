// Durations in reports: Go's notation (tether::FormatDuration), rounded.
#include <chrono>
#include <cstdint>
#include <string>

#include "tether/duration.hpp"
#include "tether/trace/report.hpp"

namespace tether::trace {

std::string FormatReportDuration(std::int64_t ns) {
  // The magnitude in unsigned arithmetic: -(-2^63) does not fit an int64,
  // and rounding up near either end must not wrap.
  constexpr std::uint64_t kMax = static_cast<std::uint64_t>(INT64_MAX);
  std::uint64_t magnitude = static_cast<std::uint64_t>(ns);
  if (ns < 0) magnitude = ~magnitude + 1;
  std::uint64_t unit = magnitude >= 1'000'000 ? 1'000'000 : magnitude >= 1'000 ? 1'000 : 1;
  std::uint64_t rounded = (magnitude + unit / 2) / unit * unit;
  if (rounded > kMax) rounded = kMax / unit * unit;
  std::int64_t value = static_cast<std::int64_t>(rounded);
  return FormatDuration(std::chrono::nanoseconds(ns < 0 ? -value : value));
}

}  // namespace tether::trace
