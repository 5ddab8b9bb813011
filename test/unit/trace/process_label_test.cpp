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

TEST(ProcessLabel, ALongListOfArgumentsLosesItsMiddle) {
  // sh -c -- '<a long path>' --role: the start and the role are shown.
  const std::string arguments = " -c -- '/" + std::string(150, 'p') + "/helper' --role";
  const std::string label = detail::ProcessLabel(WithProcess(9, "/bin/sh" + arguments), 9);
  EXPECT_EQ(label, "process 9 (/bin/sh" + arguments.substr(0, 50) + "..." +
                       arguments.substr(arguments.size() - 47) + ")");
  EXPECT_EQ(label.size(), std::string("process 9 (/bin/sh)").size() + 100);
  // At the limit, nothing is cut.
  const std::string at_limit = " " + std::string(99, 'a');
  EXPECT_EQ(detail::ProcessLabel(WithProcess(9, "/bin/p" + at_limit), 9),
            "process 9 (/bin/p" + at_limit + ")");
}

TEST(ProcessLabel, WithoutACommandLine) {
  EXPECT_EQ(detail::ProcessLabel(Trace{}, 5), "process 5");
}

}  // namespace
}  // namespace tether::trace
