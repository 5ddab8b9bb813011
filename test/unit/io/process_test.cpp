// RunProgram: output and status collected, input fed, a missing program
// named, a deadline kept, and no stall when a program fills both pipes.
#include "tether/io/process.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>

namespace tether::io {
namespace {

using std::chrono::milliseconds;

TEST(RunProgram, CollectsOutputErrorAndStatus) {
  ProgramResult r = RunProgram({"sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.Succeeded());
  EXPECT_EQ(r.Describe(), "exit 3");
}

TEST(RunProgram, FeedsItsInput) {
  ProgramOptions options;
  options.input = std::string(300000, 'x') + "\n";  // more than a pipe holds
  ProgramResult r = RunProgram({"wc", "-c"}, options);
  ASSERT_TRUE(r.Succeeded()) << r.Describe() << r.err;
  EXPECT_EQ(r.out, "300001\n");
}

TEST(RunProgram, BothPipesFullDoNotStall) {
  ProgramResult r = RunProgram(
      {"sh", "-c", "head -c 1000000 /dev/zero; head -c 1000000 /dev/zero >&2; echo done >&2"});
  ASSERT_TRUE(r.Succeeded()) << r.Describe();
  EXPECT_EQ(r.out.size(), 1000000u);
  EXPECT_EQ(r.err.size(), 1000005u);
}

TEST(RunProgram, ErrorDiscardedWhenNotCaptured) {
  ProgramOptions options;
  options.capture_err = false;
  ProgramResult r = RunProgram({"sh", "-c", "echo hidden >&2; echo shown"}, options);
  ASSERT_TRUE(r.Succeeded());
  EXPECT_EQ(r.out, "shown\n");
  EXPECT_EQ(r.err, "");
}

TEST(RunProgram, AMissingProgramIsNamed) {
  ProgramResult r = RunProgram({"tether-no-such-program"});
  EXPECT_FALSE(r.started);
  EXPECT_TRUE(r.not_found);
  EXPECT_EQ(r.error, "'tether-no-such-program' was not found in PATH");
  EXPECT_EQ(r.Describe(), r.error);
}

TEST(RunProgram, KilledAtItsDeadline) {
  ProgramOptions options;
  options.timeout = milliseconds(200);
  ProgramResult r = RunProgram({"sleep", "30"}, options);
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.Succeeded());
  EXPECT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL) << r.Describe();
  // One that closes its output and keeps running is killed too.
  r = RunProgram({"sh", "-c", "exec >&- 2>&-; sleep 30"}, options);
  EXPECT_TRUE(r.timed_out);
}

TEST(FindInPath, FindsWhatIsExecutable) {
  EXPECT_NE(FindInPath("sh"), "");
  EXPECT_EQ(FindInPath("tether-no-such-program"), "");
  EXPECT_EQ(FindInPath("/bin/sh"), "/bin/sh");
  EXPECT_EQ(FindInPath("/nonexistent/sh"), "");
}

}  // namespace
}  // namespace tether::io
