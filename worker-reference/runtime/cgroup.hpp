// Containment with cgroup v2: every container runs in a cgroup of its own,
// inside one cgroup per build, so that no process of a step outlives it,
// whatever it does (setsid, a double fork, closing its pipes): when the
// container ends, cgroup.kill SIGKILLs every process in its cgroup at once,
// and the build's cgroup is killed the same way when the build is destroyed.
//
// Where: a directory `tether-worker-<pid>` below the worker's own
// cgroup in the cgroup v2 hierarchy (found in /proc/self/cgroup and
// /proc/self/mountinfo), created at the first use and removed at exit.
// Containment needs a writable cgroup v2 hierarchy with cgroup.kill (Linux
// 5.14+): root, or a delegated subtree (systemd `Delegate=yes`). When the
// worker cannot create one, CgroupRoot() is empty and containers are
// process groups only (a process that leaves its group is then not stopped
// with its step; docs/worker.md, "Containment").
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "tether/error.hpp"

namespace tether::worker::runtime {

// The directory under which build cgroups are created; empty when this
// process cannot contain its children in cgroups. Thread-safe; decided once,
// and then the trees of dead workers are swept (SweepDeadWorkers).
const std::string& CgroupRoot();

// Kills what still runs in the cgroup trees of workers that died without
// removing theirs (SIGKILL, a crash), and removes the trees: a dead worker's
// steps and services would otherwise run on beside their reruns. A worker
// sweeps when it starts (CgroupRoot) and `serve` every kDeadWorkerSweep
// after, so a worker already running notices a neighbour's death. Says so on
// stderr for each tree that still held processes; returns how many trees
// were removed (0 without cgroups).
int SweepDeadWorkers();
inline constexpr std::chrono::seconds kDeadWorkerSweep{5};

// One cgroup directory that this process created. Destroying it kills
// whatever still runs in it and removes the directory (and its children).
class Cgroup {
 public:
  // Creates parent/name. Error kIo when it cannot.
  static Error Create(const std::string& parent, const std::string& name,
                      std::unique_ptr<Cgroup>* out);
  ~Cgroup();
  Cgroup(const Cgroup&) = delete;
  Cgroup& operator=(const Cgroup&) = delete;

  const std::string& path() const { return path_; }
  // An O_DIRECTORY descriptor of the cgroup (for clone3's CLONE_INTO_CGROUP).
  int fd() const { return fd_; }
  // SIGKILLs every process in the cgroup and its descendants (cgroup.kill),
  // then waits (up to about 5 s) until none is left alive.
  void KillAll();
  // True while a live process is in the cgroup or below it.
  bool Populated() const;

 private:
  Cgroup(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_;
};

}  // namespace tether::worker::runtime
