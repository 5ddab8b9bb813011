#include "runtime/reaper.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "runtime/proc_scan.hpp"

namespace tether::worker::runtime {
namespace {

std::mutex g_spawn_mu;
std::set<pid_t> g_mains;  // guarded by g_spawn_mu

// The children of this process, from /proc/self/task/*/children (each
// thread's own children; orphans are reparented to one of the threads).
// Falls back to a scan of /proc when the kernel has no children files.
std::vector<pid_t> Children() {
  std::vector<pid_t> children;
  DIR* tasks = ::opendir("/proc/self/task");
  bool have_children_files = false;
  if (tasks != nullptr) {
    while (dirent* entry = ::readdir(tasks)) {
      if (entry->d_name[0] == '.') continue;
      std::string path = std::string("/proc/self/task/") + entry->d_name + "/children";
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      have_children_files = true;
      std::string text;
      char buf[4096];
      ssize_t n;
      while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
      ::close(fd);
      const char* p = text.c_str();
      char* end = nullptr;
      for (long pid = std::strtol(p, &end, 10); end != p; pid = std::strtol(p, &end, 10)) {
        children.push_back(static_cast<pid_t>(pid));
        p = end;
      }
    }
    ::closedir(tasks);
  }
  if (!have_children_files) {
    for (const ProcInfo& info : ProcessesWithParent(::getpid())) children.push_back(info.pid);
  }
  return children;
}

}  // namespace

std::unique_lock<std::mutex> SpawnLock() { return std::unique_lock<std::mutex>(g_spawn_mu); }

void RegisterMain(pid_t pid) { g_mains.insert(pid); }

void ForgetMain(pid_t pid) {
  std::lock_guard<std::mutex> lock(g_spawn_mu);
  g_mains.erase(pid);
}

int ReapOrphans() {
  std::lock_guard<std::mutex> lock(g_spawn_mu);
  int reaped = 0;
  for (pid_t pid : Children()) {
    if (g_mains.count(pid) != 0) continue;
    int status = 0;
    pid_t got;
    while ((got = ::waitpid(pid, &status, WNOHANG)) < 0 && errno == EINTR) {
    }
    if (got == pid) ++reaped;
  }
  return reaped;
}

}  // namespace tether::worker::runtime
