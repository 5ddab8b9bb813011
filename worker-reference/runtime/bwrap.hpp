// The bubblewrap runtime: the process runtime, with every container's
// command run inside `bwrap` (its own pid, ipc and uts namespaces, a
// read-only root, the workspace bind-mounted read-write, a tmpfs /tmp, and
// with options.network_none a network namespace of its own: loopback only).
// The process group, cgroup, pipe and kill grace are the process runtime's;
// bwrap is the group's main process (Process::set_main_is_wrapper).
#pragma once

#include <string>
#include <vector>

#include "runtime/process.hpp"

namespace tether::worker::runtime {

class BwrapRuntime final : public ProcessRuntime {
 public:
  explicit BwrapRuntime(Options options) : ProcessRuntime(std::move(options)) {}

 protected:
  std::vector<std::string> ConfinedArgv(const std::vector<std::string>& argv) const override;
};

}  // namespace tether::worker::runtime
