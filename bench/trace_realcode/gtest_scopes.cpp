// A GoogleTest main that makes each TEST a scope (tether/trace/scope.h), so
// that `tether trace` charges the threads a test starts to that test and
// reports those still running when it ends. Used by bench/trace_realcode.sh for
// projects whose tests use GoogleTest; without the tracer it is gtest_main.
#include <gtest/gtest.h>

#include <string>

#include "tether/trace/scope.h"

namespace {

class TestScopes : public testing::EmptyTestEventListener {
 public:
  void OnTestStart(const testing::TestInfo& test) override {
    name_ = std::string(test.test_suite_name()) + "." + test.name();
    id_ = tether_scope_begin(name_.c_str());
  }
  void OnTestEnd(const testing::TestInfo&) override {
    tether_scope_end(id_);
    id_ = 0;
  }

 private:
  std::string name_;
  uint64_t id_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  testing::UnitTest::GetInstance()->listeners().Append(new TestScopes);
  return RUN_ALL_TESTS();
}
