// Plain std::threads started inside libtether's own scopes and tasks, under
// `tether trace --threads on` (test/trace/libtether-scope-threads.test): each
// is charged to the tether::Scope current on the creating thread, as a
// libtether task would be. The line numbers are checked by the test: add
// lines at the end only.
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "tether/tether.hpp"

namespace {

void Forever() {
  for (;;) pause();
}

// A std::thread started inside a Scope, still running when the scope ends.
void ThreadOutlivesScope() {
  tether::Scope scope(tether::Background(), "request 1");
  std::thread(Forever).detach();
}

// A std::thread started by a libtether task of the scope, still running when
// the scope ends; the task itself has ended by then (it is running once it
// fires started, and TasksRunning counts it until its end is recorded).
void TaskThreadOutlivesScope() {
  tether::Scope scope(tether::Background(), "request 2");
  tether::Signal started = tether::Signal::Make();
  tether::Go(scope.context(), "handler", [started] {
    std::thread(Forever).detach();
    started.Fire();
  });
  started.Wait();
  while (tether::TasksRunning() != 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// A std::thread started inside a Scope and joined before the scope ends.
void ThreadJoinedInScope() {
  tether::Scope scope(tether::Background(), "request 3");
  std::thread([] {}).join();
}

// A std::thread started inside a Scope that never ends: a leak at exit,
// charged to the scope.
void ThreadInScopeNeverEnded() {
  auto* scope = new tether::Scope(tether::Background(), "request 4");
  std::thread(Forever).detach();
  (void)scope;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "scope") == 0) ThreadOutlivesScope();
  if (std::strcmp(mode, "task") == 0) TaskThreadOutlivesScope();
  if (std::strcmp(mode, "joined") == 0) ThreadJoinedInScope();
  if (std::strcmp(mode, "never-ended") == 0) ThreadInScopeNeverEnded();
  return 0;
}
