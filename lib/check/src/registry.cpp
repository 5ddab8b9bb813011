// The module: every check, listed once, in the order --list-checks and the
// SARIF rules show them. Each check's name, summary and severity are written
// beside its class (checks/*.cpp); the name is the only way in (--checks
// globs, NOLINT(...), SARIF rule ids).
#include "check_base.hpp"
#include "tether/check/runner.hpp"

namespace tether::check {

CheckRegistration DetachedContextCheckRegistration();
CheckRegistration ContextNotForwardedCheckRegistration();
CheckRegistration UnwaitedGroupCheckRegistration();
CheckRegistration LostCancelCheckRegistration();
CheckRegistration DetachedTaskCheckRegistration();
CheckRegistration TaskIgnoresContextCheckRegistration();
CheckRegistration LoopWithoutContextCheckRegistration();
CheckRegistration CleanupOnCancellableContextCheckRegistration();
CheckRegistration JustificationCheckRegistration();
CheckRegistration UnjoinedMemberThreadCheckRegistration();
CheckRegistration IgnoredStopFlagCheckRegistration();
CheckRegistration ThreadMemberOrderCheckRegistration();

const std::vector<CheckRegistration>& CheckRegistry() {
  static const std::vector<CheckRegistration> registry = {
      DetachedContextCheckRegistration(),    ContextNotForwardedCheckRegistration(),
      UnwaitedGroupCheckRegistration(),      LostCancelCheckRegistration(),
      DetachedTaskCheckRegistration(),       TaskIgnoresContextCheckRegistration(),
      LoopWithoutContextCheckRegistration(), CleanupOnCancellableContextCheckRegistration(),
      JustificationCheckRegistration(),      UnjoinedMemberThreadCheckRegistration(),
      IgnoredStopFlagCheckRegistration(),    ThreadMemberOrderCheckRegistration(),
  };
  return registry;
}

std::vector<CheckInfo> AllCheckInfos() {
  std::vector<CheckInfo> infos;
  for (const CheckRegistration& r : CheckRegistry()) infos.push_back(r.info);
  return infos;
}

}  // namespace tether::check
