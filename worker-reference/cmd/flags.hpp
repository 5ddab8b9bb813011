// Command-line values of tether-worker: durations written as Go writes them
// (30m, 2s, 500ms, 1h30m, 1.5h), sizes with binary or decimal units
// (10MiB, 512KiB, 100B, 1GB, or plain bytes), and the options of `run`,
// declared with lib/cli (CLI11).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tether/cli/options.hpp"
#include "tether/context.hpp"
#include "tether/duration.hpp"
#include "tether/error.hpp"

namespace tether::worker::cmd {

// Sizes are parsed by lib/cli ("10MiB", "512KiB", "100B", "1GB").
using cli::ParseSize;

struct RunOptions {
  std::string results_dir = "tether-results";
  int build_limit = 1;
  Duration build_timeout = std::chrono::minutes(30);
  Duration kill_grace = std::chrono::seconds(10);
  Duration log_streaming_timeout = std::chrono::minutes(5);
  Duration shutdown_grace = std::chrono::minutes(1);
  std::uint64_t max_log_size = 100ull << 20;  // 0: unlimited
  bool quiet = false;
  bool strict = false;              // --strict: a pipeline warning is an error (run, submit)
  std::string workspace_root;       // empty: a fresh temporary directory
  std::string runtime = "process";  // --runtime process|bwrap
  std::string network = "host";     // --network host|none
  bool bwrap = false;               // --runtime bwrap
  bool network_none = false;        // --network none (bwrap only)
  bool help = false;
  // After a refused command line: whether the usage text would help (a bad
  // option or value), or the problem is a path (cli::Options::UsageHelps).
  bool usage_helps = true;
  std::vector<std::string> files;
};

// Parses `run`'s arguments (argv[0] is "run"). Error: kInvalidArgument with
// a message naming the option.
Error ParseRunOptions(int argc, char** argv, RunOptions* out);
// Declares run's options on *cli (serve declares its own beside them), and
// parses argv with the options declared: the checks across options too.
void DeclareRunOptions(cli::Options* cli, RunOptions* out);
Error ParseDeclared(cli::Options* cli, int argc, char** argv, RunOptions* out);
// A duration option of the worker: Go's notation, within `bounds` and never
// over kMaxTimeout (each becomes a deadline).
CLI::Option* DurationOption(cli::Options* cli, const std::string& name, Duration* into,
                            cli::DurationBounds bounds = {});
extern const char kRunUsage[];

// A command of tether-worker as `--help` shows it, with a function that
// declares its options (into values of its own): test/unit/cli/help_test.cpp
// holds each usage text to the options its command declares.
struct CommandHelp {
  std::string name;
  std::string usage;
  std::function<void(cli::Options*)> declare;
};
CommandHelp RunHelp();

}  // namespace tether::worker::cmd
