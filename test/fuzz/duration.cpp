// Fuzz target: durations as every Tether command line reads and reports them
// (tether::ParseDuration and FormatDuration, Go's dialect). Two round trips,
// either failing aborts:
//  - format then parse gives the value back, for any int64 nanoseconds (the
//    first 8 bytes of the input);
//  - parse then format then parse is stable: a text that parses formats to a
//    text that parses to the same value and formats the same again.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "tether/duration.hpp"

namespace {

using Nanos = std::chrono::nanoseconds;

[[noreturn]] void Mismatch(const char* what, const std::string& text, long long want, long long got) {
  std::fprintf(stderr, "duration round trip: %s: \"%s\": want %lldns, got %lldns\n", what, text.c_str(), want,
               got);
  std::abort();
}

// Format then parse: the value comes back.
void CheckValue(std::int64_t ns) {
  const tether::Duration d = std::chrono::duration_cast<tether::Duration>(Nanos(ns));
  const std::string text = tether::FormatDuration(d);
  tether::Duration back{};
  tether::Error err = tether::ParseDuration(text, &back);
  if (!err.ok()) {
    std::fprintf(stderr, "duration round trip: \"%s\" (%lldns) does not parse: %s\n", text.c_str(),
                 static_cast<long long>(ns), err.message().c_str());
    std::abort();
  }
  if (back != d) Mismatch("format then parse", text, Nanos(d).count(), Nanos(back).count());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size >= sizeof(std::int64_t)) {
    std::int64_t ns;
    std::memcpy(&ns, data, sizeof ns);
    CheckValue(ns);
  }
  const std::string text(reinterpret_cast<const char*>(data), size);
  tether::Duration d{};
  if (!tether::ParseDuration(text, &d).ok()) return 0;
  const std::string formatted = tether::FormatDuration(d);
  tether::Duration again{};
  if (!tether::ParseDuration(formatted, &again).ok() || again != d) {
    Mismatch("parse, format, parse", text + "\" -> \"" + formatted, Nanos(d).count(), Nanos(again).count());
  }
  if (tether::FormatDuration(again) != formatted) {
    Mismatch("format is not stable", formatted, Nanos(d).count(), Nanos(again).count());
  }
  return 0;
}
