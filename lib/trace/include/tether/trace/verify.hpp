// The test API: goleak's VerifyNone, attributed per scope.
//
// goleak decides process-wide, so a task leaked by one test fails whichever
// test checks next, and parallel tests cannot be checked at all. Here a task
// is charged to the scope it was spawned for (the scope of its context, or
// the scope its spawner worked for when it was given a root context), so
// each test checks only its own scope:
//
//   tether::trace::EnableLiveTracking();           // once, before spawning
//   tether::Scope scope(tether::Background(), "TestUpload");
//   RunUpload(scope.context());
//   scope.End();
//   tether::Error err = tether::trace::VerifyNone(scope.id());
//   // err lists every task of the scope still running after the grace period
//
// GoogleTest users want tether/trace/gtest.hpp (ScopeVerifier), which does
// exactly this and fails the test with the list.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "tether/error.hpp"
#include "tether/trace/model.hpp"

namespace tether::trace {

struct LeftoverTask {
  std::uint64_t id = 0;
  std::string name;
  Site site;                // where it was spawned
  std::uint64_t scope = 0;  // the scope it is charged to (the checked one or one nested in it)
  std::string scope_name;
  bool detached = false;  // spawned with a root context inside the scope
  bool started = false;   // its thread has begun running it
};

// The grace `tether trace` runs the program with (its --grace, passed as
// TETHER_GRACE_MS), else 500 ms: a verdict in the process and the report
// then allow a task the same time to end.
std::chrono::milliseconds DefaultVerifyGrace();
// `tether trace --ignore`'s patterns (TETHER_IGNORE_SITES), else none.
std::vector<std::string> IgnoredSitesFromEnvironment();

struct VerifyOptions {
  // How long tasks may take to finish after the check starts (goleak's retry
  // loop, without polling: the check wakes as tasks end).
  std::chrono::milliseconds grace = DefaultVerifyGrace();
  // Tasks spawned at a site one of these names are not counted: a function
  // (Schedule, PosixEnv::Schedule) or FILE:LINE, as `tether trace --ignore`
  // takes them (goleak's IgnoreAnyFunction, on the spawn site). By default
  // the --ignore patterns of the `tether trace` running the program, so the
  // verdict drops what the report drops.
  std::vector<std::string> ignore = IgnoredSitesFromEnvironment();
};

// The tasks charged to scope, or to a scope opened inside it (by its
// opening thread or its tasks, at any depth), that are still running once
// grace has passed (returns early as soon as none is left), less those
// options.ignore names. scope 0: every running task.
// Needs EnableLiveTracking() before the tasks were spawned.
std::vector<LeftoverTask> LeftoverTasks(std::uint64_t scope, const VerifyOptions& options = {});

// Ok when no task of scope is left after grace; else an Error (kFailed) whose
// message lists each left-over task with its spawn site. kInvalidArgument if
// live tracking is off.
Error VerifyNone(std::uint64_t scope, const VerifyOptions& options = {});
// The same for the scope the calling thread works for (tether::CurrentScopeId()),
// or for the whole process when it works for none (goleak's behaviour).
Error VerifyNone(const VerifyOptions& options = {});

// "N tasks left behind by scope "x":\n  task "name" spawned at file:line ..."
std::string DescribeLeftovers(const std::vector<LeftoverTask>& tasks);

}  // namespace tether::trace
