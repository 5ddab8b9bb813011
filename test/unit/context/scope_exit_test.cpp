// tether::ScopeExit: runs on every way out of its scope, in reverse order of
// declaration, once; Release() disarms it.
#include "tether/scope_exit.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "tether/context.hpp"

namespace tether {
namespace {

int EarlyReturn(bool early, std::string* log) {
  ScopeExit first{[&] { *log += "1"; }};
  ScopeExit second{[&] { *log += "2"; }};
  if (early) return 0;
  *log += "body";
  return 1;
}

TEST(ScopeExit, RunsOnEveryReturnInReverseOrder) {
  std::string log;
  EXPECT_EQ(EarlyReturn(true, &log), 0);
  EXPECT_EQ(log, "21");
  log.clear();
  EXPECT_EQ(EarlyReturn(false, &log), 1);
  EXPECT_EQ(log, "body21");
}

TEST(ScopeExit, RunsWhenAnExceptionLeavesTheScope) {
  int runs = 0;
  try {
    ScopeExit guard{[&] { ++runs; }};
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(runs, 1);
}

TEST(ScopeExit, ReleaseDisarms) {
  int runs = 0;
  {
    ScopeExit guard{[&] { ++runs; }};
    guard.Release();
  }
  EXPECT_EQ(runs, 0);
}

// The documented use: the cancel function runs when the scope ends, so the
// derived context is done afterwards, whichever way the scope was left.
TEST(ScopeExit, CallsACancelFunc) {
  Context kept;
  {
    auto [ctx, cancel] = WithCancel(Background());
    ScopeExit release{[&] { cancel(); }};
    kept = ctx;
    EXPECT_FALSE(kept.Done().Fired());
  }
  EXPECT_TRUE(kept.Done().Fired());
  EXPECT_TRUE(kept.Err().Is(ErrorCode::kCanceled));
}

}  // namespace
}  // namespace tether
