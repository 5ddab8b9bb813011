// trace-probe: small programs on libtether, one scenario each, for the trace
// lit tests and the runtime unit tests. Each scenario is deterministic: a
// task outlives its scope because it waits for a signal fired only after the
// scope ended, never because of a sleep.
//
//   trace-probe clean | zombie | late | leak | unwaited | detached | nested |
//               crash | fail | chatty | names | env | stress TASKS THREADS |
//               out-of-order | cross-end | after-func | late-child | kill-after-end |
//               killed-later | wait-for-term | make-unique
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tether/tether.hpp"
#include "tether/trace/runtime.hpp"

namespace {

using tether::Background;
using tether::Context;
using tether::Error;
using tether::Scope;
using tether::Signal;
using tether::TaskGroup;

// Every task of the scope is waited for before it ends.
int Clean() {
  Scope request(Background(), "request clean");
  auto [group, gctx] = TaskGroup::WithContext(request.context());
  for (int i = 0; i < 3; ++i) {
    group.Go("handler " + std::to_string(i), [gctx = gctx] { return gctx.Err(); });
  }
  return group.Wait().ok() ? 0 : 1;
}

// A task of the scope waits for a signal fired after the scope ended; its
// group (owned outside the scope) then waits for it, so it ends before exit.
int Zombie() {
  Signal release = Signal::Make();
  std::optional<TaskGroup> owner;
  {
    Scope request(Background(), "request 7");
    auto [group, gctx] = TaskGroup::WithContext(request.context());
    owner.emplace(std::move(group));
    owner->Go("straggler", [release] { release.Wait(); });
  }
  release.Fire();
  return owner->Wait().ok() ? 0 : 1;
}

// Like Zombie, but the task never ends before the process exits.
int Late() {
  Scope* request = new Scope(Background(), "request forever");
  tether::Go(request->context(), "sleeper", [] { Signal().Wait(); });  // never fires
  delete request;
  return 0;
}

// A task outside any scope, still running at exit.
int Leak() {
  tether::Go(Background(), "orphan", [] { Signal().Wait(); });
  return 0;
}

// A group destroyed without Wait (its destructor cancels and joins).
int Unwaited() {
  Scope request(Background(), "request unwaited");
  auto [group, gctx] = TaskGroup::WithContext(request.context());
  group.Go("watcher", [gctx = gctx] { gctx.Done().Wait(); });
  return 0;
}

// A task given a root context inside a scope: detached from it.
int Detached() {
  Signal release = Signal::Make();
  std::optional<TaskGroup> owner;
  {
    Scope request(Background(), "request detached");
    auto [group, gctx] = TaskGroup::WithContext(Background());
    owner.emplace(std::move(group));
    owner->Go("fire and forget", [release] { release.Wait(); });
  }
  release.Fire();
  return owner->Wait().ok() ? 0 : 1;
}

// A task spawned by a detached task is charged to the same scope.
int Nested() {
  Signal release = Signal::Make();
  Signal spawned = Signal::Make();
  std::optional<TaskGroup> owner;
  {
    Scope request(Background(), "request nested");
    auto [group, gctx] = TaskGroup::WithContext(Background());
    owner.emplace(std::move(group));
    owner->Go("parent", [release, spawned] {
      auto [children, cctx] = TaskGroup::WithContext(Background());
      children.Go("child", [release] { release.Wait(); });
      spawned.Fire();
      return children.Wait();
    });
    spawned.Wait();
  }
  release.Fire();
  return owner->Wait().ok() ? 0 : 1;
}

// Dies by SIGABRT with a task running; what was flushed must still load.
int Crash() {
  Scope request(Background(), "request crash");
  tether::Go(request.context(), "doomed", [] { Signal().Wait(); });
  tether::trace::FlushTrace();
  std::abort();
}

// Clean, but the program itself fails.
int Fail() {
  Clean();
  return 3;
}

// tasks tasks from threads threads, each thread in its own scope, every
// task waited: every spawn must be matched by an end.
int Stress(int tasks, int threads) {
  std::vector<std::thread> spawners;
  for (int t = 0; t < threads; ++t) {
    spawners.emplace_back([t, per = tasks / threads] {
      Scope scope(Background(), "spawner " + std::to_string(t));
      auto [group, gctx] = TaskGroup::WithContext(scope.context());
      group.SetLimit(8);
      for (int i = 0; i < per; ++i) group.Go([] {});
      (void)group.Wait();
    });
  }
  for (std::thread& s : spawners) s.join();
  tether::trace::RuntimeStats stats = tether::trace::GetRuntimeStats();
  std::printf("records=%llu bytes=%llu lost=%llu peak_rings=%zu ring_bytes=%zu\n",
              static_cast<unsigned long long>(stats.records_written),
              static_cast<unsigned long long>(stats.bytes_written),
              static_cast<unsigned long long>(stats.lost_events), stats.peak_rings,
              stats.ring_bytes);
  return 0;
}

// Names a writer must escape or cut: quotes, newlines, bad UTF-8, 3000 bytes.
int Names() {
  Scope request(Background(), "scope \"quoted\"\nnext line");
  auto [group, gctx] = TaskGroup::WithContext(request.context());
  group.Go("tab\there \"q\" back\\slash", [] {});
  group.Go(std::string("bad \xff utf8 \xc3\xa9"), [] {});
  group.Go(std::string(3000, 'n'), [] {});
  return group.Wait().ok() ? 0 : 1;
}

// Whether child processes see TETHER_TRACE (they must not: one file, one writer).
int Env() {
  const char* v = std::getenv("TETHER_TRACE");
  std::printf("TETHER_TRACE=%s\n", v ? v : "(unset)");
  return 0;
}

// Prints to stdout and stderr, so tests can see it ran untraced.
int Chatty() {
  std::printf("chatty: ran\n");
  return Clean();
}

// Scopes ended out of order (the outer first), then a root task: it works
// for no scope (a leak at exit), not for the outer scope that has ended.
int OutOfOrder() {
  auto outer = std::make_unique<Scope>(Background(), "outer");
  auto inner = std::make_unique<Scope>(outer->context(), "inner");
  outer.reset();
  inner.reset();
  tether::Go(Background(), "after both ended", [] { Signal().Wait(); });
  return 0;
}

// A scope ended by another thread, then a root task on the opening thread.
int CrossEnd() {
  auto request = std::make_unique<Scope>(Background(), "ended elsewhere");
  std::thread([&request] { request->End(); }).join();
  tether::Go(Background(), "after cross end", [] { Signal().Wait(); });
  return 0;
}

// An AfterFunc callback of a scope's context runs on past the scope's end.
int AfterFuncZombie() {
  Signal release = Signal::Make();
  Signal finished = Signal::Make();
  {
    Scope request(Background(), "request after-func");
    auto [ctx, cancel] = tether::WithCancel(request.context());
    tether::AfterFunc(ctx, [release, finished] {
      release.Wait();
      finished.Fire();
    });
    cancel();
  }
  release.Fire();
  finished.Wait();
  return 0;
}

// A detached task spawns a child only after its scope has ended: the child
// is charged to that scope, but it was not spawned while the scope ran.
int LateChild() {
  Signal scope_ended = Signal::Make();
  Signal release = Signal::Make();
  std::optional<TaskGroup> owner;
  {
    Scope request(Background(), "request late-child");
    auto [group, gctx] = TaskGroup::WithContext(Background());
    owner.emplace(std::move(group));
    owner->Go("parent", [scope_ended, release] {
      scope_ended.Wait();
      auto [children, cctx] = TaskGroup::WithContext(Background());
      children.Go("late child", [release] { release.Wait(); });
      release.Fire();
      return children.Wait();
    });
  }
  scope_ended.Fire();
  return owner->Wait().ok() ? 0 : 1;
}

// The scope ends and the program is SIGKILLed at once, within the writer's
// flush interval: the scope's end must be in the trace all the same.
int KillAfterEnd() {
  Scope request(Background(), "request killed");
  tether::Go(request.context(), "straggler", [] { Signal().Wait(); });
  tether::trace::FlushTrace();
  request.End();
  kill(getpid(), SIGKILL);
  return 0;
}

// The scope's end is written, then the program runs on for 300ms without an
// event and is killed: its task outlived the scope by the 300ms at least.
int KilledLater() {
  Scope request(Background(), "request killed later");
  tether::Go(request.context(), "straggler", [] { Signal().Wait(); });
  request.End();
  tether::trace::FlushTrace();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(getpid(), SIGKILL);
  return 0;
}

// A scope made through std::make_unique: its std::source_location is
// defaulted inside <bits/unique_ptr.h>, yet the report names this line.
int MakeUniqueScope() {
  Signal release = Signal::Make();
  std::optional<TaskGroup> owner;
  auto request = std::make_unique<Scope>(Background(), "request made unique");  // the scope's line
  auto [group, gctx] = TaskGroup::WithContext(request->context());
  owner.emplace(std::move(group));
  owner->Go("straggler", [release] { release.Wait(); });
  request.reset();
  release.Fire();
  return owner->Wait().ok() ? 0 : 1;
}

// Leaves a task running, says it is ready, and waits to be terminated.
int WaitForTerm() {
  Scope request(Background(), "request until SIGTERM");
  tether::Go(request.context(), "server", [] { Signal().Wait(); });
  tether::trace::FlushTrace();
  std::printf("ready\n");
  std::fflush(stdout);
  for (;;) pause();
}

}  // namespace

int main(int argc, char** argv) {
  std::string what = argc > 1 ? argv[1] : "";
  if (what == "clean") return Clean();
  if (what == "zombie") return Zombie();
  if (what == "late") return Late();
  if (what == "leak") return Leak();
  if (what == "unwaited") return Unwaited();
  if (what == "detached") return Detached();
  if (what == "nested") return Nested();
  if (what == "crash") return Crash();
  if (what == "fail") return Fail();
  if (what == "chatty") return Chatty();
  if (what == "names") return Names();
  if (what == "env") return Env();
  if (what == "out-of-order") return OutOfOrder();
  if (what == "cross-end") return CrossEnd();
  if (what == "after-func") return AfterFuncZombie();
  if (what == "late-child") return LateChild();
  if (what == "kill-after-end") return KillAfterEnd();
  if (what == "killed-later") return KilledLater();
  if (what == "wait-for-term") return WaitForTerm();
  if (what == "make-unique") return MakeUniqueScope();
  if (what == "stress" && argc == 4) return Stress(std::atoi(argv[2]), std::atoi(argv[3]));
  std::fprintf(stderr,
               "usage: trace-probe clean|zombie|late|leak|unwaited|detached|nested|crash|fail|"
               "chatty|names|env|stress TASKS THREADS|out-of-order|cross-end|after-func|late-child|"
               "kill-after-end|killed-later|wait-for-term|make-unique\n");
  return 2;
}
