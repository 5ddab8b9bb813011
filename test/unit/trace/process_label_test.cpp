// How reports name a child process (detail::ProcessLabel): what is shown must
// not depend on where the program was installed.
#include <gtest/gtest.h>

#include <string>

#include "report_common.hpp"
#include "tether/trace/model.hpp"

namespace tether::trace {
namespace {

Trace WithProcess(std::int64_t pid, const std::string& program) {
  Trace trace;
  trace.processes[pid].program = program;
  return trace;
}

TEST(ProcessLabel, ShowsTheCommandLine) {
  EXPECT_EQ(detail::ProcessLabel(WithProcess(42, "/bin/helper --once"), 42),
            "process 42 (/bin/helper --once)");
}

TEST(ProcessLabel, NeverCutsTheProgramPath) {
  // A build under a long directory: the arguments that tell children apart
  // are still shown whole.
  const std::string path = "/" + std::string(120, 'd') + "/child-processes";
  EXPECT_EQ(detail::ProcessLabel(WithProcess(7, path + " child-leaky"), 7),
            "process 7 (" + path + " child-leaky)");
  EXPECT_EQ(detail::ProcessLabel(WithProcess(7, path), 7), "process 7 (" + path + ")");
}

TEST(ProcessLabel, CutsALongListOfArguments) {
  const std::string arguments = " " + std::string(100, 'a');
  const std::string label = detail::ProcessLabel(WithProcess(9, "/bin/p" + arguments), 9);
  EXPECT_EQ(label, "process 9 (/bin/p" + arguments.substr(0, 60) + "...)");
}

TEST(ProcessLabel, WithoutACommandLine) {
  EXPECT_EQ(detail::ProcessLabel(Trace{}, 5), "process 5");
}

}  // namespace
}  // namespace tether::trace
