// `tether-worker run [options] PIPELINE.yml...` (see kRunUsage in flags.hpp).
#pragma once

#include <string>

namespace tether::worker::cmd {

// argv[0] is "run". Returns the process exit status.
int RunCommand(int argc, char** argv);
// The build-id stem of a pipeline file: its name without .yml/.yaml, with
// every character that is not [A-Za-z0-9._-] replaced by '_'.
std::string BuildIdStem(const std::string& file);

}  // namespace tether::worker::cmd
