// The exit codes of `tether` and its commands (each command's page in docs/
// lists the ones it uses; CI steps test them).
#pragma once

namespace tether::tool {

inline constexpr int kExitClean = 0;     // nothing found
inline constexpr int kExitFindings = 1;  // findings (zombies, leaks, diagnostics)
// A usage, input or tool error: the run produced nothing to trust.
inline constexpr int kExitError = 2;
// `tether trace`: the program failed (non-zero status or a signal) and there
// were no findings to fail on.
inline constexpr int kExitProgramFailed = 3;

}  // namespace tether::tool
