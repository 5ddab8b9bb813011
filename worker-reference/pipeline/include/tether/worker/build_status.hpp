// A build's status, shared by the executor (build.json), the queues (a job's
// result), the API and the metrics. Like Vela's types/constants, it lives
// beside the pipeline types every worker package already uses. Names appear
// only at the edges (JSON, text output): BuildStatusName and ParseBuildStatus.
#pragma once

#include <optional>
#include <string_view>

namespace tether::worker {

//  pending   not started yet          running   started, not finished
//  success   every step succeeded (or failed with `continue`)
//  failure   a step failed, or the build timed out
//  error     the worker could not run it (an infrastructure error)
//  canceled  cancelled (a signal, `tether-worker cancel`, the API)
enum class BuildStatus { kPending, kRunning, kSuccess, kFailure, kError, kCanceled };

// The terminal statuses, in the order reports list them.
inline constexpr BuildStatus kTerminalBuildStatuses[] = {
    BuildStatus::kSuccess, BuildStatus::kFailure, BuildStatus::kError, BuildStatus::kCanceled};

constexpr std::string_view BuildStatusName(BuildStatus s) {
  switch (s) {
    case BuildStatus::kPending:
      return "pending";
    case BuildStatus::kRunning:
      return "running";
    case BuildStatus::kSuccess:
      return "success";
    case BuildStatus::kFailure:
      return "failure";
    case BuildStatus::kError:
      return "error";
    case BuildStatus::kCanceled:
      return "canceled";
  }
  return "unknown";
}

// The status a name spells; nullopt for any other text (a corrupt record).
constexpr std::optional<BuildStatus> ParseBuildStatus(std::string_view name) {
  for (BuildStatus s : {BuildStatus::kPending, BuildStatus::kRunning, BuildStatus::kSuccess,
                        BuildStatus::kFailure, BuildStatus::kError, BuildStatus::kCanceled}) {
    if (BuildStatusName(s) == name) return s;
  }
  return std::nullopt;
}

}  // namespace tether::worker
