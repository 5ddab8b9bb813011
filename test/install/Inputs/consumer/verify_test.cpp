// The GoogleTest helper from an installed Tether: the first test's scope is
// clean; the second leaves a task behind, which the helper must report (the
// install test expects exactly that test to fail).
#include <tether/tether.hpp>
#include <tether/trace/gtest.hpp>

TEST(Installed, CleanScopePasses) {
  TETHER_VERIFY_SCOPE(scope);
  auto [group, gctx] = tether::TaskGroup::WithContext(scope.context());
  group.Go("joined", [] {});
  EXPECT_TRUE(group.Wait().ok());
}

TEST(Installed, LeftOverTaskFails) {
  tether::Signal release = tether::Signal::Make();
  {
    TETHER_VERIFY_SCOPE(scope);
    tether::Go(scope.context(), "left over", [release] { release.Wait(); });
  }
  release.Fire();
}
