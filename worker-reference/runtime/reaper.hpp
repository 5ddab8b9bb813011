// The worker as the reaper of what its steps leave behind.
//
// The worker is a child subreaper (PR_SET_CHILD_SUBREAPER): a process that
// leaves its step (setsid, a double fork) and whose parent exits is
// reparented to the worker. When it exits, nobody but the worker can reap
// it, so ReapOrphans reaps every child of the worker that is not the main
// process of a running container (those are waited on through their pidfd,
// and their exit status must stay theirs).
//
// Contract: every main process the runtime starts is registered while the
// spawn lock is held (SpawnLock), and forgotten once it was reaped; so
// ReapOrphans, which holds the same lock, never reaps a main process, not
// even one that exits before its spawn returned.
#pragma once

#include <sys/types.h>

#include <mutex>

namespace tether::worker::runtime {

// Held across starting a main process and registering it.
std::unique_lock<std::mutex> SpawnLock();
// With SpawnLock held.
void RegisterMain(pid_t pid);
// After the main process was reaped (any thread).
void ForgetMain(pid_t pid);

// Reaps every child of this process that has exited and is not a
// registered main process; returns how many. Never blocks on a running one.
int ReapOrphans();

}  // namespace tether::worker::runtime
