// Starting a container's main process straight into its cgroup: clone3(2)
// with CLONE_INTO_CGROUP, so not even a process it forks at once can be
// outside the cgroup (posix_spawn cannot do this, and moving the process
// after it started would race with its first fork).
#pragma once

#include <sys/types.h>

#include "tether/error.hpp"

namespace tether::worker::runtime {

// Everything the child needs, prepared by the parent: after the fork of a
// multi-threaded process the child may not allocate, lock or log.
struct SpawnPlan {
  const char* path;  // resolved: the child does no PATH search
  char* const* argv;
  char* const* envp;
  const char* cwd;
  int output_fd;  // becomes stdout and stderr
};

// Starts plan in a new session in the cgroup cgroup_fd (an O_DIRECTORY fd),
// stdin on /dev/null, no fd of the worker beyond 0-2, an empty signal mask
// and default signal dispositions. *pid and *pidfd on success; an error
// naming why the program could not be started otherwise (nothing is left
// running then): kIo when the program could not be executed, kFailed when
// clone3 itself failed (too old a kernel, or refused by a seccomp filter).
Error SpawnIntoCgroup(const SpawnPlan& plan, int cgroup_fd, pid_t* pid, int* pidfd);

}  // namespace tether::worker::runtime
