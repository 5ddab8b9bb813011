// What a build produced: the status of the build and of each step and
// service, as written to <results>/<build-id>/build.json.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/wall_clock.hpp"
#include "tether/error.hpp"
#include "tether/worker/build_status.hpp"

namespace tether::worker::executor {

// Step and service statuses (a subset of Vela's).
//  pending  not reached yet          running  started, not finished
//  success  exit 0                   failure  non-zero exit
//  killed   stopped by the worker (build timeout or cancel) while running
//  canceled never started: the build was cancelled or timed out before it
//  skipped  never started: an earlier step of its stage (or a stage it
//           needs) failed, or it is a plugin step the process runtime
//           cannot run
//  error    the worker could not run it (spawn failed, ...)
// Build statuses: BuildStatus (tether/worker/build_status.hpp).
enum class Status { kPending, kRunning, kSuccess, kFailure, kKilled, kCanceled, kSkipped, kError };
std::string_view StatusName(Status s);

// What a container is to the build: a step (of a stage, or of the pipeline's
// steps) or a service (started first, stopped when the build ends).
enum class ContainerKind { kStep, kService };
std::string_view ContainerKindName(ContainerKind k);  // "step" | "service"

struct ContainerRecord {
  std::string name;
  ContainerKind kind = ContainerKind::kStep;
  std::string stage;  // empty for services and stage-less pipelines
  std::string image;  // recorded, not pulled
  bool detach = false;
  bool continue_on_failure = false;
  Status status = Status::kPending;
  std::optional<int> exit_code;
  std::optional<WallClock::time_point> started, finished;
  std::string reason;    // why, for killed/canceled/skipped/error
  std::string log_file;  // file name inside the build's result directory
  std::uint64_t log_bytes = 0;
  bool log_truncated = false;
};

struct BuildRecord {
  std::string id;
  std::string pipeline_file;
  BuildStatus status = BuildStatus::kPending;  // named in build.json by BuildStatusName
  std::string reason;
  std::optional<WallClock::time_point> started, finished, deadline;
  std::string workspace;
  std::vector<std::string> notes;  // accepted but not honoured by the process runtime
  std::vector<ContainerRecord> services;
  std::vector<ContainerRecord> steps;
};

std::string FormatTime(WallClock::time_point t);  // RFC 3339, UTC, milliseconds
// Writes path atomically (a temporary file renamed over it).
Error WriteBuildJson(const BuildRecord& build, const std::string& path);

}  // namespace tether::worker::executor
