// A Catch2 (v3) listener that makes each TEST_CASE a scope
// (tether/trace/scope.h), so that `tether trace` charges the threads a test
// case starts to it and reports those still running when it ends. Linked into
// a project's Catch2 test binary by bench/trace_realcode.sh.
#include <catch2/catch_all.hpp>

#include <cstdint>

#include "tether/trace/scope.h"

namespace {

class TestScopes : public Catch::EventListenerBase {
 public:
  using Catch::EventListenerBase::EventListenerBase;
  void testCaseStarting(const Catch::TestCaseInfo& test) override {
    id_ = tether_scope_begin(test.name.c_str());
  }
  void testCaseEnded(const Catch::TestCaseStats&) override {
    tether_scope_end(id_);
    id_ = 0;
  }

 private:
  std::uint64_t id_ = 0;
};

}  // namespace

CATCH_REGISTER_LISTENER(TestScopes)
