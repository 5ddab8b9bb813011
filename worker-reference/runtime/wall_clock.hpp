// The worker's one clock for times a person reads (a build's start and end in
// build.json, a job's submission, the control API's status): the system
// clock, which can jump, so never for timeouts or durations (those use
// std::chrono::steady_clock). Defined once for every layer of the worker.
#pragma once

#include <chrono>

namespace tether::worker {

using WallClock = std::chrono::system_clock;

}  // namespace tether::worker
