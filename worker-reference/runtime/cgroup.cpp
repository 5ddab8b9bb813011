#include "runtime/cgroup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

namespace tether::worker::runtime {
namespace {

bool WriteFile(const std::string& path, const char* text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = ::write(fd, text, std::strlen(text));
  ::close(fd);
  return n == static_cast<ssize_t>(std::strlen(text));
}

// The mount point of the cgroup v2 hierarchy, from /proc/self/mountinfo
// ("... - cgroup2 cgroup2 rw,..."): /sys/fs/cgroup on a unified host,
// /sys/fs/cgroup/unified on a hybrid one.
std::string Cgroup2Mount() {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::size_t dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line.substr(0, dash));
    std::string id, parent, devno, root, mount_point;
    if (fields >> id >> parent >> devno >> root >> mount_point && root == "/") return mount_point;
  }
  return "";
}

// This process's cgroup in the v2 hierarchy ("0::/path" in /proc/self/cgroup).
std::string OwnCgroup() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, 3, "0::") == 0) return line.substr(3);
  }
  return "";
}

bool Populated(const std::string& dir) {
  std::ifstream in(dir + "/cgroup.events");
  std::string key, value;
  while (in >> key >> value) {
    if (key == "populated") return value != "0";
  }
  return false;  // gone
}

// Removes dir and every cgroup below it, deepest first (rmdir is how a
// cgroup is removed; its files go with it).
void RemoveTree(const std::string& dir) {
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* entry = ::readdir(d)) {
      if (entry->d_type == DT_DIR && entry->d_name[0] != '.') RemoveTree(dir + "/" + entry->d_name);
    }
    ::closedir(d);
  }
  ::rmdir(dir.c_str());
}

// Trees of workers that died without removing theirs (SIGKILL, a crash):
// whatever still runs in them is killed, and they are removed. A worker is
// known dead when its pid does not exist (workers sharing one cgroup share
// a pid namespace). Returns how many trees were removed.
int RemoveStaleTrees(const std::string& parent) {
  DIR* d = ::opendir(parent.c_str());
  if (d == nullptr) return 0;
  const char prefix[] = "tether-worker-";
  int removed = 0;
  while (dirent* entry = ::readdir(d)) {
    if (std::strncmp(entry->d_name, prefix, sizeof prefix - 1) != 0) continue;
    char* end = nullptr;
    long pid = std::strtol(entry->d_name + sizeof prefix - 1, &end, 10);
    if (end == entry->d_name + sizeof prefix - 1 || *end != '\0' || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::string dir = parent + "/" + entry->d_name;
    const bool populated = Populated(dir);
    WriteFile(dir + "/cgroup.kill", "1");
    for (int i = 0; i < 1000 && Populated(dir); ++i) {
      timespec pause{0, 1000000};  // 1 ms
      ::nanosleep(&pause, nullptr);
    }
    RemoveTree(dir);
    if (populated)
      std::fprintf(stderr, "tether-worker: killed the processes left by dead worker %ld (%s)\n",
                   pid, dir.c_str());
    ++removed;
  }
  ::closedir(d);
  return removed;
}

std::string g_root;    // written once, under CgroupRoot's once_flag
std::string g_parent;  // the cgroup g_root is in; the same

void RemoveRootAtExit() {
  if (!g_root.empty()) RemoveTree(g_root);
}

}  // namespace

const std::string& CgroupRoot() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* off = std::getenv("TETHER_WORKER_NO_CGROUP");
    if (off != nullptr && *off != '\0') return;
    std::string mount = Cgroup2Mount();
    std::string own = OwnCgroup();
    if (mount.empty() || own.empty()) return;
    std::string parent = mount + (own == "/" ? "" : own);
    RemoveStaleTrees(parent);
    g_parent = parent;
    std::string dir = parent + "/tether-worker-" + std::to_string(::getpid());
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return;
    struct stat st {};
    if (::stat((dir + "/cgroup.kill").c_str(), &st) != 0) {  // before Linux 5.14
      ::rmdir(dir.c_str());
      return;
    }
    g_root = dir;
    std::atexit(RemoveRootAtExit);
  });
  return g_root;
}

int SweepDeadWorkers() {
  if (CgroupRoot().empty()) return 0;
  return RemoveStaleTrees(g_parent);
}

Error Cgroup::Create(const std::string& parent, const std::string& name,
                     std::unique_ptr<Cgroup>* out) {
  std::string path = parent + "/" + name;
  if (::mkdir(path.c_str(), 0755) != 0) {
    return Error(ErrorCode::kIo, "cannot create cgroup " + path + ": " + std::strerror(errno));
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    Error err(ErrorCode::kIo, "cannot open cgroup " + path + ": " + std::strerror(errno));
    ::rmdir(path.c_str());
    return err;
  }
  out->reset(new Cgroup(std::move(path), fd));
  return Error();
}

Cgroup::~Cgroup() {
  KillAll();
  ::close(fd_);
  RemoveTree(path_);
}

bool Cgroup::Populated() const { return runtime::Populated(path_); }

void Cgroup::KillAll() {
  if (!Populated()) return;
  WriteFile(path_ + "/cgroup.kill", "1");
  // SIGKILLed processes are gone within milliseconds; bounded anyway.
  for (int i = 0; i < 5000 && Populated(); ++i) {
    timespec pause{0, 1000000};  // 1 ms
    ::nanosleep(&pause, nullptr);
  }
}

}  // namespace tether::worker::runtime
