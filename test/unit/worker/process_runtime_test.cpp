// The process runtime on real processes: waits honour the context, a
// SIGTERM-ignoring group is SIGKILLed after the grace, background children
// die with their step, and the output pipe reaches end-of-file.
#include "runtime/process.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>

#include "runtime/cgroup.hpp"
#include "runtime/proc_scan.hpp"

namespace tether::worker::runtime {
namespace {

class ProcessRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ProcessRuntime::BecomeSubreaper();
    char templ[] = "/tmp/tether-runtime-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    root_ = templ;
    rt_ = std::make_unique<ProcessRuntime>(
        ProcessRuntime::Options{root_, std::chrono::milliseconds(200)});
    ASSERT_TRUE(rt_->SetupBuild(Background(), "b").ok());
  }
  void TearDown() override {
    rt_.reset();
    std::filesystem::remove_all(root_);
  }
  ProcessSpec Sh(const std::string& name, const std::string& script) {
    return ProcessSpec{name, {"/bin/sh", "-c", script}, {"PATH=/usr/bin:/bin"}};
  }
  std::string ReadAll(const std::string& name) {
    std::unique_ptr<LogTail> tail;
    EXPECT_TRUE(rt_->TailContainer(Background(), name, &tail).ok());
    std::string out;
    while (tail->Read(Background(), &out, 4096).ok()) {
    }
    return out;
  }
  std::string root_;
  std::unique_ptr<ProcessRuntime> rt_;
};

TEST_F(ProcessRuntimeTest, RunsInTheWorkspaceAndReportsTheExitCode) {
  ASSERT_TRUE(rt_->RunContainer(Background(), Sh("s", "pwd; echo err >&2; exit 5")).ok());
  ExitStatus st;
  EXPECT_TRUE(rt_->WaitContainer(Background(), "s", &st).ok());
  EXPECT_TRUE(st.exited);
  EXPECT_EQ(st.code, 5);
  EXPECT_FALSE(st.stopped_by_worker);
  EXPECT_EQ(ReadAll("s"), rt_->workspace() + "\nerr\n");
}

TEST_F(ProcessRuntimeTest, WaitHonoursTheContext) {
  ASSERT_TRUE(rt_->RunContainer(Background(), Sh("s", "sleep 30")).ok());
  auto [ctx, cancel] = WithTimeout(Background(), std::chrono::milliseconds(50));
  ExitStatus st;
  Error err = rt_->WaitContainer(ctx, "s", &st);
  cancel();
  EXPECT_EQ(err.code(), ErrorCode::kDeadlineExceeded);
  EXPECT_TRUE(st.stopped_by_worker);
  EXPECT_EQ(st.code, 128 + SIGTERM);
}

TEST_F(ProcessRuntimeTest, IgnoringSigtermEarnsSigkillAfterTheGrace) {
  ASSERT_TRUE(rt_->RunContainer(Background(), Sh("s", "trap '' TERM; echo ready; sleep 30")).ok());
  std::unique_ptr<LogTail> tail;
  ASSERT_TRUE(rt_->TailContainer(Background(), "s", &tail).ok());
  std::string out;
  while (out.find("ready") == std::string::npos) ASSERT_TRUE(tail->Read(Background(), &out, 64).ok());
  auto [ctx, cancel] = WithCancel(Background());
  cancel();
  ExitStatus st;
  rt_->WaitContainer(ctx, "s", &st);
  EXPECT_EQ(st.signal, SIGKILL);
  EXPECT_EQ(st.code, 137);
  // The pipe reaches end-of-file: nothing of the group holds it any more.
  while (tail->Read(Background(), &out, 64).ok()) {
  }
}

TEST_F(ProcessRuntimeTest, BackgroundChildrenDieWithTheirStep) {
  ASSERT_TRUE(rt_->RunContainer(Background(), Sh("s", "sleep 1000 & (sleep 1001 &) ; echo $$")).ok());
  std::unique_ptr<LogTail> tail;
  ASSERT_TRUE(rt_->TailContainer(Background(), "s", &tail).ok());
  std::string out;
  while (out.find('\n') == std::string::npos) ASSERT_TRUE(tail->Read(Background(), &out, 64).ok());
  pid_t pgid = static_cast<pid_t>(std::stol(out));
  ExitStatus st;
  EXPECT_TRUE(rt_->WaitContainer(Background(), "s", &st).ok());
  EXPECT_EQ(st.code, 0);
  EXPECT_TRUE(ProcessesInGroup(pgid).empty());
  // End-of-file: no process of the group holds the pipe any more.
  while (tail->Read(Background(), &out, 64).ok()) {
  }
}

TEST_F(ProcessRuntimeTest, RemoveStopsARunningService) {
  ASSERT_TRUE(rt_->RunContainer(Background(), Sh("svc", "exec sleep 30")).ok());
  rt_->StopContainer("svc");
  ExitStatus st;
  EXPECT_TRUE(rt_->RemoveContainer(Background(), "svc", &st).ok());
  EXPECT_TRUE(st.stopped_by_worker);
  EXPECT_EQ(st.code, 143);
  std::string ws = rt_->workspace();
  EXPECT_TRUE(rt_->RemoveBuild(Background()).ok());
  EXPECT_FALSE(std::filesystem::exists(ws));
}

TEST_F(ProcessRuntimeTest, AMissingProgramIsAnError) {
  Error err = rt_->RunContainer(Background(), ProcessSpec{"x", {"/nonexistent/prog"}, {}});
  EXPECT_EQ(err.code(), ErrorCode::kIo);
  EXPECT_NE(err.message().find("/nonexistent/prog"), std::string::npos);
}

TEST_F(ProcessRuntimeTest, AProcessThatExitsByItselfIsNotStoppedByTheWorker) {
  ASSERT_TRUE(rt_->RunContainer(Background(), Sh("svc", "echo $$; exit 3")).ok());
  pid_t pid = static_cast<pid_t>(std::stol(ReadAll("svc")));
  // It has exited (a zombie: the runtime reaps it only when it is removed).
  auto zombie = [pid] {
    std::vector<ProcInfo> group = ProcessesInGroup(pid);
    return group.size() == 1 && group[0].state == 'Z';
  };
  for (int i = 0; i < 5000 && !zombie(); ++i) ::usleep(1000);
  ASSERT_TRUE(zombie());
  rt_->StopContainer("svc");
  ExitStatus st;
  EXPECT_TRUE(rt_->RemoveContainer(Background(), "svc", &st).ok());
  EXPECT_FALSE(st.stopped_by_worker);
  EXPECT_EQ(st.code, 3);
}

TEST_F(ProcessRuntimeTest, KillNowEndsTheKillGrace) {
  rt_ = std::make_unique<ProcessRuntime>(ProcessRuntime::Options{root_, std::chrono::hours(1)});
  ASSERT_TRUE(rt_->SetupBuild(Background(), "b").ok());
  ASSERT_TRUE(rt_->RunContainer(Background(), Sh("s", "trap '' TERM; echo ready; sleep 30")).ok());
  std::unique_ptr<LogTail> tail;
  ASSERT_TRUE(rt_->TailContainer(Background(), "s", &tail).ok());
  std::string out;
  while (out.find("ready") == std::string::npos) ASSERT_TRUE(tail->Read(Background(), &out, 64).ok());
  auto [ctx, cancel] = WithCancel(Background());
  cancel();
  rt_->KillNow();  // before the wait: the grace of an hour never starts
  ExitStatus st;
  rt_->WaitContainer(ctx, "s", &st);
  EXPECT_EQ(st.code, 137);
}

// With cgroup containment, a process that left its step's group (setsid)
// dies with the step, and is reaped.
TEST_F(ProcessRuntimeTest, AnEscapedProcessDiesWithItsContainer) {
  if (CgroupRoot().empty()) GTEST_SKIP() << "no writable cgroup v2 hierarchy";
  ASSERT_TRUE(rt_->RunContainer(Background(), Sh("s", "setsid sleep 1000 > /dev/null 2>&1 & echo $!")).ok());
  std::string out = ReadAll("s");
  pid_t escaped = static_cast<pid_t>(std::stol(out));
  ExitStatus st;
  EXPECT_TRUE(rt_->WaitContainer(Background(), "s", &st).ok());
  EXPECT_EQ(st.code, 0);
  EXPECT_NE(::kill(escaped, 0), 0) << "pid " << escaped << " still exists";
}

}  // namespace
}  // namespace tether::worker::runtime
