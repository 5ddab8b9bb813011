// Go-style durations for reports and --grace.
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>

#include "tether/trace/report.hpp"

namespace tether::trace {
namespace {

// "1.500" -> "1.5", "2.000" -> "2" (Go trims trailing zeros of the fraction).
std::string WithFraction(std::uint64_t whole, std::uint64_t frac, int digits) {
  std::string out = std::to_string(whole);
  if (frac == 0) return out;
  std::string f = std::to_string(frac);
  f.insert(0, static_cast<std::size_t>(digits) - f.size(), '0');
  while (!f.empty() && f.back() == '0') f.pop_back();
  return out + "." + f;
}

}  // namespace

std::string FormatDuration(std::int64_t ns) {
  if (ns == 0) return "0s";
  std::string sign = ns < 0 ? "-" : "";
  std::uint64_t u = ns < 0 ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
  if (u >= 1'000'000) {
    u = (u + 500'000) / 1'000'000 * 1'000'000;
  } else if (u >= 1'000) {
    u = (u + 500) / 1'000 * 1'000;
  }
  if (u < 1'000) return sign + std::to_string(u) + "ns";
  if (u < 1'000'000) return sign + WithFraction(u / 1'000, u % 1'000, 3) + "\xC2\xB5s";
  if (u < 1'000'000'000) return sign + WithFraction(u / 1'000'000, u % 1'000'000, 6) + "ms";
  std::uint64_t secs = u / 1'000'000'000;
  std::uint64_t frac = u % 1'000'000'000;
  std::string out = sign;
  if (secs >= 3600) out += std::to_string(secs / 3600) + "h";
  if (secs >= 60) out += std::to_string(secs / 60 % 60) + "m";
  out += WithFraction(secs % 60, frac, 9) + "s";
  return out;
}

Error ParseDuration(const std::string& text, std::int64_t* ns) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorCode::kInvalidArgument,
                 "invalid duration '" + text + "': " + why +
                     " (write it like Go: 500ms, 2s, 1.5s, 1m30s)");
  };
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  if (text.substr(i) == "0") {
    *ns = 0;
    return Error();
  }
  if (i == text.size()) return bad("empty");
  long double total = 0;
  while (i < text.size()) {
    std::size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
    if (i == start) return bad("expected a number at offset " + std::to_string(start));
    long double value;
    try {
      value = std::stold(text.substr(start, i - start));
    } catch (...) {
      return bad("bad number");
    }
    std::size_t ustart = i;
    while (i < text.size() && !std::isdigit(static_cast<unsigned char>(text[i])) && text[i] != '.') ++i;
    std::string unit = text.substr(ustart, i - ustart);
    long double scale;
    if (unit == "ns") scale = 1;
    else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") scale = 1e3;
    else if (unit == "ms") scale = 1e6;
    else if (unit == "s") scale = 1e9;
    else if (unit == "m") scale = 60e9;
    else if (unit == "h") scale = 3600e9;
    else if (unit.empty()) return bad("missing unit");
    else return bad("unknown unit '" + unit + "'");
    total += value * scale;
  }
  if (total > 9.2e18L) return bad("too large");
  *ns = static_cast<std::int64_t>(std::llround(static_cast<double>(total))) * (negative ? -1 : 1);
  return Error();
}

}  // namespace tether::trace
