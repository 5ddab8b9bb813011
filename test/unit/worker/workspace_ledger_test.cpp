// Crash recovery of workspaces under a root that several workers share: a
// dead worker's recovery removes its own workspaces only, never a live
// worker's workspace of the same build id (a rerun of the same job). It
// matched workspaces by build id alone, removing the live build's workspace
// under it (and the build ended `failure`).
#include "cmd/workspace_ledger.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "runtime/process.hpp"
#include "tether/context.hpp"

namespace tether::worker::cmd {
namespace {

namespace fs = std::filesystem;

TEST(WorkspaceLedger, RecoveryRemovesOnlyTheDeadWorkersWorkspace) {
  char templ[] = "/tmp/tether-ledger-XXXXXX";
  ASSERT_NE(::mkdtemp(templ), nullptr);
  const std::string root = templ;

  // A worker that dies (no destructor runs: its lock is released by the
  // kernel, its ledger and workspace stay) while it runs build job-1.
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::unique_ptr<WorkspaceLedger> dead;
    if (!WorkspaceLedger::Open(root, false, &dead).ok() || !dead->Begin("job-1", "p.yml", "").ok())
      ::_exit(1);
    // Named as its runtime names it (the live one's is checked below).
    std::string ws = root + "/job-1-" + dead->tag() + "-abc123";
    ::_exit(fs::create_directory(ws) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  // A live worker runs job-1 again, its workspace made by the runtime.
  std::unique_ptr<WorkspaceLedger> live;
  ASSERT_TRUE(WorkspaceLedger::Open(root, false, &live).ok());
  ASSERT_TRUE(live->Begin("job-1", "p.yml", "").ok());
  runtime::ProcessRuntime::Options options;
  options.workspace_root = root;
  options.workspace_owner = live->tag();
  runtime::ProcessRuntime runtime(options);
  ASSERT_TRUE(runtime.SetupBuild(Background(), "job-1").ok());
  const std::string live_ws = runtime.workspace();
  EXPECT_EQ(fs::path(live_ws).filename().string().rfind("job-1-" + live->tag() + "-", 0), 0u)
      << live_ws;

  int ledgers = 0;
  EXPECT_EQ(WorkspaceLedger::RecoverDead(root, &ledgers), 1);
  EXPECT_EQ(ledgers, 1);
  EXPECT_TRUE(fs::is_directory(live_ws)) << "the live build's workspace was removed";
  int left = 0;
  for (const auto& e : fs::directory_iterator(root)) {
    const std::string name = e.path().filename().string();
    left += name.rfind("job-1-", 0) == 0 ? 1 : 0;
  }
  EXPECT_EQ(left, 1) << "the dead worker's workspace is gone, the live one stays";
  live->End("job-1");
  live.reset();
  std::error_code ec;
  fs::remove_all(root, ec);
}

}  // namespace
}  // namespace tether::worker::cmd
