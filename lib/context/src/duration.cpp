// Go's time.ParseDuration and Duration.String(), for every Tether command line.
#include "tether/duration.hpp"

#include <chrono>
#include <cstdint>
#include <utility>

namespace tether {
namespace {

Error Invalid(std::string message) {
  return Error(ErrorCode::kInvalidArgument, std::move(message));
}

// Past this many nanoseconds a value cannot fit a Duration: 2^63, which only
// a negative duration may reach.
constexpr unsigned __int128 kLimit = static_cast<unsigned __int128>(1) << 63;

// Reads "12", "1.5" or ".5" at the front of s as an exact decimal: the integer
// part in *whole (saturated just past kLimit, so "too large" stays visible)
// and the fraction as *fraction / *scale (at most 19 digits are kept; the
// rest cannot change a value in nanoseconds, whose largest unit is 3.6e12).
bool TakeNumber(std::string_view* s, unsigned __int128* whole, std::uint64_t* fraction,
                std::uint64_t* scale) {
  std::size_t i = 0;
  bool digits = false;
  *whole = 0;
  *fraction = 0;
  *scale = 1;
  while (i < s->size() && (*s)[i] >= '0' && (*s)[i] <= '9') {
    if (*whole <= kLimit) *whole = *whole * 10 + static_cast<unsigned>((*s)[i] - '0');
    ++i;
    digits = true;
  }
  if (i < s->size() && (*s)[i] == '.') {
    ++i;
    while (i < s->size() && (*s)[i] >= '0' && (*s)[i] <= '9') {
      if (*scale < 10'000'000'000'000'000'000ull) {
        *fraction = *fraction * 10 + static_cast<unsigned>((*s)[i] - '0');
        *scale *= 10;
      }
      ++i;
      digits = true;
    }
  }
  if (!digits) return false;
  s->remove_prefix(i);
  return true;
}

// "1.500" -> "1.5": Go trims the trailing zeros of the fraction.
std::string WithFraction(std::uint64_t v, std::uint64_t unit) {
  std::string s = std::to_string(v / unit);
  std::uint64_t rem = v % unit;
  if (rem != 0) {
    std::string digits = std::to_string(rem + unit).substr(1);  // zero-padded
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    s += "." + digits;
  }
  return s;
}

}  // namespace

// Exact integer arithmetic (no floating point): every value Go can write
// reads back to the same nanosecond, and a sum past the int64 range is
// "too large", never wrapped. A fraction below one nanosecond is truncated,
// as Go does.
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
  static const std::pair<std::string_view, std::uint64_t> kUnits[] = {
      {"ns", 1},         {"us", 1'000},        {"\xC2\xB5s", 1'000},  {"\xCE\xBCs", 1'000},
      {"ms", 1'000'000}, {"s", 1'000'000'000}, {"m", 60'000'000'000}, {"h", 3'600'000'000'000},
  };
  const unsigned __int128 limit = negative ? kLimit : kLimit - 1;
  unsigned __int128 total_ns = 0;
  while (!rest.empty()) {
    unsigned __int128 whole;
    std::uint64_t fraction, scale;
    if (!TakeNumber(&rest, &whole, &fraction, &scale)) {
      return Invalid("invalid duration " + quoted +
                     " (write it as Go does: 30m, 2s, 500ms, 1h30m)");
    }
    std::size_t len = 0;
    while (len < rest.size() && !(rest[len] >= '0' && rest[len] <= '9') && rest[len] != '.') ++len;
    std::string_view unit = rest.substr(0, len);
    rest.remove_prefix(len);
    std::uint64_t ns_per_unit = 0;
    for (const auto& [name, ns] : kUnits) {
      if (unit == name) ns_per_unit = ns;
    }
    if (ns_per_unit == 0) {
      return Invalid("invalid duration " + quoted + ": " +
                     (unit.empty() ? std::string("missing unit")
                                   : "unknown unit \"" + std::string(unit) + "\"") +
                     " (units: ns, us, ms, s, m, h)");
    }
    // whole <= 2^63 + 9 and ns_per_unit < 2^42: the product fits 128 bits.
    total_ns +=
        whole * ns_per_unit + static_cast<unsigned __int128>(fraction) * ns_per_unit / scale;
    if (total_ns > limit) {
      return Invalid("invalid duration " + quoted + ": too large (the maximum is " +
                     FormatDuration(Duration::max()) + ")");
    }
  }
  const auto magnitude = static_cast<std::uint64_t>(total_ns);
  // -2^63 is representable; negate in unsigned arithmetic to reach it.
  const auto ns = static_cast<std::int64_t>(negative ? ~magnitude + 1 : magnitude);
  *out = std::chrono::duration_cast<Duration>(std::chrono::nanoseconds(ns));
  return Error();
}

std::string FormatDuration(Duration d) {
  std::int64_t signed_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  if (signed_ns == 0) return "0s";
  std::string sign = signed_ns < 0 ? "-" : "";
  // The magnitude in unsigned arithmetic: -(-2^63) does not fit an int64.
  std::uint64_t ns = static_cast<std::uint64_t>(signed_ns);
  if (signed_ns < 0) ns = ~ns + 1;
  if (ns < 1000) return sign + std::to_string(ns) + "ns";
  if (ns < 1000000) return sign + WithFraction(ns, 1000) + "\xC2\xB5s";
  if (ns < 1000000000) return sign + WithFraction(ns, 1000000) + "ms";
  std::string out;
  std::uint64_t hours = ns / 3600000000000ULL;
  ns %= 3600000000000ULL;
  std::uint64_t minutes = ns / 60000000000ULL;
  ns %= 60000000000ULL;
  if (hours > 0) out += std::to_string(hours) + "h";
  if (hours > 0 || minutes > 0) out += std::to_string(minutes) + "m";
  out += WithFraction(ns, 1000000000) + "s";
  return sign + out;
}

}  // namespace tether
