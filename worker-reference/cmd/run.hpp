// `tether-worker run [options] PIPELINE.yml...` (see kRunUsage in flags.hpp).
#pragma once

#include <string>

#include "cmd/build_id.hpp"  // BuildIdStem

namespace tether::worker::cmd {

// argv[0] is "run". Returns the process exit status.
int RunCommand(int argc, char** argv);

// What run and serve do before any thread exists: SIGINT/SIGTERM blocked (the
// signal task reads a signalfd), SIGPIPE ignored, the process a child
// subreaper, the results directory created, a temporary workspace root when
// none was given (*own_workspace_root: remove it at the end). Returns 0, or
// the exit status after printing why.
struct RunOptions;
int PrepareWorkerProcess(const char* command, RunOptions* options, bool* own_workspace_root);

}  // namespace tether::worker::cmd
