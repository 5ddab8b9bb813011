#include "runtime/proc_scan.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tether::worker::runtime {
namespace {

bool ReadStat(pid_t pid, ProcInfo* info) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and ')'.
  char* close_paren = std::strrchr(buf, ')');
  if (close_paren == nullptr) return false;
  char state = '?';
  int ppid = 0, pgrp = 0;
  if (std::sscanf(close_paren + 1, " %c %d %d", &state, &ppid, &pgrp) != 3) return false;
  info->pid = pid;
  info->state = state;
  info->ppid = ppid;
  info->pgrp = pgrp;
  return true;
}

template <typename Pred>
std::vector<ProcInfo> ScanProc(Pred keep) {
  std::vector<ProcInfo> found;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return found;
  while (dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0') continue;
    ProcInfo info;
    if (ReadStat(static_cast<pid_t>(pid), &info) && keep(info)) found.push_back(info);
  }
  ::closedir(dir);
  return found;
}

}  // namespace

std::vector<ProcInfo> ProcessesInGroup(pid_t pgrp) {
  return ScanProc([pgrp](const ProcInfo& info) { return info.pgrp == pgrp; });
}

std::vector<ProcInfo> ProcessesWithParent(pid_t ppid) {
  return ScanProc([ppid](const ProcInfo& info) { return info.ppid == ppid; });
}

void ReapProcessGroup(pid_t pgrp) {
  const pid_t self = ::getpid();
  // Bounded: SIGKILLed processes die within milliseconds; the loop only
  // waits for orphans to be reparented to us (~5 s at most).
  for (int round = 0; round < 5000; ++round) {
    if (::kill(-pgrp, SIGKILL) != 0 && errno == ESRCH) return;  // group empty
    // Blocks until one of our children in the group has exited (they are
    // all SIGKILLed), and reaps it; ECHILD when none of them is ours.
    siginfo_t info{};
    if (::waitid(P_PGID, static_cast<id_t>(pgrp), &info, WEXITED) == 0 || errno == EINTR) continue;
    // Members left, none of them our child: either dying processes whose
    // parent just died (they are being reparented to us, the subreaper), or
    // zombies of another reaper, which are not ours to reap.
    bool dying = false;
    for (const ProcInfo& m : ProcessesInGroup(pgrp)) dying |= (m.state != 'Z' || m.ppid == self);
    if (!dying) return;
    timespec pause{0, 1000000};  // 1 ms
    ::nanosleep(&pause, nullptr);
  }
}

}  // namespace tether::worker::runtime
