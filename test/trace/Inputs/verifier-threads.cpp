// ScopeVerifier covers threads (test/trace/verifier-threads.test): a libtether
// test binary whose verified scopes start plain std::threads.
// The line numbers are checked by the test: add lines at the end only.
#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "tether/task.hpp"
#include "tether/trace/gtest.hpp"

TEST(Verifier, ThreadOutlivesTheScope) {
  TETHER_VERIFY_SCOPE(scope);
  std::thread([] {
    for (;;) pause();
  }).detach();
}

TEST(Verifier, JoinedThreadIsClean) {
  TETHER_VERIFY_SCOPE(scope);
  std::thread worker([] {});
  worker.join();
}

// A thread started by a libtether task of the verified scope: charged to the
// tether::Scope (not the scope.h one), and checked all the same.
TEST(Verifier, TaskThreadOutlivesTheScope) {
  TETHER_VERIFY_SCOPE(scope);
  auto [group, gctx] = tether::TaskGroup::WithContext(scope.context());
  group.Go([] {
    std::thread([] {
      for (;;) pause();
    }).detach();
    return tether::Error();
  });
  EXPECT_TRUE(group.Wait().ok());
}
