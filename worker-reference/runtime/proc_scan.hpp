// Reaping what is left of a process group after its leader was reaped.
#pragma once

#include <sys/types.h>

#include <vector>

namespace tether::worker::runtime {

struct ProcInfo {
  pid_t pid = 0;
  pid_t ppid = 0;
  pid_t pgrp = 0;
  char state = '?';
};

// Every process in /proc whose process group is pgrp.
std::vector<ProcInfo> ProcessesInGroup(pid_t pgrp);
// Every process in /proc whose parent is ppid.
std::vector<ProcInfo> ProcessesWithParent(pid_t ppid);

// SIGKILLs the group pgrp until it is empty and reaps every member that is
// (or becomes, through PR_SET_CHILD_SUBREAPER) a child of this process.
// Cheap when the group is already empty (one kill(2)). Members that are
// neither ours nor alive (zombies of another reaper) are left to it.
void ReapProcessGroup(pid_t pgrp);

}  // namespace tether::worker::runtime
