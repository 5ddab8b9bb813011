#include "cmd/flags.hpp"

#include <cctype>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "tether/worker/pipeline.hpp"

namespace tether::worker::cmd {

namespace {

Error Invalid(std::string message) { return Error(ErrorCode::kInvalidArgument, std::move(message)); }

// Reads a non-negative decimal number ("12", "1.5", ".5") at the front of s
// exactly: *whole (saturated just past 2^64, enough to say "too large") and
// the fraction's digits, as written.
bool TakeNumber(std::string_view* s, unsigned __int128* whole, std::string_view* fraction) {
  constexpr unsigned __int128 kSaturate = static_cast<unsigned __int128>(1) << 64;
  std::size_t i = 0;
  *whole = 0;
  while (i < s->size() && std::isdigit(static_cast<unsigned char>((*s)[i]))) {
    if (*whole <= kSaturate) *whole = *whole * 10 + static_cast<unsigned>((*s)[i] - '0');
    ++i;
  }
  std::size_t whole_digits = i, fraction_start = i;
  if (i < s->size() && (*s)[i] == '.') {
    fraction_start = ++i;
    while (i < s->size() && std::isdigit(static_cast<unsigned char>((*s)[i]))) ++i;
  }
  *fraction = s->substr(fraction_start, i - fraction_start);
  if (whole_digits == 0 && fraction->empty()) return false;
  s->remove_prefix(i);
  return true;
}

// fraction (decimal digits after the point) times unit, when that is a whole
// number: from the last digit, each partial sum must be a multiple of ten
// (the product is 0.d1d2...dk * unit = sum(di * unit * 10^(k-i)) / 10^k).
// The carry stays below unit, so no number of digits overflows it:
// "0.0000000931322574615478515625GiB" is exactly 100 bytes.
bool FractionBytes(std::string_view fraction, std::uint64_t unit, std::uint64_t* bytes) {
  std::uint64_t carry = 0;
  for (auto it = fraction.rbegin(); it != fraction.rend(); ++it) {
    carry += static_cast<std::uint64_t>(*it - '0') * unit;
    if (carry % 10 != 0) return false;
    carry /= 10;
  }
  *bytes = carry;
  return true;
}

}  // namespace

Error ParseDuration(std::string_view text, Duration* out) {
  if (!text.empty() && text[0] == '-') {
    return Invalid("invalid duration \"" + std::string(text) + "\": must not be negative");
  }
  Duration d{};
  if (Error err = tether::ParseDuration(text, &d); !err.ok()) return err;
  // Every duration option ends up in a deadline (now + d) in some clock: past
  // kMaxTimeout that sum no longer fits 64 bits of nanoseconds.
  if (d > kMaxTimeout) {
    return Invalid("invalid duration \"" + std::string(text) + "\": too long (the maximum is " +
                   kMaxTimeoutText + ")");
  }
  *out = d;
  return Error();
}

// Decimal arithmetic throughout (no binary floating point): "0.52MB" is
// exactly 520000 bytes, "1.5KiB" 1536, and "0.1B" is refused as a fraction
// of a byte rather than rounded.
Error ParseSize(std::string_view text, std::uint64_t* out) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  std::string_view rest = text;
  unsigned __int128 whole;
  std::string_view fraction;
  if (!TakeNumber(&rest, &whole, &fraction)) {
    return Invalid("invalid size " + quoted + " (write it as 10MiB, 512KiB, 100B or a number of bytes)");
  }
  static const std::map<std::string_view, std::uint64_t> kUnits = {
      {"", 1},         {"B", 1},          {"KiB", 1ull << 10}, {"MiB", 1ull << 20},
      {"GiB", 1ull << 30}, {"TiB", 1ull << 40}, {"KB", 1'000},  {"kB", 1'000},
      {"MB", 1'000'000}, {"GB", 1'000'000'000}, {"TB", 1'000'000'000'000},
  };
  auto it = kUnits.find(rest);
  if (it == kUnits.end()) {
    return Invalid("invalid size " + quoted + ": unknown unit \"" + std::string(rest) +
                   "\" (units: B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)");
  }
  std::uint64_t fraction_bytes = 0;
  if (!FractionBytes(fraction, it->second, &fraction_bytes)) {
    return Invalid("invalid size " + quoted + ": not a whole number of bytes");
  }
  // whole <= 2^64 * 10 + 9 and a unit < 2^41: the product fits 128 bits.
  const unsigned __int128 bytes = whole * it->second + fraction_bytes;
  if (bytes > std::numeric_limits<std::uint64_t>::max()) {
    return Invalid("invalid size " + quoted + ": too large (the maximum is " +
                   std::to_string(std::numeric_limits<std::uint64_t>::max()) + " bytes)");
  }
  *out = static_cast<std::uint64_t>(bytes);
  return Error();
}

const char kRunUsage[] =
    "usage: tether-worker run [options] PIPELINE.yml...\n"
    "\n"
    "Runs each pipeline as a build (steps and services are local process groups),\n"
    "writes <results>/<build-id>/build.json and one log file per step and service.\n"
    "\n"
    "options:\n"
    "  --results DIR                where results go (default: tether-results)\n"
    "  --build-limit N              builds run at once (default: 1)\n"
    "  --build-timeout D            a build's timeout unless its pipeline sets one (default: 30m)\n"
    "  --kill-grace D               SIGTERM to SIGKILL when a step is stopped (default: 10s)\n"
    "  --log-streaming-timeout D    how long step logs may drain after a build ended (default: 5m)\n"
    "  --shutdown-grace D           after SIGINT/SIGTERM, time running builds get before they\n"
    "                               are cancelled; a second signal cancels at once (default: 1m)\n"
    "  --max-log-size SIZE          per step or service; 0 = unlimited (default: 100MiB)\n"
    "  --workspace-root DIR         where build workspaces are created (default: a temporary dir)\n"
    "  --runtime process|bwrap      how steps run: process groups here, or each in bubblewrap\n"
    "                               (own pid namespace, read-only root, rw workspace, tmpfs /tmp)\n"
    "  --network host|none          bwrap only: none gives each step a loopback-only network\n"
    "  --quiet                      no live log lines on stdout\n"
    "  --strict                     every pipeline warning (a setting Vela drops or\n"
    "                               overrides) is an error: nothing runs\n"
    "\n"
    "Durations as Go writes them (30m, 2s, 500ms, 1h30m); sizes as 10MiB, 512KiB, 100B.\n"
    "Exit status: 0 every build succeeded, 1 a build failed or was canceled,\n"
    "2 usage or pipeline validation error (nothing ran), 3 infrastructure error.\n";

Error ParseRunOptions(int argc, char** argv, RunOptions* out) {
  Error err = ParseWorkerOptions(argc, argv, {}, out);
  if (err.ok() && !out->help && out->files.empty()) return Invalid("no pipeline files given");
  return err;
}

Error ParseWorkerOptions(int argc, char** argv, const std::map<std::string, OptionSetter>& extra, RunOptions* out) {
  using Setter = OptionSetter;
  auto duration = [](Duration* target, bool positive) -> Setter {
    return [target, positive](const std::string& flag, const std::string& value) {
      Error err = ParseDuration(value, target);
      if (!err.ok()) return Invalid(flag + ": " + err.message());
      if (positive && *target <= Duration::zero()) return Invalid(flag + ": must be greater than 0");
      return Error();
    };
  };
  std::map<std::string, Setter> with_value = {
      {"--results", [out](const std::string& f, const std::string& v) {
         if (v.empty()) return Invalid(f + ": empty directory name");
         out->results_dir = v;
         return Error();
       }},
      {"--workspace-root", [out](const std::string& f, const std::string& v) {
         if (v.empty()) return Invalid(f + ": empty directory name");
         out->workspace_root = v;
         return Error();
       }},
      {"--build-limit", [out](const std::string& f, const std::string& v) {
         char* end = nullptr;
         long n = std::strtol(v.c_str(), &end, 10);
         if (v.empty() || *end != '\0' || n < 1 || n > 1024) {
           return Invalid(f + ": invalid build limit \"" + v + "\" (a whole number from 1 to 1024)");
         }
         out->build_limit = static_cast<int>(n);
         return Error();
       }},
      {"--build-timeout", duration(&out->build_timeout, true)},
      {"--kill-grace", duration(&out->kill_grace, false)},
      {"--log-streaming-timeout", duration(&out->log_streaming_timeout, false)},
      {"--shutdown-grace", duration(&out->shutdown_grace, false)},
      {"--runtime", [out](const std::string& f, const std::string& v) {
         if (v != "process" && v != "bwrap") return Invalid(f + ": \"" + v + "\" is not process or bwrap");
         out->bwrap = v == "bwrap";
         return Error();
       }},
      {"--network", [out](const std::string& f, const std::string& v) {
         if (v != "host" && v != "none") return Invalid(f + ": \"" + v + "\" is not host or none");
         out->network_none = v == "none";
         return Error();
       }},
      {"--max-log-size", [out](const std::string& f, const std::string& v) {
         Error err = ParseSize(v, &out->max_log_size);
         return err.ok() ? err : Invalid(f + ": " + err.message());
       }},
  };
  for (const auto& [flag, setter] : extra) with_value[flag] = setter;
  // An option given twice is a mistake (which one was meant?), not "the last wins".
  std::set<std::string> seen;
  auto once = [&seen](const std::string& flag) {
    if (seen.insert(flag).second) return Error();
    return Invalid(flag + " given twice");
  };
  bool only_files = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (only_files || arg.empty() || arg[0] != '-' || arg == "-") {
      out->files.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_files = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      out->help = true;
      continue;
    }
    if (arg == "--quiet" || arg == "-q") {
      if (Error err = once("--quiet"); !err.ok()) return err;
      out->quiet = true;
      continue;
    }
    if (arg == "--strict") {
      if (Error err = once("--strict"); !err.ok()) return err;
      out->strict = true;
      continue;
    }
    std::string flag = arg, value;
    bool has_value = false;
    if (std::size_t eq = arg.find('='); eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    auto it = with_value.find(flag);
    if (it == with_value.end()) return Invalid("unknown option " + flag);
    if (Error err = once(flag); !err.ok()) return err;
    if (!has_value) {
      if (i + 1 >= argc) return Invalid(flag + ": missing value");
      value = argv[++i];
    }
    if (Error err = it->second(flag, value); !err.ok()) return err;
  }
  if (out->network_none && !out->bwrap) return Invalid("--network none needs --runtime bwrap");
  return Error();
}

}  // namespace tether::worker::cmd
