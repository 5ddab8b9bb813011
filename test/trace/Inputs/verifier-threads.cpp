// ScopeVerifier covers threads (test/trace/verifier-threads.test): a libtether
// test binary whose verified scopes start plain std::threads.
// The line numbers are checked by the test: add lines at the end only.
#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

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
