// The subcommands of `tether`. Each returns the process exit code:
// 0 clean, 1 findings (zombies, leaks, diagnostics), 2 usage or tool error.
#pragma once

#include <iosfwd>
#include <string>

namespace tether::tool {

int RunCheck(int argc, char** argv);   // check_cmd.cpp (or check_disabled.cpp)
int RunTrace(int argc, char** argv);   // trace_cmd.cpp
int RunReport(int argc, char** argv);  // report_cmd.cpp
int PrintVersion(std::ostream& out);   // version.cpp

}  // namespace tether::tool
