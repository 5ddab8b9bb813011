// GoogleTest helpers for the tracer's test API (verify.hpp).
//
//   TEST(Upload, StopsItsWorkers) {
//     TETHER_VERIFY_SCOPE(scope);          // a tether::Scope named after the test
//     RunUpload(scope.context());
//   }  // fails the test if a task of the scope is still running after grace
//
// Each test checks only its own scope, so tests that run concurrently (in
// threads of one process) never blame each other. Include this header only
// in test code (it uses gtest.h); link the test with tether_runtime.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <source_location>
#include <string>
#include <utility>

#include "tether/context.hpp"
#include "tether/scope.hpp"
#include "tether/trace/gtest_threads.hpp"
#include "tether/trace/runtime.hpp"
#include "tether/trace/verify.hpp"

namespace tether::trace::testing {

// The running test's "Suite.Name", or "test" outside a test.
inline std::string CurrentTestName() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info == nullptr) return "test";
  return std::string(info->test_suite_name()) + "." + info->name();
}

// A tether::Scope that verifies, when destroyed (or at Verify()), that no
// task charged to it is still running; each left-over task is a non-fatal
// test failure at the place the verifier was declared. Under `tether trace
// --threads on` it is also a tether/trace/scope.h scope: a thread the
// declaring thread or one of the scope's tasks starts meanwhile (std::thread,
// std::async, ...), or one such a thread starts, that is still running after
// grace fails the test too.
class ScopeVerifier {
 public:
  explicit ScopeVerifier(std::string name = CurrentTestName(), VerifyOptions options = {},
                         const Context& parent = Background(),
                         std::source_location loc = std::source_location::current())
      : tracking_(EnableLiveTracking()),
        scope_(parent, name, loc),
        thread_scope_(
            tether_scope_begin_at(name.c_str(), loc.file_name(), static_cast<int>(loc.line()))),
        name_(std::move(name)),
        options_(options),
        loc_(loc) {}
  ScopeVerifier(const ScopeVerifier&) = delete;
  ScopeVerifier& operator=(const ScopeVerifier&) = delete;
  ~ScopeVerifier() { Verify(); }

  const Context& context() const { return scope_.context(); }
  std::uint64_t id() const { return scope_.id(); }

  // Ends the scope and checks it (once; the destructor then does nothing).
  // Returns true when the scope left nothing behind.
  bool Verify() {
    if (verified_) return clean_;
    verified_ = true;
    scope_.End();
    tether_scope_end(thread_scope_);
    const int line = static_cast<int>(loc_.line());
    const auto grace_ms = static_cast<std::uint32_t>(options_.grace.count());
    // The threads this thread started are charged to the scope.h scope, those
    // the scope's tasks started to the tether::Scope (docs/tracer.md).
    const std::size_t threads_running =
        FailForRunningThreads(thread_scope_, grace_ms, loc_.file_name(), line, name_) +
        FailForRunningThreads(scope_.id(), grace_ms, loc_.file_name(), line, name_);
    if (!tracking_.ok()) {
      ADD_FAILURE_AT(loc_.file_name(), static_cast<int>(loc_.line()))
          << "tether: cannot verify scope: " << tracking_.ToString();
      return clean_ = false;
    }
    std::vector<LeftoverTask> left = LeftoverTasks(scope_.id(), options_);
    clean_ = left.empty() && threads_running == 0;
    if (!left.empty()) ADD_FAILURE_AT(loc_.file_name(), line) << DescribeLeftovers(left);
    return clean_;
  }

 private:
  Error tracking_;
  Scope scope_;
  std::uint64_t thread_scope_;  // 0 when threads are not traced
  std::string name_;
  VerifyOptions options_;
  std::source_location loc_;
  bool verified_ = false;
  bool clean_ = true;
};

// A fixture whose tests run inside a verified scope: use ctx() as the test's
// context; TearDown fails the test if the scope left tasks behind.
class VerifiedScopeTest : public ::testing::Test {
 protected:
  void SetUp() override { verifier_.emplace(); }
  void TearDown() override {
    if (verifier_) verifier_->Verify();
  }
  const Context& ctx() const { return verifier_->context(); }

 private:
  std::optional<ScopeVerifier> verifier_;
};

}  // namespace tether::trace::testing

// Declares a ScopeVerifier named var for the current test.
#define TETHER_VERIFY_SCOPE(var) ::tether::trace::testing::ScopeVerifier var
