#include "api/metrics.hpp"

#include <cmath>
#include <cstdio>

#include "tether/task.hpp"
#include "tether/worker/build_status.hpp"

namespace tether::worker::api {

namespace {

// Prometheus floats: integers as integers, else the shortest form that
// reads back the same; +Inf spelled as Go does.
std::string Number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {  // bucket bounds and counts: 10, not 1e+01
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  double back = 0;
  for (int precision = 1; precision <= 17; ++precision) {  // the shortest that reads back the same
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::sscanf(buf, "%lf", &back) == 1 && back == v) break;
  }
  return buf;
}

void Header(std::string* out, const std::string& name, const char* type, const char* help) {
  *out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

void Sample(std::string* out, const std::string& name, double value) {
  *out += name + " " + Number(value) + "\n";
}

// A cumulative histogram as Prometheus defines one: bucket le=B counts the
// observations <= B; le="+Inf" counts all of them (= _count).
void RenderHistogram(std::string* out, const std::string& name, const char* help,
                     const Histogram& h) {
  Header(out, name, "histogram", help);
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < h.bounds.size(); ++i) {
    cumulative += i < h.counts.size() ? h.counts[i] : 0;
    *out +=
        name + "_bucket{le=\"" + Number(h.bounds[i]) + "\"} " + std::to_string(cumulative) + "\n";
  }
  *out += name + "_bucket{le=\"+Inf\"} " + std::to_string(h.count) + "\n";
  Sample(out, name + "_sum", h.sum);
  *out += name + "_count " + std::to_string(h.count) + "\n";
}

}  // namespace

std::string RenderMetrics(const MetricsInput& in) {
  std::string out;
  Header(&out, "tether_worker_builds_total", "counter", "Builds finished, by build status.");
  // Every terminal status, counted or not, sorted by name (as before: scrapers diff them).
  std::map<std::string_view, std::uint64_t> by_name;
  for (BuildStatus status : kTerminalBuildStatuses) {
    auto counted = in.stats.builds_by_status.find(status);
    by_name[BuildStatusName(status)] =
        counted == in.stats.builds_by_status.end() ? 0 : counted->second;
  }
  for (const auto& [name, n] : by_name) {
    out += "tether_worker_builds_total{status=\"" + std::string(name) + "\"} " + std::to_string(n) +
           "\n";
  }
  Header(&out, "tether_worker_builds_running", "gauge", "Builds running now.");
  Sample(&out, "tether_worker_builds_running", in.stats.running);
  Header(&out, "tether_worker_executors", "gauge", "Executor slots (--build-limit).");
  Sample(&out, "tether_worker_executors", in.executors);
  RenderHistogram(&out, "tether_worker_queue_wait_seconds",
                  "Time a build waited in the queue, from submit to its claim by this worker.",
                  in.stats.queue_wait_seconds);
  RenderHistogram(&out, "tether_worker_build_duration_seconds",
                  "Build duration, from its claim to its acknowledged result.",
                  in.stats.build_duration_seconds);
  Header(&out, "tether_worker_step_kills_total", "counter",
         "Steps and services the worker stopped while they ran (build timeout or cancel).");
  Sample(&out, "tether_worker_step_kills_total", static_cast<double>(in.stats.steps_killed));
  Header(&out, "tether_worker_api_cancels_total", "counter",
         "Builds cancelled through the HTTP API.");
  Sample(&out, "tether_worker_api_cancels_total", static_cast<double>(in.api_cancels));
  Header(&out, "tether_tasks_alive", "gauge",
         "libtether tasks running now (TaskGroup and Go tasks).");
  Sample(&out, "tether_tasks_alive", static_cast<double>(TasksRunning()));
  return out;
}

}  // namespace tether::worker::api
