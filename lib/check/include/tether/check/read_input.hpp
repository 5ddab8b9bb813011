// The checker's access to lib/io's input rules, for the parts built on Clang
// (runner.cpp), which do not see lib/io's headers themselves.
#pragma once

#include <string>

namespace tether::check {

// Whether LLVM may be given `path` to read: "" when it is a regular file within
// the input cap, or does not exist (the caller reports absence its own way);
// else "PATH: error: WHY" (a directory, a FIFO that would block LLVM for ever,
// a device, a file over the cap).
std::string RefuseUnreadableInput(const std::string& path);

}  // namespace tether::check
