// A runtime of scripted containers, for the executor's unit tests (as
// go-vela/worker tests its executor against a mock runtime): no process is
// started and no file is written. Each container follows the FakeScript
// given for its name: what it prints, how long it runs, how it ends, how it
// answers a stop. The kill grace is real time, as in ProcessRuntime.
//
// Every call is written to an event log (Events()), so a test can check the
// order the executor drives a build in:
//   "setup BUILD"  "run NAME"  "spawn-error NAME"  "tail NAME"  "eof NAME"
//   "exit NAME CODE"  "stop NAME"  "kill NAME"  "remove NAME"  "kill-now"
//   "remove-build"
// "exit" is the container's end (CODE 143 after a stop, 137 after a kill);
// "eof" is when its reader saw the end of its output.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"
#include "tether/channel.hpp"
#include "tether/signal.hpp"
#include "tether/task.hpp"

namespace tether::worker::runtime {

struct FakeScript {
  std::vector<std::string> output;          // printed when it starts, in order
  Duration runs_for{};                      // then it runs this long...
  int exit_code = 0;                        // ...and exits with this code
  bool runs_until_stopped = false;          // or it never ends by itself (a service)
  std::vector<std::string> output_on_stop;  // printed after SIGTERM (a goodbye)
  bool ignores_sigterm = false;             // ends only when killed
  bool fails_to_start = false;              // RunContainer fails (a spawn error)
  // Something it started holds its output open after it ended: the output
  // reaches end of file only at RemoveBuild (the cgroup kill).
  bool output_outlives_it = false;
};

class FakeRuntime final : public Runtime {
 public:
  explicit FakeRuntime(RuntimeOptions options);
  // Ends what still runs and joins the containers' timers.
  ~FakeRuntime() override;
  FakeRuntime(const FakeRuntime&) = delete;
  FakeRuntime& operator=(const FakeRuntime&) = delete;

  // The script of the container named name (before the build runs). A
  // container without one prints nothing and exits 0 at once.
  void Script(const std::string& name, FakeScript script);
  std::vector<std::string> Events() const;

  Error SetupBuild(const Context& ctx, const std::string& build_id) override;
  const std::string& workspace() const override { return workspace_; }
  Error RunContainer(const Context& ctx, const ProcessSpec& spec) override;
  Error TailContainer(const Context& ctx, const std::string& name,
                      std::unique_ptr<LogTail>* out) override;
  Error WaitContainer(const Context& ctx, const std::string& name, ExitStatus* status) override;
  void StopContainer(const std::string& name) override;
  Error RemoveContainer(const Context& ctx, const std::string& name, ExitStatus* status) override;
  void KillNow() override;
  Error RemoveBuild(const Context& ctx) override;

 private:
  struct Container;
  Container* Find(const std::string& name) const;
  void Record(std::string event);
  // Ends c (idempotent): its status, its goodbye after a stop, its output closed.
  void End(Container& c, int code, int signal);
  void Terminate(Container& c);  // SIGTERM
  // Waits until c ended, the kill grace since its stop passed, ctx is done or
  // KillNow was called; kills it if it still runs.
  void AwaitEndOrKill(const Context& ctx, Container& c);

  const RuntimeOptions options_;
  std::string workspace_;
  Signal kill_now_ = Signal::Make();
  // The context of a line's send to its container's output: never waits (the
  // channel has room for every line a script prints), so nothing cancels it.
  const Context sends_;
  TaskGroup timers_;  // one task per container with runs_for: ends it on time
  mutable std::mutex mu_;
  std::map<std::string, FakeScript> scripts_;                  // guarded by mu_
  std::map<std::string, std::unique_ptr<Container>> started_;  // guarded by mu_
  std::vector<std::string> events_;                            // guarded by mu_
};

}  // namespace tether::worker::runtime
