// The command lines of `tether check`, `trace` and `report`: each command's
// options declared on lib/cli and its usage text, in one place apart from
// what the commands do, so that test/unit/cli/help_test.cpp can hold every
// usage text to the options its command declares. No LLVM here: the check's
// half of the tool (libtether_llvm.so) and the executable both link it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tether/check/runner.hpp"
#include "tether/cli/options.hpp"
#include "tether/duration.hpp"

namespace tether::tool {

extern const char kCheckUsage[];
extern const char kTraceUsage[];
extern const char kReportUsage[];

// The command line, parsed.
struct CheckArgs {
  check::RunOptions options;
  std::vector<std::string> models;
  std::string format = "text", output, export_fixes, graph, sarif_root, baseline_file;
  std::string warnings_as_errors;
  bool have_warnings_as_errors = false;  // given, even empty: then only its findings exit 1
  std::string line_filter, diff;         // --line-filter JSON, --diff FILE
  std::string header_filter;             // --header-filter REGEX
  bool have_header_filter = false;
  bool fix = false, list_checks = false, quiet = false;
};

// The options whose presence (not only value) matters.
struct CheckOptionHandles {
  CLI::Option* warnings_as_errors = nullptr;  // given, even empty
  CLI::Option* header_filter = nullptr;
};
CheckOptionHandles DeclareCheckOptions(cli::Options* cli, CheckArgs* args);

// `tether trace`'s command line.
struct TraceArgs {
  std::string out;
  std::string load;
  Duration grace{};
  std::string format = "text";
  std::string fail_on = "leak";
  std::string threads;                      // "on", "off" or "" (decide from PROG)
  std::vector<std::string> ignore;          // --ignore: frames whose findings are dropped
  std::vector<std::string> ignore_top;      // --ignore-top: where the thread was running, innermost
  std::vector<std::string> ignore_running;  // --ignore-running: any frame of where it was running
  std::vector<std::string> command;
};
void DeclareTraceOptions(cli::Options* cli, TraceArgs* args);

// `tether report`'s formats, as --format names them (report_cmd.cpp's table
// of what each needs and how it is written checks that it has these, in order).
inline constexpr std::string_view kReportFormatNames[] = {"json",     "dot",          "svg", "html",
                                                          "perfetto", "timeline-svg", "text"};

// `tether report`'s command line.
struct ReportArgs {
  std::vector<std::string> inputs;
  std::string format = "json", output, static_path;
  Duration grace{};
  std::uint64_t group_above = 0;  // the caller's default
};
void DeclareReportOptions(cli::Options* cli, ReportArgs* args);

}  // namespace tether::tool
