// `tether`: the one command of Tether. Each subcommand lives in its own file
// (check_cmd.cpp, trace_cmd.cpp, report_cmd.cpp) behind the signatures in
// commands.hpp; this file only dispatches.
#include <cstring>
#include <exception>
#include <iostream>
#include <string_view>

#include "commands.hpp"
#include "exit_codes.hpp"

using tether::tool::kExitClean;
using tether::tool::kExitError;

namespace {

constexpr const char* kUsage =
    "usage: tether <command> [options]\n"
    "\n"
    "commands:\n"
    "  check    find detached contexts and unwaited tasks in C++ code (Clang)\n"
    "  trace    run a program under the tracer and report zombie and leaked tasks\n"
    "  report   render a trace or a static graph as JSON, DOT, SVG, HTML or Perfetto\n"
    "  version  print the version, the git commit and the Clang it was built with\n"
    "\n"
    "Run `tether <command> --help` (or `tether help <command>`) for a command's options.\n";

}  // namespace

namespace {

int Dispatch(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return kExitError;
  }
  std::string_view cmd = argv[1];
  // Subcommands see argv from their own name on: argv[0] == "check", ...
  int sub_argc = argc - 1;
  char** sub_argv = argv + 1;
  if (cmd == "check") return tether::tool::RunCheck(sub_argc, sub_argv);
  if (cmd == "trace") return tether::tool::RunTrace(sub_argc, sub_argv);
  if (cmd == "report") return tether::tool::RunReport(sub_argc, sub_argv);
  if (cmd == "version" || cmd == "--version") return tether::tool::PrintVersion(std::cout);
  if (cmd == "help" && argc > 2) {
    // `tether help check` is `tether check --help`, as git and go have it.
    std::string_view topic = argv[2];
    char help_flag[] = "--help";
    char* help_argv[] = {argv[2], help_flag, nullptr};
    if (topic == "check") return tether::tool::RunCheck(2, help_argv);
    if (topic == "trace") return tether::tool::RunTrace(2, help_argv);
    if (topic == "report") return tether::tool::RunReport(2, help_argv);
    std::cerr << "tether help: unknown command '" << topic << "'\n" << kUsage;
    return kExitError;
  }
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    std::cout << kUsage;
    return kExitClean;
  }
  std::cerr << "tether: unknown command '" << cmd << "'\n" << kUsage;
  return kExitError;
}

}  // namespace

// Nothing escapes main: every loader reports its own input errors, so an
// exception reaching here is a defect of tether itself, reported as one.
int main(int argc, char** argv) {
  try {
    return Dispatch(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "tether: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "tether: internal error: unknown exception\n";
  }
  return kExitError;
}
