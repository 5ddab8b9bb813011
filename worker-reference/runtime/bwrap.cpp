#include "runtime/bwrap.hpp"

namespace tether::worker::runtime {

// No --die-with-parent: its "parent" is the thread that started bwrap, and
// a detached step outlives the stage task that started it. (A worker that
// dies is covered by the cgroup: the next worker kills its stale tree.)
std::vector<std::string> BwrapRuntime::ConfinedArgv(const std::vector<std::string>& argv) const {
  const std::string& ws = workspace();
  std::vector<std::string> wrapped = {"bwrap",
                                      "--unshare-pid",
                                      "--unshare-ipc",
                                      "--unshare-uts",
                                      "--ro-bind",
                                      "/",
                                      "/",
                                      "--dev",
                                      "/dev",
                                      "--proc",
                                      "/proc",
                                      "--tmpfs",
                                      "/tmp",
                                      "--bind",
                                      ws,
                                      ws,
                                      "--chdir",
                                      ws};
  if (options().network_none) wrapped.push_back("--unshare-net");
  wrapped.push_back("--");
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

}  // namespace tether::worker::runtime
