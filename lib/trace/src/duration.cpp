// Durations in reports: Go's notation (tether::FormatDuration), rounded.
#include <chrono>
#include <cstdint>
#include <string>

#include "tether/duration.hpp"
#include "tether/trace/report.hpp"

namespace tether::trace {

std::string FormatReportDuration(std::int64_t ns) {
  std::int64_t magnitude = ns < 0 ? -ns : ns;
  std::int64_t unit = magnitude >= 1'000'000 ? 1'000'000 : magnitude >= 1'000 ? 1'000 : 1;
  std::int64_t rounded = (magnitude + unit / 2) / unit * unit;
  return FormatDuration(std::chrono::nanoseconds(ns < 0 ? -rounded : rounded));
}

}  // namespace tether::trace
