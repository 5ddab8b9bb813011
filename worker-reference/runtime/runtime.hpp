// The runtime seam (Vela's runtime.Engine): how the executor creates the
// workspace of one build and starts, tails, waits for and stops its
// containers. The executor knows nothing else of how a container runs.
//
// Behind it: ProcessRuntime (a process group per container, process.hpp),
// BwrapRuntime (the same inside bubblewrap, bwrap.hpp), and FakeRuntime
// (scripted containers for the executor's unit tests, fake_runtime.hpp).
//
// Contract, for every runtime:
//  - One Runtime per build, used once: SetupBuild, then containers, then
//    RemoveBuild. Thread-safe: the executor calls it from its stage, stream
//    and destroy tasks at once.
//  - RunContainer starts a container named spec.name (unique in the build);
//    an error means it never ran (nothing to wait for or remove).
//  - TailContainer hands the container's output (stdout and stderr, one
//    stream) to exactly one reader. The output reaches end of file once the
//    container and whatever it started have ended.
//  - WaitContainer waits for a container to end by itself. When ctx is done
//    first it stops the container (StopContainer, then a kill once the kill
//    grace passes or KillNow is called), fills status and returns ctx's error.
//  - StopContainer asks a running container to stop (SIGTERM: the kill grace
//    starts now). RemoveContainer stops it and waits: a kill once the grace
//    passes, ctx is done or KillNow is called.
//  - KillNow ends every kill grace of the build, now and later.
//  - RemoveBuild kills what is left and deletes the workspace.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tether/context.hpp"
#include "tether/error.hpp"

namespace tether::worker::runtime {

// What to run for one container.
struct ProcessSpec {
  std::string name;               // unique in the build
  std::vector<std::string> argv;  // argv[0] is looked up in PATH when it has no '/'
  std::vector<std::string> env;   // "KEY=VALUE", the whole environment
};

// How a container ended. code is the exit status, or 128+signal when a
// signal ended it (as a shell reports it).
struct ExitStatus {
  bool exited = false;  // false while running or never started
  int code = -1;
  int signal = 0;                  // the signal that ended it, if any
  bool stopped_by_worker = false;  // the worker sent SIGTERM/SIGKILL
};

// The read side of a container's output (Vela's TailContainer ReadCloser).
class LogTail {
 public:
  virtual ~LogTail() = default;
  // Reads up to cap bytes into buf (*n of them). Ok with data; Closed at end
  // of file; ctx.Err() when ctx is done first; kIo on a read error. Reads
  // what is ready without waiting; only an empty stream waits (on ctx too).
  virtual Error Read(const Context& ctx, char* buf, std::size_t cap, std::size_t* n) = 0;
  // The same, appending to *out (at most max bytes).
  Error Read(const Context& ctx, std::string* out, std::size_t max);
};

// How a container is confined: a process group on this machine, or the same
// inside bubblewrap (its own pid, ipc and uts namespaces, a read-only root,
// the workspace bind-mounted read-write, a tmpfs /tmp, optionally no network).
enum class Isolation { kProcess, kBwrap };

struct RuntimeOptions {
  std::string workspace_root;  // the build's workspace is created under it
  Duration kill_grace = std::chrono::seconds(10);
  Isolation isolation = Isolation::kProcess;
  bool network_none = false;  // kBwrap: a network namespace of its own (loopback only)
  // The worker's workspace ledger tag: the workspace is ROOT/<build>-<owner>-XXXXXX,
  // so a dead worker's recovery removes its own workspaces only, never a live
  // worker's of the same build id (a rerun) under a shared root. "": ROOT/<build>-XXXXXX.
  std::string workspace_owner = "";
};

class Runtime {
 public:
  virtual ~Runtime() = default;

  virtual Error SetupBuild(const Context& ctx, const std::string& build_id) = 0;
  // The build's workspace directory (empty before SetupBuild).
  virtual const std::string& workspace() const = 0;
  virtual Error RunContainer(const Context& ctx, const ProcessSpec& spec) = 0;
  virtual Error TailContainer(const Context& ctx, const std::string& name,
                              std::unique_ptr<LogTail>* out) = 0;
  virtual Error WaitContainer(const Context& ctx, const std::string& name, ExitStatus* status) = 0;
  virtual void StopContainer(const std::string& name) = 0;
  // status may be null. Removing a container that never ran is no error.
  virtual Error RemoveContainer(const Context& ctx, const std::string& name,
                                ExitStatus* status) = 0;
  virtual void KillNow() = 0;
  virtual Error RemoveBuild(const Context& ctx) = 0;
};

// The runtime options.isolation names: ProcessRuntime or BwrapRuntime.
std::unique_ptr<Runtime> NewRuntime(RuntimeOptions options);

}  // namespace tether::worker::runtime
