// The executor's ordering rules, on real processes: stages start when the
// stages they need have finished, steps of a stage run in order, failures
// skip what depends on them, `continue` does not, and a timeout or cancel
// kills the running step and cancels the rest.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cmd/exec.hpp"
#include "executor/engine.hpp"
#include "tether/task.hpp"

namespace tether::worker {
namespace {

using executor::BuildRecord;
using executor::ContainerRecord;
using executor::Status;

class EngineOrderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/tether-engine-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir_ = templ;
    events_ = dir_ + "/events";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A step that records its start and end in the shared events file.
  Container Step(const std::string& name, const std::string& body = "true", bool cont = false) {
    Container c;
    c.name = name;
    c.image = "alpine";
    c.commands = {"echo start " + name + " >> " + events_, body, "echo end " + name + " >> " + events_};
    c.continue_on_failure = cont;
    return c;
  }
  Stage MakeStage(const std::string& name, std::vector<std::string> needs, std::vector<Container> steps) {
    Stage s;
    s.name = name;
    s.needs = std::move(needs);
    s.steps = std::move(steps);
    return s;
  }

  BuildRecord Run(const Pipeline& p, Duration timeout = std::chrono::seconds(60),
                  const Context& ctx = Background()) {
    executor::BuildConfig config;
    config.build_id = "test-1";
    config.result_dir = dir_;
    config.workspace_root = dir_ + "/ws";
    config.kill_grace = std::chrono::seconds(5);
    config.log_streaming_timeout = std::chrono::seconds(5);
    config.worker_env = {"PATH=/usr/local/bin:/usr/bin:/bin"};
    executor::Engine engine(p, config);
    cmd::RunBuild(ctx, engine, timeout, std::chrono::seconds(30));
    return engine.Record();
  }

  std::vector<std::string> Events() {
    std::ifstream in(events_);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
  std::ptrdiff_t IndexOf(const std::string& event) {
    std::vector<std::string> e = Events();
    auto it = std::find(e.begin(), e.end(), event);
    return it == e.end() ? -1 : it - e.begin();
  }
  void ExpectBefore(const std::string& a, const std::string& b) {
    std::ptrdiff_t ia = IndexOf(a), ib = IndexOf(b);
    ASSERT_GE(ia, 0) << a;
    ASSERT_GE(ib, 0) << b;
    EXPECT_LT(ia, ib) << a << " should come before " << b;
  }
  static const ContainerRecord& Find(const BuildRecord& b, const std::string& name) {
    for (const ContainerRecord& c : b.steps) {
      if (c.name == name) return c;
    }
    for (const ContainerRecord& c : b.services) {
      if (c.name == name) return c;
    }
    static ContainerRecord none;
    ADD_FAILURE() << "no container " << name;
    return none;
  }

  std::string dir_, events_;
};

TEST_F(EngineOrderTest, StagesWaitForTheirNeedsAndStepsRunInOrder) {
  Pipeline p;
  p.stages = {MakeStage("a", {}, {Step("a1", "sleep 0.2"), Step("a2")}),
              MakeStage("b", {"a"}, {Step("b1")}),
              MakeStage("c", {}, {Step("c1", "sleep 0.1")}),
              MakeStage("d", {"b", "c"}, {Step("d1")})};
  BuildRecord b = Run(p);
  EXPECT_EQ(b.status, BuildStatus::kSuccess) << b.reason;
  ExpectBefore("end a1", "start a2");
  ExpectBefore("end a2", "start b1");
  ExpectBefore("end b1", "start d1");
  ExpectBefore("end c1", "start d1");
  // c does not need a: it started before a finished.
  ExpectBefore("start c1", "end a1");
  for (const ContainerRecord& c : b.steps) EXPECT_EQ(c.status, Status::kSuccess) << c.name;
}

TEST_F(EngineOrderTest, AFailureSkipsItsStageAndItsDependentsOnly) {
  Pipeline p;
  p.stages = {MakeStage("a", {}, {Step("a1", "exit 4"), Step("a2")}),
              MakeStage("b", {"a"}, {Step("b1")}),
              MakeStage("c", {"b"}, {Step("c1")}),
              MakeStage("free", {}, {Step("f1")})};
  BuildRecord b = Run(p);
  EXPECT_EQ(b.status, BuildStatus::kFailure);
  EXPECT_EQ(Find(b, "a1").status, Status::kFailure);
  EXPECT_EQ(Find(b, "a1").exit_code, 4);
  EXPECT_EQ(Find(b, "a2").status, Status::kSkipped);
  EXPECT_EQ(Find(b, "b1").status, Status::kSkipped);
  EXPECT_EQ(Find(b, "c1").status, Status::kSkipped);
  EXPECT_EQ(Find(b, "c1").reason, "needs stage a, which failed");
  EXPECT_EQ(Find(b, "f1").status, Status::kSuccess);
  EXPECT_EQ(IndexOf("start a2"), -1);
  EXPECT_EQ(IndexOf("start b1"), -1);
}

TEST_F(EngineOrderTest, ContinueOnFailureKeepsGoing) {
  Pipeline p;
  p.steps = {Step("flaky", "exit 2", /*cont=*/true), Step("next")};
  BuildRecord b = Run(p);
  EXPECT_EQ(b.status, BuildStatus::kSuccess);
  EXPECT_EQ(Find(b, "flaky").status, Status::kFailure);
  EXPECT_EQ(Find(b, "next").status, Status::kSuccess);
  ExpectBefore("start flaky", "start next");
}

TEST_F(EngineOrderTest, TimeoutKillsTheRunningStepAndCancelsTheRest) {
  Pipeline p;
  p.steps = {Step("slow", "sleep 30"), Step("never")};
  BuildRecord b = Run(p, std::chrono::milliseconds(300));
  EXPECT_EQ(b.status, BuildStatus::kFailure);
  EXPECT_EQ(b.reason, "build timed out");
  EXPECT_EQ(Find(b, "slow").status, Status::kKilled);
  EXPECT_EQ(Find(b, "slow").exit_code, 143);  // SIGTERM: sleep honours it
  EXPECT_EQ(Find(b, "never").status, Status::kCanceled);
  EXPECT_EQ(IndexOf("end slow"), -1);
  EXPECT_EQ(IndexOf("start never"), -1);
  EXPECT_FALSE(std::filesystem::exists(b.workspace)) << "DestroyBuild removes the workspace";
}

TEST_F(EngineOrderTest, CancellingTheBuildContextCancelsTheBuild) {
  Pipeline p;
  p.steps = {Step("waits", "sleep 30"), Step("never")};
  auto [build_ctx, cancel_build] = WithCancel(Background());
  auto [group, gctx] = TaskGroup::WithContext(Background());
  BuildRecord b;
  group.Go([&, bctx = build_ctx] { b = Run(p, std::chrono::seconds(60), bctx); });
  // Cancel once the step is running (its start event is written).
  for (int i = 0; i < 3000 && IndexOf("start waits") < 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  cancel_build();
  group.Wait();
  EXPECT_EQ(b.status, BuildStatus::kCanceled);
  EXPECT_EQ(Find(b, "waits").status, Status::kKilled);
  EXPECT_EQ(Find(b, "never").status, Status::kCanceled);
}

TEST_F(EngineOrderTest, ServicesAndDetachedStepsRunUntilTheBuildEnds) {
  Pipeline p;
  Container svc;
  svc.name = "svc";
  svc.entrypoint = {"sh", "-c", "echo serving; touch " + dir_ + "/svc-up; exec sleep 30"};
  p.services = {svc};
  Container bg = Step("bg", "sleep 30");
  bg.detach = true;
  p.steps = {bg, Step("uses", "while [ ! -f " + dir_ + "/svc-up ]; do sleep 0.01; done")};
  BuildRecord b = Run(p);
  EXPECT_EQ(b.status, BuildStatus::kSuccess) << b.reason;
  EXPECT_EQ(Find(b, "svc").status, Status::kSuccess);
  EXPECT_EQ(Find(b, "svc").reason, "stopped when the build ended");
  EXPECT_EQ(Find(b, "svc").exit_code, 143);
  EXPECT_EQ(Find(b, "bg").status, Status::kSuccess);
  EXPECT_EQ(Find(b, "uses").status, Status::kSuccess);
  std::ifstream log(dir_ + "/svc.log");
  std::string first;
  std::getline(log, first);
  EXPECT_EQ(first, "serving");
}

}  // namespace
}  // namespace tether::worker
