// The subcommands of `tether`. Each returns the process exit code:
// 0 clean, 1 findings (zombies, leaks, diagnostics), 2 usage or tool error.
#pragma once

#include <iosfwd>
#include <string>

namespace tether::tool {

// llvm_module.cpp: loads libtether_llvm.so and runs its RunCheckCommand.
int RunCheck(int argc, char** argv);
int RunTrace(int argc, char** argv);   // trace_cmd.cpp
int RunReport(int argc, char** argv);  // report_cmd.cpp
int PrintVersion(std::ostream& out);   // version.cpp

// In libtether_llvm.so (check_cmd.cpp), reached through RunCheck above: the
// checker itself, which needs LLVM and Clang.
int RunCheckCommand(int argc, char** argv);

}  // namespace tether::tool
