// The Prometheus text exposition (format 0.0.4) of GET /metrics, from the
// worker's counters (WorkerControl::Stats) and libtether's task count:
//
//   tether_worker_builds_total{status}      counter   builds finished, by build status
//   tether_worker_builds_running            gauge     builds running now
//   tether_worker_executors                 gauge     executor slots (--build-limit)
//   tether_worker_queue_wait_seconds        histogram submit -> claim by this worker
//   tether_worker_build_duration_seconds    histogram claim -> result acknowledged
//   tether_worker_step_kills_total          counter   steps and services the worker
//                                                     stopped while running (status killed)
//   tether_worker_api_cancels_total         counter   builds cancelled through the API
//   tether_tasks_alive                      gauge     libtether tasks running now
//                                                     (tether::TasksRunning)
#pragma once

#include <cstdint>
#include <string>

#include "api/control.hpp"

namespace tether::worker::api {

struct MetricsInput {
  WorkerStats stats;
  int executors = 0;
  std::uint64_t api_cancels = 0;
};

std::string RenderMetrics(const MetricsInput& in);

}  // namespace tether::worker::api
