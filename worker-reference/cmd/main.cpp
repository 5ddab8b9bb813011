// tether-worker: the reference CI build worker.
#include <cstring>
#include <iostream>

#include "cmd/exit_codes.hpp"
#include "cmd/run.hpp"
#include "cmd/serve.hpp"
#include "cmd/validate.hpp"
#include "git_commit.hpp"  // TETHER_GIT_COMMIT, regenerated on every build
#include "tether/worker/pipeline.hpp"

using tether::worker::cmd::kExitOk;
using tether::worker::cmd::kExitUsage;

namespace {

const char kUsage[] =
    "usage: tether-worker <command> [args]\n"
    "\n"
    "commands:\n"
    "  run [options] PIPELINE.yml...   run pipelines as builds (see: tether-worker run --help)\n"
    "  validate PIPELINE.yml...        check pipelines without running them\n"
    "  serve [options]                 run builds from a queue until SIGTERM (see: serve --help)\n"
    "  submit [--queue Q] PIPELINE.yml...  queue pipelines as builds; prints the job ids\n"
    "  status [--queue Q] [--json] JOB  a queued build's state and result\n"
    "  cancel [--queue Q] JOB          cancel a queued or running build\n"
    "  version                         the version and the commit it was built from\n"
    "\n"
    "Exit status: 0 success, 1 a build failed, 2 usage or validation error,\n"
    "3 infrastructure error.\n";

bool IsCommand(const char* name) {
  for (const char* command : {"run", "serve", "submit", "status", "cancel", "validate"})
    if (!std::strcmp(name, command)) return true;
  return false;
}

int Dispatch(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  const char* command = argv[1];
  if (!std::strcmp(command, "help") && argc > 2) {
    // `tether-worker help run` is `tether-worker run --help`, as `tether help
    // check` is (and git's and go's help).
    char help_flag[] = "--help";
    char* help_argv[] = {argv[0], argv[2], help_flag, nullptr};
    if (!IsCommand(argv[2])) {
      std::cerr << "tether-worker help: unknown command '" << argv[2] << "'\n" << kUsage;
      return kExitUsage;
    }
    return Dispatch(3, help_argv);
  }
  if (!std::strcmp(command, "--help") || !std::strcmp(command, "-h") ||
      !std::strcmp(command, "help")) {
    std::cout << kUsage;
    return kExitOk;
  }
  if (!std::strcmp(command, "--version") || !std::strcmp(command, "version")) {
    // The form of `tether --version`: a bug report quotes these lines.
    std::cout << "tether-worker " << TETHER_VERSION << "\n"
              << "commit: " << TETHER_GIT_COMMIT << "\n"
              << "compiler: " << TETHER_CXX_COMPILER << "\n";
    return kExitOk;
  }
  if (!std::strcmp(command, "run")) return tether::worker::cmd::RunCommand(argc - 1, argv + 1);
  if (!std::strcmp(command, "serve")) return tether::worker::cmd::ServeCommand(argc - 1, argv + 1);
  if (!std::strcmp(command, "submit"))
    return tether::worker::cmd::SubmitCommand(argc - 1, argv + 1);
  if (!std::strcmp(command, "status"))
    return tether::worker::cmd::StatusCommand(argc - 1, argv + 1);
  if (!std::strcmp(command, "cancel"))
    return tether::worker::cmd::CancelCommand(argc - 1, argv + 1);
  if (!std::strcmp(command, "validate"))
    return tether::worker::cmd::RunValidate(argc - 1, argv + 1);
  std::cerr << "tether-worker: unknown command '" << command << "'\n" << kUsage;
  return kExitUsage;
}

}  // namespace

// Nothing escapes uncaught: an exception no command handled is a defect,
// reported as such with the usage exit status (never an abort and a core).
int main(int argc, char** argv) {
  try {
    return Dispatch(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "tether-worker: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "tether-worker: internal error: unknown exception\n";
  }
  return kExitUsage;
}
