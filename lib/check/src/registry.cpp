// The module: every check registered by name, in one place. The name is the
// only way in (--checks globs, NOLINT(...), SARIF rule ids).
#include "check_base.hpp"

namespace tether::check {

std::unique_ptr<Check> MakeDetachedContextCheck(TuContext& tu);
std::unique_ptr<Check> MakeContextNotForwardedCheck(TuContext& tu);
std::unique_ptr<Check> MakeUnwaitedGroupCheck(TuContext& tu);
std::unique_ptr<Check> MakeLostCancelCheck(TuContext& tu);
std::unique_ptr<Check> MakeDetachedTaskCheck(TuContext& tu);
std::unique_ptr<Check> MakeTaskIgnoresContextCheck(TuContext& tu);
std::unique_ptr<Check> MakeLoopWithoutContextCheck(TuContext& tu);
std::unique_ptr<Check> MakeCleanupOnCancellableContextCheck(TuContext& tu);

const std::vector<std::pair<std::string, CheckFactory>>& CheckFactories() {
  static const std::vector<std::pair<std::string, CheckFactory>> factories = {
      {"tether-detached-context", MakeDetachedContextCheck},
      {"tether-context-not-forwarded", MakeContextNotForwardedCheck},
      {"tether-unwaited-group", MakeUnwaitedGroupCheck},
      {"tether-lost-cancel", MakeLostCancelCheck},
      {"tether-detached-task", MakeDetachedTaskCheck},
      {"tether-task-ignores-context", MakeTaskIgnoresContextCheck},
      {"tether-loop-without-context", MakeLoopWithoutContextCheck},
      {"tether-cleanup-on-cancellable-context", MakeCleanupOnCancellableContextCheck},
  };
  return factories;
}

}  // namespace tether::check
