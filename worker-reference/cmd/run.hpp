// `tether-worker run [options] PIPELINE.yml...` (see kRunUsage in flags.hpp).
#pragma once

#include <string>

#include "cmd/build_id.hpp"  // BuildIdStem

namespace tether::worker::cmd {

// argv[0] is "run". Returns the process exit status.
int RunCommand(int argc, char** argv);

}  // namespace tether::worker::cmd
