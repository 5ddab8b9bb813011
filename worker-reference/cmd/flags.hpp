// Command-line values of tether-worker: durations written as Go writes them
// (30m, 2s, 500ms, 1h30m, 1.5h), sizes with binary or decimal units
// (10MiB, 512KiB, 100B, 1GB, or plain bytes), and the options of `run`.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tether/context.hpp"
#include "tether/duration.hpp"
#include "tether/error.hpp"

namespace tether::worker::cmd {

// tether::ParseDuration (Go's), refusing negative values (no option of the
// worker takes one) and values over kMaxTimeout (each becomes a deadline).
// Error: kInvalidArgument. (FormatDuration is tether's.)
Error ParseDuration(std::string_view text, Duration* out);
// "10MiB" = 10 * 2^20, "10MB" = 10 * 10^6, "100B" or "100" = 100 bytes;
// fractions in decimal, exactly ("0.52MB" = 520000). Error: kInvalidArgument.
Error ParseSize(std::string_view text, std::uint64_t* out);

struct RunOptions {
  std::string results_dir = "tether-results";
  int build_limit = 1;
  Duration build_timeout = std::chrono::minutes(30);
  Duration kill_grace = std::chrono::seconds(10);
  Duration log_streaming_timeout = std::chrono::minutes(5);
  Duration shutdown_grace = std::chrono::minutes(1);
  std::uint64_t max_log_size = 100ull << 20;  // 0: unlimited
  bool quiet = false;
  bool strict = false;         // --strict: a pipeline warning is an error (run, submit)
  std::string workspace_root;  // empty: a fresh temporary directory
  bool bwrap = false;          // --runtime bwrap (default: process)
  bool network_none = false;   // --network none (bwrap only)
  bool help = false;
  std::vector<std::string> files;
};

// Parses `run`'s arguments (argv[0] is "run"). Error: kInvalidArgument with
// a message naming the option.
Error ParseRunOptions(int argc, char** argv, RunOptions* out);
// The same options plus `extra` (serve's), without requiring files.
using OptionSetter = std::function<Error(const std::string& flag, const std::string& value)>;
Error ParseWorkerOptions(int argc, char** argv, const std::map<std::string, OptionSetter>& extra, RunOptions* out);
extern const char kRunUsage[];

}  // namespace tether::worker::cmd
