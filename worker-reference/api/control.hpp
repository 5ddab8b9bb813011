// WorkerControl: what a running worker exposes to its HTTP API (`serve
// --api`): the executor slots and what each runs, a cancel per slot, and the
// counters behind /metrics. The API owns the interface it needs; cmd's Worker
// implements it (cmd -> api, never back).
//
// Contract:
//  - Every method is thread-safe and returns promptly (no I/O, no waiting on
//    a build); the API may call them from any thread at any time while
//    Worker::Start runs.
//  - Slots() has one entry per executor slot (0 .. --build-limit-1), busy or
//    idle, in slot order.
//  - CancelSlot(n) cancels the build context of the build slot n runs now:
//    the build ends as `canceled` (its running step stopped, the rest
//    `canceled`), DestroyBuild runs, and its result is acknowledged to the
//    queue like any other. It returns at once; the build ends shortly after.
//    kIdle when slot n runs nothing (a finished build cannot be cancelled),
//    kNoSuchSlot when n is out of range. *build_id names the build cancelled.
//  - CancelBuild(id) cancels build id wherever it is: running here, as
//    CancelSlot does; queued, through the queue (it never starts); running on
//    another worker of the queue, by asking it (it cancels within about a
//    second). It may do the queue's I/O (a spool rename, one Redis script).
//  - Stats() is a snapshot: counters only grow, `running` is current.
//  - Builds() is a snapshot too: a build is in it from its start, as
//    `running`, and stays (with its result) until kBuildHistory newer builds
//    ended.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/wall_clock.hpp"
#include "tether/error.hpp"
#include "tether/worker/build_status.hpp"

namespace tether::worker::api {

struct SlotInfo {
  int slot = 0;
  bool busy = false;
  // When busy:
  std::string build_id;
  std::string pipeline;  // the pipeline file as submitted (or as given to `run`)
  WallClock::time_point started;
  int attempt = 1;  // > 1: a rerun after a worker died
};

// A Prometheus-style histogram: counts[i] observations <= bounds[i]
// (not cumulative), counts.back() those above the last bound.
struct Histogram {
  std::vector<double> bounds;
  std::vector<std::uint64_t> counts;  // bounds.size() + 1
  double sum = 0;
  std::uint64_t count = 0;

  explicit Histogram(std::vector<double> b = {})
      : bounds(std::move(b)), counts(bounds.size() + 1, 0) {}
  void Observe(double v) {
    std::size_t i = 0;
    while (i < bounds.size() && v > bounds[i]) ++i;
    ++counts[i];
    sum += v;
    ++count;
  }
};

struct WorkerStats {
  std::map<BuildStatus, std::uint64_t> builds_by_status;  // terminal statuses only
  int running = 0;                                        // builds running now
  std::uint64_t steps_killed = 0;    // steps and services stopped by the worker while running
  Histogram queue_wait_seconds;      // submit to claim (durable queues only)
  Histogram build_duration_seconds;  // claim to result
};

// A build this worker runs or ran, for GET /api/v1/builds.
struct BuildInfo {
  std::string id;
  std::string pipeline;
  BuildStatus status = BuildStatus::kRunning;  // running, or the terminal status
  std::string reason;
  int slot = -1;  // running: its executor slot
  int attempt = 1;
  WallClock::time_point started;
  std::optional<WallClock::time_point> finished;
  std::string result_dir;  // build.json and the step and service logs
};

class WorkerControl {
 public:
  enum class CancelResult { kCanceled, kIdle, kNoSuchSlot };
  enum class BuildCancelResult { kRunningHere, kQueued, kRunningElsewhere, kEnded, kNoSuchBuild };

  virtual ~WorkerControl() = default;
  virtual std::vector<SlotInfo> Slots() const = 0;
  virtual CancelResult CancelSlot(int slot, std::string* build_id) = 0;
  // Fails only when the queue does (kIo and the like); *out says what was found.
  virtual Error CancelBuild(const std::string& id, BuildCancelResult* out) = 0;
  virtual WorkerStats Stats() const = 0;
  // The builds running now (slot order), then the last ones that ended
  // (newest first, at most kBuildHistory).
  static constexpr std::size_t kBuildHistory = 100;
  virtual std::vector<BuildInfo> Builds() const = 0;
};

}  // namespace tether::worker::api
