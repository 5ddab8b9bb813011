// Per-test thread verification for GoogleTest, in any C++ program: each TEST
// is a scope (tether/trace/scope.h), and a thread the test started (or a
// thread such a thread started) that is still running when the test ends
// fails that test, with the thread's site and how long it has been running.
//
//   int main(int argc, char** argv) {      // or link Tether::gtest_main
//     ::testing::InitGoogleTest(&argc, argv);
//     ::testing::UnitTest::GetInstance()->listeners().Append(
//         new tether::trace::testing::ThreadScopeListener);
//     return RUN_ALL_TESTS();
//   }
//
// Run the tests under `tether trace -- ./tests`: the verdict is computed in
// the process at each test's end (the shim knows which threads of the test's
// scope are still running), so a test is blamed only for its own threads;
// the tracer's report then names each one's site (file:line) under a scope
// named after the test. Untraced, the listener does nothing.
//
// One grace: under `tether trace --grace D` a test's threads may end up to D
// after the test, in the listener as in the report (TETHER_GRACE_MS, set by
// `tether trace`: not TETHER_TRACE_*, a string the tool takes in a binary for
// a linked-in libtether tracer; the report's default, 0, when not given). Before,
// the listener allowed 500 ms where the report allowed none: a thread ending
// in between passed its test and was the report's zombie.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "tether/trace/scope.h"

namespace tether::trace::testing {

// Fails the current test once for each thread charged to scope (a
// tether/trace/scope.h scope) still running after grace_ms, at file:line;
// returns how many there were. Nothing when the program is not traced.
// The grace `tether trace` runs with (TETHER_GRACE_MS), else fallback.
inline std::uint32_t TraceGraceMs(std::uint32_t fallback) {
  const char* text = std::getenv("TETHER_GRACE_MS");
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long ms = std::strtoul(text, &end, 10);
  if (*end != '\0' || ms > UINT32_MAX) return fallback;
  return static_cast<std::uint32_t>(ms);
}

inline std::size_t FailForRunningThreads(std::uint64_t scope, std::uint32_t grace_ms,
                                         const char* file, int line,
                                         const std::string& scope_name) {
  constexpr std::size_t kMax = 16;
  tether_running_thread left[kMax];
  const std::size_t count = tether_scope_threads_running(scope, grace_ms, left, kMax);
  for (std::size_t i = 0; i < count && i < kMax; ++i) {
    char site[512], running[512];
    const bool known = tether_thread_site(left[i].id, site, sizeof site) > 0;
    // Where it is now (goleak's current stack): the wait that nothing woke.
    const bool asked = tether_thread_running_at(left[i].id, running, sizeof running) > 0;
    ADD_FAILURE_AT(file, line) << "tether: a thread this test started (thread " << left[i].id
                               << (known ? std::string(", spawned at ") + site : std::string())
                               << ") is still running "
                               << (grace_ms == 0
                                       ? std::string("when the test ended")
                                       : std::to_string(grace_ms) + " ms after the test ended")
                               << (asked ? std::string(", running at ") + running : std::string())
                               << " (it began " << left[i].age_ns / 1000000
                               << " ms ago); `tether trace` reports its site as a zombie "
                               << "of scope \"" << scope_name << "\"";
  }
  if (count > kMax) {
    ADD_FAILURE_AT(file, line) << "tether: " << count - kMax
                               << " more threads of this test are still running";
  }
  return count;
}

class ThreadScopeListener : public ::testing::EmptyTestEventListener {
 public:
  // grace_ms: how long the test's threads may take to end after the test
  // body has returned (goleak's retry, without polling). By default
  // `tether trace`'s --grace, so the listener and the report agree.
  ThreadScopeListener() : grace_ms_(TraceGraceMs(0)) {}
  explicit ThreadScopeListener(std::uint32_t grace_ms) : grace_ms_(grace_ms) {}

  void OnTestStart(const ::testing::TestInfo& info) override {
    // The scope's site is the TEST's line: the report names the test's
    // place, as the failure does.
    scope_ = tether_scope_begin_at(TestName(info).c_str(), info.file(), info.line());
  }

  // Listeners' OnTestEnd run before the result printer's, and the test is
  // still the current one: a failure added here fails this test.
  void OnTestEnd(const ::testing::TestInfo& info) override {
    const std::uint64_t scope = scope_;
    scope_ = 0;
    if (scope == 0) return;
    tether_scope_end(scope);
    FailForRunningThreads(scope, grace_ms_, info.file(), info.line(), TestName(info));
  }

 private:
  static std::string TestName(const ::testing::TestInfo& info) {
    return std::string(info.test_suite_name()) + "." + info.name();
  }

  std::uint32_t grace_ms_;
  std::uint64_t scope_ = 0;
};

}  // namespace tether::trace::testing
