#include "cmd/flags.hpp"

#include <cctype>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>

#include "tether/worker/pipeline.hpp"

namespace tether::worker::cmd {

namespace {

Error Invalid(std::string message) {
  return Error(ErrorCode::kInvalidArgument, std::move(message));
}

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

// Decimal arithmetic throughout (no binary floating point): "0.52MB" is
// exactly 520000 bytes, "1.5KiB" 1536, and "0.1B" is refused as a fraction
// of a byte rather than rounded.
Error ParseSize(std::string_view text, std::uint64_t* out) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  std::string_view rest = text;
  unsigned __int128 whole;
  std::string_view fraction;
  if (!TakeNumber(&rest, &whole, &fraction)) {
    return Invalid("invalid size " + quoted +
                   " (write it as 10MiB, 512KiB, 100B or a number of bytes)");
  }
  static const std::map<std::string_view, std::uint64_t> kUnits = {
      {"", 1},
      {"B", 1},
      {"KiB", 1ull << 10},
      {"MiB", 1ull << 20},
      {"GiB", 1ull << 30},
      {"TiB", 1ull << 40},
      {"KB", 1'000},
      {"kB", 1'000},
      {"MB", 1'000'000},
      {"GB", 1'000'000'000},
      {"TB", 1'000'000'000'000},
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
    "  --log-streaming-timeout D    how long step logs may drain after a build ended (default: "
    "5m)\n"
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

CLI::Option* DurationOption(cli::Options* cli, const std::string& name, Duration* into,
                            std::function<std::string(Duration)> also) {
  return cli->DurationValue(
      name, into, name + ": missing value", [name, also](Duration d, const std::string& text) {
        const std::string invalid = name + ": invalid duration \"" + text + "\": ";
        if (d < Duration::zero()) return invalid + "must not be negative";
        // Every duration option ends up in a deadline (now + d) in some clock:
        // past kMaxTimeout that sum no longer fits 64 bits of nanoseconds.
        if (d > kMaxTimeout) return invalid + "too long (the maximum is " + kMaxTimeoutText + ")";
        std::string why = also ? also(d) : "";
        return why.empty() ? why : name + ": " + why;
      });
}

CLI::Option* TextOption(cli::Options* cli, const std::string& name, std::string* into,
                        const std::string& empty) {
  return cli->Checked(name, into, name + ": missing value", [name, empty](const std::string& v) {
    return v.empty() ? name + ": " + empty : "";
  });
}

void DeclareRunOptions(cli::Options* cli, RunOptions* out) {
  TextOption(cli, "--results", &out->results_dir, "empty directory name");
  TextOption(cli, "--workspace-root", &out->workspace_root, "empty directory name");
  cli->Converted(
      "--build-limit", "--build-limit: missing value",
      [](const std::string& v) -> std::string {
        char* end = nullptr;
        long n = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || n < 1 || n > 1024)
          return "--build-limit: invalid build limit \"" + v + "\" (a whole number from 1 to 1024)";
        return "";
      },
      [out](const std::string& v) {
        out->build_limit = static_cast<int>(std::strtol(v.c_str(), nullptr, 10));
      });
  DurationOption(cli, "--build-timeout", &out->build_timeout,
                 [](Duration d) { return d <= Duration::zero() ? "must be greater than 0" : ""; });
  DurationOption(cli, "--kill-grace", &out->kill_grace);
  DurationOption(cli, "--log-streaming-timeout", &out->log_streaming_timeout);
  DurationOption(cli, "--shutdown-grace", &out->shutdown_grace);
  cli->Converted(
      "--runtime", "--runtime: missing value",
      [](const std::string& v) -> std::string {
        return v == "process" || v == "bwrap" ? ""
                                              : "--runtime: \"" + v + "\" is not process or bwrap";
      },
      [out](const std::string& v) { out->bwrap = v == "bwrap"; });
  cli->Converted(
      "--network", "--network: missing value",
      [](const std::string& v) -> std::string {
        return v == "host" || v == "none" ? "" : "--network: \"" + v + "\" is not host or none";
      },
      [out](const std::string& v) { out->network_none = v == "none"; });
  cli->Converted(
      "--max-log-size", "--max-log-size: missing value",
      [](const std::string& v) -> std::string {
        std::uint64_t bytes = 0;
        Error err = ParseSize(v, &bytes);
        return err.ok() ? "" : "--max-log-size: " + err.message();
      },
      [out](const std::string& v) { (void)ParseSize(v, &out->max_log_size); });
  cli->Flag("--quiet,-q", &out->quiet);
  cli->Flag("--strict", &out->strict);
  cli->Operands(&out->files);
}

Error ParseDeclared(cli::Options* cli, int argc, char** argv, RunOptions* out) {
  if (std::string problem = cli->Parse(argc, argv); !problem.empty()) return Invalid(problem);
  out->help = cli->Help();
  if (out->network_none && !out->bwrap) return Invalid("--network none needs --runtime bwrap");
  return Error();
}

Error ParseRunOptions(int argc, char** argv, RunOptions* out) {
  cli::Options cli(cli::Style::kBare);
  DeclareRunOptions(&cli, out);
  Error err = ParseDeclared(&cli, argc, argv, out);
  if (err.ok() && !out->help && out->files.empty()) return Invalid("no pipeline files given");
  return err;
}

}  // namespace tether::worker::cmd
