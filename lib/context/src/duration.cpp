// Go's time.ParseDuration and Duration.String(), for every Tether command line.
#include "tether/duration.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <utility>

namespace tether {
namespace {

Error Invalid(std::string message) { return Error(ErrorCode::kInvalidArgument, std::move(message)); }

// Reads a non-negative decimal number ("12", "1.5", ".5") at the front of s.
bool TakeNumber(std::string_view* s, long double* value) {
  std::size_t i = 0;
  long double v = 0;
  bool digits = false;
  while (i < s->size() && (*s)[i] >= '0' && (*s)[i] <= '9') {
    v = v * 10 + ((*s)[i] - '0');
    ++i;
    digits = true;
  }
  if (i < s->size() && (*s)[i] == '.') {
    ++i;
    long double scale = 0.1L;
    while (i < s->size() && (*s)[i] >= '0' && (*s)[i] <= '9') {
      v += ((*s)[i] - '0') * scale;
      scale /= 10;
      ++i;
      digits = true;
    }
  }
  if (!digits) return false;
  s->remove_prefix(i);
  *value = v;
  return true;
}

// "1.500" -> "1.5": Go trims the trailing zeros of the fraction.
std::string WithFraction(std::int64_t v, std::int64_t unit) {
  std::string s = std::to_string(v / unit);
  std::int64_t rem = v % unit;
  if (rem != 0) {
    std::string digits = std::to_string(rem + unit).substr(1);  // zero-padded
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    s += "." + digits;
  }
  return s;
}

}  // namespace

Error ParseDuration(std::string_view text, Duration* out) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  std::string_view rest = text;
  bool negative = false;
  if (!rest.empty() && (rest[0] == '-' || rest[0] == '+')) {
    negative = rest[0] == '-';
    rest.remove_prefix(1);
  }
  if (rest == "0") {
    *out = Duration::zero();
    return Error();
  }
  if (rest.empty()) return Invalid("invalid duration " + quoted + ": empty");
  static const std::pair<std::string_view, long double> kUnits[] = {
      {"ns", 1},   {"us", 1e3}, {"\xC2\xB5s", 1e3}, {"\xCE\xBCs", 1e3},
      {"ms", 1e6}, {"s", 1e9},  {"m", 60e9},        {"h", 3600e9},
  };
  long double total_ns = 0;
  while (!rest.empty()) {
    long double value;
    if (!TakeNumber(&rest, &value)) {
      return Invalid("invalid duration " + quoted + " (write it as Go does: 30m, 2s, 500ms, 1h30m)");
    }
    std::size_t len = 0;
    while (len < rest.size() && !(rest[len] >= '0' && rest[len] <= '9') && rest[len] != '.') ++len;
    std::string_view unit = rest.substr(0, len);
    rest.remove_prefix(len);
    long double scale = 0;
    for (const auto& [name, ns] : kUnits) {
      if (unit == name) scale = ns;
    }
    if (scale == 0) {
      return Invalid("invalid duration " + quoted + ": " +
                     (unit.empty() ? std::string("missing unit")
                                   : "unknown unit \"" + std::string(unit) + "\"") +
                     " (units: ns, us, ms, s, m, h)");
    }
    total_ns += value * scale;
  }
  if (total_ns > 9.2e18L) return Invalid("invalid duration " + quoted + ": too large");
  auto ns = static_cast<std::int64_t>(std::llround(total_ns));
  *out = std::chrono::duration_cast<Duration>(std::chrono::nanoseconds(negative ? -ns : ns));
  return Error();
}

std::string FormatDuration(Duration d) {
  std::int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  if (ns == 0) return "0s";
  std::string sign = ns < 0 ? "-" : "";
  if (ns < 0) ns = -ns;
  if (ns < 1000) return sign + std::to_string(ns) + "ns";
  if (ns < 1000000) return sign + WithFraction(ns, 1000) + "\xC2\xB5s";
  if (ns < 1000000000) return sign + WithFraction(ns, 1000000) + "ms";
  std::string out;
  std::int64_t hours = ns / 3600000000000LL;
  ns %= 3600000000000LL;
  std::int64_t minutes = ns / 60000000000LL;
  ns %= 60000000000LL;
  if (hours > 0) out += std::to_string(hours) + "h";
  if (hours > 0 || minutes > 0) out += std::to_string(minutes) + "m";
  out += WithFraction(ns, 1000000000) + "s";
  return sign + out;
}

}  // namespace tether
