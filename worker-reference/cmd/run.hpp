// `tether-worker run [options] PIPELINE.yml...` (see kRunUsage in flags.hpp).
#pragma once

#include <memory>
#include <string>

#include "cmd/build_id.hpp"  // BuildIdStem
#include "cmd/workspace_ledger.hpp"

namespace tether::worker::cmd {

// argv[0] is "run". Returns the process exit status.
int RunCommand(int argc, char** argv);

// What run and serve do before any thread exists: SIGINT/SIGTERM blocked (the
// signal task reads a signalfd), SIGPIPE ignored, the process a child
// subreaper, the results directory created, a temporary workspace root when
// none was given (*own_workspace_root: remove it at the end), the workspaces
// of dead workers in that root (or, for the default, in every default root)
// recovered, and this worker's *ledger opened (see workspace_ledger.hpp).
// Returns 0, or the exit status after printing why.
struct RunOptions;
int PrepareWorkerProcess(const char* command, RunOptions* options, bool* own_workspace_root,
                         std::unique_ptr<WorkspaceLedger>* ledger);

}  // namespace tether::worker::cmd
