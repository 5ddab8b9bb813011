// Fuzz target: tether-worker's sizes (--max-log-size: "10MiB", "0.52MB",
// "100B", plain bytes), parsed exactly in decimal. Every way a size can be
// written exactly is formatted here (plain, B, and each unit with the exact
// decimal fraction: 1536 = "1.5KiB", 520000 = "0.52MB") and must parse back to
// the same bytes; either failing aborts:
//  - format then parse gives the value back, for any uint64 (the first 8
//    bytes of the input);
//  - parse then format then parse is stable: a text that parses gives a value
//    that round-trips the same way.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cmd/flags.hpp"

namespace {

struct Unit {
  const char* name;
  std::uint64_t bytes;
};
constexpr Unit kUnits[] = {
    {"", 1},         {"B", 1},           {"KiB", 1ull << 10},  {"MiB", 1ull << 20},
    {"GiB", 1ull << 30}, {"TiB", 1ull << 40}, {"KB", 1000ull}, {"kB", 1000ull},
    {"MB", 1000000ull}, {"GB", 1000000000ull}, {"TB", 1000000000000ull},
};

// v / unit as an exact decimal ("1.5", "0.52", "3"). unit <= 2^40, so every
// remainder times ten fits in 64 bits; the fraction ends because unit's only
// prime factors are 2 and 5.
std::string ExactQuotient(std::uint64_t v, std::uint64_t unit) {
  std::string s = std::to_string(v / unit);
  std::uint64_t rem = v % unit;
  if (rem != 0) s += '.';
  while (rem != 0) {
    rem *= 10;
    s += static_cast<char>('0' + rem / unit);
    rem %= unit;
  }
  return s;
}

void CheckValue(std::uint64_t bytes) {
  for (const Unit& u : kUnits) {
    const std::string text = ExactQuotient(bytes, u.bytes) + u.name;
    std::uint64_t back = 0;
    tether::Error err = tether::worker::cmd::ParseSize(text, &back);
    if (!err.ok()) {
      std::fprintf(stderr, "size round trip: \"%s\" (%llu bytes) does not parse: %s\n", text.c_str(),
                   static_cast<unsigned long long>(bytes), err.message().c_str());
      std::abort();
    }
    if (back != bytes) {
      std::fprintf(stderr, "size round trip: \"%s\": want %llu bytes, got %llu\n", text.c_str(),
                   static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(back));
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size >= sizeof(std::uint64_t)) {
    std::uint64_t bytes;
    std::memcpy(&bytes, data, sizeof bytes);
    CheckValue(bytes);
  }
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::uint64_t bytes = 0;
  if (tether::worker::cmd::ParseSize(text, &bytes).ok()) CheckValue(bytes);
  return 0;
}
