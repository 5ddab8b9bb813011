// The exit codes of `tether-worker` and its commands (each command's --help
// lists the ones it uses; docs/worker.md has the table).
#pragma once

namespace tether::worker::cmd {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBuildFailed = 1;     // a build failed or was canceled
inline constexpr int kExitUsage = 2;           // usage or pipeline validation error: nothing ran
inline constexpr int kExitInfrastructure = 3;  // the queue, the results or a build's runtime failed
inline constexpr int kExitNoSuchJob = 4;       // status, cancel
inline constexpr int kExitCorrupt = 5;         // status: the job's record is corrupt
inline constexpr int kExitAlreadyDone = 6;     // cancel: the job had ended

}  // namespace tether::worker::cmd
